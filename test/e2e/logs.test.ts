import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { expectExactlyOnce } from "../support/faults.js";
import { completedRun, seedPull } from "../support/pr.js";

/**
 * Logs during a whole end-to-end flow (debug level, Probot's and Octokit's lines included): bound to the
 * delivery, repository, installation, pull request and scan, and free of tokens, secrets and payloads.
 */
describe("logs", () => {
  let h: Harness | undefined;
  afterAll(async () => {
    await h?.close();
  });

  it("no token, password, key or payload reaches the logs; lines carry delivery, pull, installation, scan", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
        done();
      },
    });
    h = await startHarness({
      log: pino({ level: "debug" }, sink),
      sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1 },
    });
    const head = "6".repeat(40);
    const pr = seedPull(h, { head });
    const PAYLOAD_MARKER = "payload-marker-7d1f0c";
    pr.payload.pull_request.body = `Please review ${PAYLOAD_MARKER}`;
    pr.payload.pull_request.title = `Title ${PAYLOAD_MARKER}`;
    expect((await h.send("pull_request", pr.payload, "delivery-logs-1")).status).toBe(200);
    await completedRun(h, pr.owner, pr.repo, head);
    expectExactlyOnce(h, pr, head);
    await new Promise((r) => setTimeout(r, 200)); // let the last lines flush
    const text = lines.join("\n");
    expect(lines.length).toBeGreaterThan(10);

    // Secrets: the service token, installation tokens the stand-in issued, the webhook secret, the App key.
    const issued = h.github.requests.filter((r) => /access_tokens$/.test(r.path)).map((r) => r.path);
    expect(issued.length).toBeGreaterThan(0);
    expect(text).not.toContain("sandbox-token");
    expect(text).not.toMatch(/ghs_[A-Za-z0-9]{8,}/);
    expect(text).not.toMatch(/eyJ[\w-]{10,}\.[\w-]{10,}/); // App JWTs
    expect(text).not.toContain(h.webhookSecret);
    expect(text).not.toMatch(/PRIVATE KEY/);
    // Payloads: neither the webhook's text fields nor the finding descriptions.
    expect(text).not.toContain(PAYLOAD_MARKER);
    const leak = lines.find((l) => l.includes("closing fence below on purpose"));
    expect(leak?.slice(0, 600)).toBeUndefined();
    expect(text).not.toContain("onerror=alert");

    // Bindings: one child logger per delivery and job.
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const delivery = records.find((r) => r.delivery === "delivery-logs-1" && r.msg === "launch enqueued");
    expect(delivery).toMatchObject({ pull: expect.stringContaining("#"), installation: expect.any(Number) });
    const reported = records.find((r) => r.msg === "scan reported");
    expect(reported).toMatchObject({
      scanId: expect.stringMatching(/\S/),
      installation: expect.any(Number),
      pull: expect.stringContaining("#"),
    });
    const launched = records.find((r) => r.msg === "scan launched");
    expect(launched).toMatchObject({ scanId: expect.any(String), installation: expect.any(Number) });
  });
});
