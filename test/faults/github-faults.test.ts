import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { SECONDARY_RATE_LIMIT_MESSAGE } from "../../dev/github-standin/index.js";
import { expectExactlyOnce, startProxy } from "../support/faults.js";
import { completedRun, seedPull } from "../support/pr.js";

/**
 * GitHub answering 5xx, 429 and secondary rate limits (403 + `retry-after`): Octokit's retry and
 * throttling plugins (Probot's Octokit, with secondary limits retried: `src/runtime/octokit.ts`) absorb them;
 * the pipeline neither loses the scan nor posts twice.
 */
describe("GitHub faults", () => {
  let h: Harness | undefined;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await h?.close();
    h = undefined;
    await Promise.all(closers.splice(0).map((c) => c()));
  });

  const start = (boot: Record<string, unknown> = {}) =>
    startHarness({ sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 }, boot });

  it("5xx bursts on check runs and reviews are retried by Octokit: one check run, one review", async () => {
    h = await start();
    const head = "b".repeat(39) + "1";
    const pr = seedPull(h, { head });
    h.github.setFaults({ next5xx: 2, status: 502, route: /\/(check-runs|reviews)/ });
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    await completedRun(h, pr.owner, pr.repo, head);
    expectExactlyOnce(h, pr, head);
    expect(h.github.requests.filter((r) => r.status === 502)).toHaveLength(2);
  });

  it("429 with retry-after (primary limit) is waited out", async () => {
    h = await start();
    const head = "b".repeat(39) + "2";
    const pr = seedPull(h, { head });
    h.github.setFaults({ next429: 2, route: /\/check-runs/ });
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    await completedRun(h, pr.owner, pr.repo, head);
    expectExactlyOnce(h, pr, head);
    expect(h.github.requests.filter((r) => r.status === 429)).toHaveLength(2);
  });

  it("secondary rate limit (403, retry-after: 1) on writes is waited out and retried: nothing lost or doubled", async () => {
    let budget = 3;
    const limited: string[] = [];
    const standIn = await import("../../dev/github-standin/index.js");
    const github = await standIn.startGitHubStandIn();
    const proxy = await startProxy(github.url, {
      intercept(method, path) {
        if (method === "GET" || /access_tokens$/.test(path) || budget <= 0) return undefined;
        budget -= 1;
        limited.push(`${method} ${path}`);
        return {
          status: 403,
          headers: { "retry-after": "1", "x-ratelimit-remaining": "4000" },
          body: JSON.stringify({
            message: SECONDARY_RATE_LIMIT_MESSAGE,
            documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
          }),
        };
      },
    });
    closers.push(proxy.close, github.close);
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 },
      github: { state: github.state },
      boot: { githubBaseUrl: proxy.url },
    });
    const head = "b".repeat(39) + "3";
    const pr = seedPull(h, { head });
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    await completedRun(h, pr.owner, pr.repo, head, 25_000);
    expect(limited.length).toBe(3);
    // The writes went to the shared state behind the proxy; the harness's own stand-in shares it.
    expectExactlyOnce(h, pr, head);
    const created = github.requests.filter((r) => r.method === "POST" && /check-runs$/.test(r.path));
    expect(created).toHaveLength(1);
    expect(github.violations()).toEqual([]);
    // Absorbed inside Octokit (throttling plugin), not by failing and re-running jobs.
    expect(await h.booted.metrics.render()).not.toMatch(/^diffward_job_failures_total\{/m);
  });
});
