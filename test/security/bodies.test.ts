import { afterEach, describe, expect, it } from "vitest";
import { DIFFWARD_HTML, codeValues, hazards, htmlNodes } from "../support/markdown.js";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { startSandbox } from "../../dev/sandbox/index.js";
import { expectExactlyOnce, startProxy } from "../support/faults.js";
import { completedRun, seedPull } from "../support/pr.js";

/** Every Markdown text diffward sent to GitHub: check run summaries/texts, review bodies, comment bodies. */
function postedMarkdown(h: Harness): string[] {
  const out: string[] = [];
  for (const r of h.github.requests) {
    if (r.method === "GET" || typeof r.body !== "object" || r.body === null) continue;
    const b = r.body as {
      body?: unknown;
      output?: { summary?: unknown; text?: unknown };
      comments?: Array<{ body?: unknown }>;
    };
    for (const t of [b.body, b.output?.summary, b.output?.text, ...(b.comments ?? []).map((c) => c.body)])
      if (typeof t === "string") out.push(t);
  }
  return out;
}

describe("untrusted text and malformed answers", () => {
  let h: Harness | undefined;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    await Promise.all(closers.splice(0).map((c) => c()));
  });

  it("the demo's hostile finding (mentions, references, HTML, fence breaks) is neutralized in every body posted", async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1 } });
    const head = "8".repeat(40);
    const pr = seedPull(h, { head });
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    await completedRun(h, pr.owner, pr.repo, head);
    expectExactlyOnce(h, pr, head);
    const bodies = postedMarkdown(h);
    expect(bodies.length).toBeGreaterThan(3);
    const all = bodies.join("\n");
    // The hostile text did reach GitHub, neutralized (else this test would prove nothing).
    expect(all).toContain("\\<img src=x onerror=alert(1)>");
    expect(all).toContain("@\u200Bacme/security-team");
    // ... and its code reached GitHub exactly as the service wrote it.
    expect(codeValues(all)).toContain(
      "<script>alert('fence break')</script>\n\nEnd of description, inside the fence the service left open.",
    );
    for (const body of bodies) {
      expect(body).not.toMatch(/@(acme|everyone)\b/);
      expect(body).not.toMatch(/#(123|456)\b/);
      // Outside code: no raw HTML but diffward's own blocks, no image, no live link but the guidance file's.
      expect(
        hazards(body, "https://scanner.invalid", {
          html: DIFFWARD_HTML,
          link: (url) => /\/blob\/[0-9a-f]{40}\/SCANNER\.md$/.test(url),
        }),
        body,
      ).toEqual([]);
      // diffward's own <details> blocks open and close in pairs (finding text cannot close one).
      const html = htmlNodes(body);
      expect(html.filter((v) => v.startsWith("<details")).length).toBe(
        html.filter((v) => v === "</details>").length,
      );
      // Fences open and close in pairs: no fence break escapes a code block.
      const fences = body.split("\n").filter((l) => /^\s*(`{3,}|~{3,})/.test(l));
      expect(fences.length % 2, body).toBe(0);
    }
  });

  it("a malformed scan answer from the service gives a readable failed check run, not a crash", async () => {
    const sandbox = await startSandbox({ scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1 });
    const proxy = await startProxy(sandbox.url, {
      rewrite: (method, path, status) =>
        method === "GET" && /\/scans\/[^/]+$/.test(path) && status === 200
          ? JSON.stringify({ id: 42, status: "EXPLODED", progress: "lots" })
          : undefined,
    });
    closers.push(proxy.close, sandbox.close);
    h = await startHarness({ boot: { scannerApiUrl: proxy.url } });
    const head = "7".repeat(40);
    const pr = seedPull(h, { head });
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    const done = await completedRun(h, pr.owner, pr.repo, head);
    expect(done.conclusion).toBe("failure");
    expect(done.output.title).toBe("Scan result could not be read");
    expect(done.output.summary).toMatch(/does not match its documented format/);
    expect(done.output.summary).toMatch(/What next/);
    expect(sandbox.state.scans.size).toBe(1); // launched once, never again
    expect(h.github.violations()).toEqual([]);
    const health = await fetch(`${h.web.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
