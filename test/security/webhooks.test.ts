import { createHmac } from "node:crypto";
import fc from "fast-check";
import { Webhooks } from "@octokit/webhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { propertyOptions } from "../support/property.js";

/** Counts every job in diffward's three queues, in any state. */
async function jobCount(h: Harness): Promise<number> {
  let n = 0;
  for (const q of Object.values(h.booted.rt.queues)) {
    const c = await q.getJobCounts("waiting", "active", "delayed", "completed", "failed", "prioritized");
    n += Object.values(c).reduce((a, b) => a + b, 0);
  }
  return n;
}

async function post(h: Harness, body: string, headers: Record<string, string>) {
  const res = await fetch(`${h.web.url}/api/github/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  await res.text();
  return res.status;
}

const sign = (secret: string, body: string) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

describe("webhook endpoint security", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ workers: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("bad, missing or wrong-secret signatures are refused and nothing is enqueued or called", async () => {
    const body = JSON.stringify(webhookExample("pull_request", "opened"));
    const base = { "x-github-event": "pull_request", "x-github-delivery": "d-1" };
    const statuses = [
      await post(h, body, base),
      await post(h, body, { ...base, "x-hub-signature-256": "sha256=" + "0".repeat(64) }),
      await post(h, body, { ...base, "x-hub-signature-256": sign("not-the-secret", body) }),
      await post(h, body, { ...base, "x-hub-signature-256": "garbage" }),
      // signed body, then tampered with
      await post(h, body.replace('"opened"', '"closed"'), {
        ...base,
        "x-hub-signature-256": sign(h.webhookSecret, body),
      }),
    ];
    for (const s of statuses) expect(s).toBeGreaterThanOrEqual(400);
    expect(statuses.every((s) => s < 500)).toBe(true);
    expect(await jobCount(h)).toBe(0);
    expect(h.github.requests).toHaveLength(0);
    // The control: the same body correctly signed is accepted and enqueues one job.
    expect(await post(h, body, { ...base, "x-hub-signature-256": sign(h.webhookSecret, body) })).toBe(200);
    expect(await jobCount(h)).toBe(1);
    await h.booted.rt.queues.events.obliterate({ force: true });
  });

  it("fuzzed, correctly signed bodies never crash the process; every request gets an answer", async () => {
    const events = ["pull_request", "check_run", "check_suite", "installation", "issue_comment", "ping", "x"];
    const anyJson = fc.oneof(
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string(),
      // a real payload with random fields replaced by random values
      fc
        .tuple(fc.constantFrom("opened", "synchronize", "closed"), fc.dictionary(fc.string(), fc.jsonValue()))
        .map(([action, junk]) => {
          const p = webhookExample("pull_request", action as "opened") as Record<string, unknown>;
          const pr = p.pull_request as Record<string, unknown>;
          for (const [k, v] of Object.entries(junk)) pr[k] = v;
          if (Object.keys(junk).length % 2) p.installation = junk;
          return JSON.stringify({ ...p, ...junk });
        }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...events), anyJson, fc.uuid(), async (event, body, id) => {
        const status = await post(h, body, {
          "x-github-event": event,
          "x-github-delivery": id,
          "x-hub-signature-256": sign(h.webhookSecret, body),
        });
        // A malformed payload is logged and dropped (200) or refused (400): never a 500, never a crash.
        expect([200, 202, 400]).toContain(status);
      }),
      propertyOptions(120),
    );
    expect(process.exitCode ?? 0).toBe(0);
    const health = await fetch(`${h.web.url}/healthz`);
    expect(health.status).toBe(200);
  });
});

describe("webhook body limits", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ workers: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  const MB = 1024 * 1024;
  /** A JSON object of about `bytes` bytes. */
  const bigBody = (bytes: number) =>
    JSON.stringify({ ...webhookExample("pull_request", "opened"), padding: "x".repeat(bytes) });
  const base = { "x-github-event": "pull_request", "x-github-delivery": "d-big" };
  /** JSON.parse calls that got a text of more than 1 MB. */
  const bigParses = (spy: { mock: { calls: unknown[][] } }) =>
    spy.mock.calls.filter(([text]) => typeof text === "string" && text.length > MB).length;

  it("an unsigned or wrongly signed 20 MB body is refused before any JSON.parse; nothing runs", async () => {
    const body = bigBody(20 * MB);
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect(await post(h, body, base)).toBe(400);
      expect(await post(h, body, { ...base, "x-hub-signature-256": "sha256=" + "0".repeat(64) })).toBe(400);
      const wrong = await new Webhooks({ secret: "not-the-secret" }).sign(body);
      expect(await post(h, body, { ...base, "x-hub-signature-256": wrong })).toBe(400);
      expect(bigParses(parse)).toBe(0);
    } finally {
      parse.mockRestore();
    }
    expect(await jobCount(h)).toBe(0);
    expect(h.github.requests).toHaveLength(0);
  });

  it("a body over GitHub's 25 MB cap is refused (413), even correctly signed, and never parsed", async () => {
    const body = bigBody(26 * MB);
    const signature = await new Webhooks({ secret: h.webhookSecret }).sign(body);
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect(await post(h, body, { ...base, "x-hub-signature-256": signature })).toBe(413);
      expect(bigParses(parse)).toBe(0);
    } finally {
      parse.mockRestore();
    }
    expect(await jobCount(h)).toBe(0);
  });

  it("a correctly signed body (signed with @octokit/webhooks) is parsed and handled, a large one too", async () => {
    const small = JSON.stringify(webhookExample("pull_request", "opened"));
    const webhooks = new Webhooks({ secret: h.webhookSecret });
    expect(await post(h, small, { ...base, "x-hub-signature-256": await webhooks.sign(small) })).toBe(200);
    expect(await jobCount(h)).toBe(1);
    await h.booted.rt.queues.events.obliterate({ force: true });
    const large = bigBody(5 * MB);
    const status = await post(h, large, {
      ...base,
      "x-github-delivery": "d-large",
      "x-hub-signature-256": await webhooks.sign(large),
    });
    expect(status).toBe(200);
    expect(await jobCount(h)).toBe(1);
    await h.booted.rt.queues.events.obliterate({ force: true });
  });
});
