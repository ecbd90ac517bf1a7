import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { applyFaults } from "../../dev/sandbox/index.js";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { ScannerClient } from "../../src/scanner/index.js";
import { pullKey } from "../../src/runtime/names.js";
import { MERGE_BASE, completedRun, launchPosts, openPull, sha } from "../support/pr.js";

/** Check-run outputs diffward sent (title of every create/update), in order. */
function titlesSent(h: Harness): string[] {
  return h.github.requests
    .filter((r) => r.route?.includes("check-runs") && r.method !== "GET")
    .map((r) => (r.body as { output?: { title?: string } } | undefined)?.output?.title ?? "")
    .filter(Boolean);
}

describe("every launch error becomes something a user understands", () => {
  let h: Harness;
  let n = 0;
  const repo = () => `launch-errors-${++n}`;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1, seed: 11 },
      settings: { initializingBaseDelayMs: 300 },
    });
  });
  afterEach(() => {
    applyFaults(h.sandbox.state, { errors: null, rateLimits: null, latencyMs: 0 });
    h.sandbox.state.setBalance(10_000);
  });
  afterAll(async () => h?.close());

  it("repository_initializing: the check says so, the launch is retried until the repository is ready", async () => {
    // The repository stays in its one-time pass until the check run has said so, however slow the machine: only
    // then does its pass end, and the retried launch goes through.
    h.sandbox.state.addRepository({ id: "repo_fresh", readiness: "analyzing" });
    const pr = await openPull(h, {
      head: sha(1),
      repo: repo(),
      config: demoConfig().replace("repo_demo", "repo_fresh"),
    });
    await h.waitFor(
      () => titlesSent(h).includes("Repository is being analyzed for the first time"),
      20_000,
      "the check run's analyzing title",
    );
    h.sandbox.state.setReadiness("repo_fresh", "ready");
    const run = await completedRun(h, pr.owner, pr.repo, sha(1));
    expect(run.conclusion).toBe("failure"); // the demo scenario's findings, once scanned
    expect([...h.sandbox.state.scans.values()].filter((s) => s.repositoryId === "repo_fresh")).toHaveLength(
      1,
    );
  });

  it("insufficient_credits: action_required with the balance and what to do, never retried", async () => {
    h.sandbox.state.setBalance(3);
    const before = launchPosts(h);
    const pr = await openPull(h, { head: sha(2), repo: repo() });
    const run = await completedRun(h, pr.owner, pr.repo, sha(2));
    expect(run.conclusion).toBe("action_required");
    expect(run.output.summary).toMatch(/credit/i);
    expect(run.output.summary).toContain("3"); // the balance it has
    await new Promise((r) => setTimeout(r, 1_500));
    expect(launchPosts(h) - before).toBe(1); // one 402, no loop
  });

  it("diff_empty: neutral, nothing to audit", async () => {
    h.sandbox.state.markNoChange(sha(3));
    const pr = await openPull(h, { head: sha(3), repo: repo() });
    const run = await completedRun(h, pr.owner, pr.repo, sha(3));
    expect(run.conclusion).toBe("neutral");
    expect(run.output.title).toMatch(/nothing to (scan|audit)|no change/i);
  });

  it("not_found: failure naming the repository setting to fix", async () => {
    const pr = await openPull(h, {
      head: sha(4),
      repo: repo(),
      config: demoConfig().replace("repo_demo", "repo_missing"),
    });
    const run = await completedRun(h, pr.owner, pr.repo, sha(4));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("repo_missing");
  });

  it("rate_limited: waits its Retry-After, then launches once", async () => {
    applyFaults(h.sandbox.state, {
      rateLimits: { count: 1, retryAfterSeconds: 1, route: "^POST .*/scans$" },
    });
    const before = h.sandbox.state.scans.size;
    const pr = await openPull(h, { head: sha(5), repo: repo() });
    const run = await completedRun(h, pr.owner, pr.repo, sha(5));
    expect(run.externalId).toBeTruthy();
    expect(h.sandbox.state.scans.size - before).toBe(1);
  });

  it("5xx on the launch: bounded retries, the scan list is checked first, exactly one scan", async () => {
    applyFaults(h.sandbox.state, { errors: { count: 2, status: 503, route: "^POST .*/scans$" } });
    const before = h.sandbox.state.scans.size;
    const pr = await openPull(h, { head: sha(6), repo: repo() });
    const run = await completedRun(h, pr.owner, pr.repo, sha(6), 40_000);
    expect(run.externalId).toBeTruthy();
    expect(h.sandbox.state.scans.size - before).toBe(1);
    // after an attempt of unknown outcome, diffward looked the scan up before sending again
    expect(Object.keys(h.sandbox.state.stats.requests)).toContain("GET /projects/:projectId/scans");
  });

  it("a launch that reached the service before a crash is found in the scan list, not paid twice", async () => {
    const head = sha(7);
    const pr = await openPull(h, {
      head,
      repo: repo(),
      config: demoConfig().replace("debounceSeconds: 0", "debounceSeconds: 2"),
    });
    const state = h.booted.rt.stores.pulls;
    const launchKey = await h.waitFor(
      async () => (await state.getPull(pullKey(pr.owner, pr.repo, pr.number)))?.launchKey,
    );
    // The crashed attempt: diffward marked it, the POST reached the service, the answer was lost.
    await h.booted.rt.stores.scans.markLaunchAttempt(launchKey, Date.now() - 1_000);
    const client = new ScannerClient({ baseUrl: h.sandbox.url, token: "sandbox-token" });
    const lost = await client.launchScan("prj_demo", {
      repositoryId: "repo_demo",
      presetRef: "diff-standard",
      commitHash: head,
      baseCommit: MERGE_BASE,
    });
    const before = h.sandbox.state.scans.size;
    const run = await completedRun(h, pr.owner, pr.repo, head);
    expect(run.externalId).toBe(lost.scanId);
    expect(h.sandbox.state.scans.size).toBe(before);
  });

  it("unauthorized: failure that names the token to fix", async () => {
    h.sandbox.state.revokeToken("sandbox-token");
    h.booted.rt.scanner.invalidate();
    const pr = await openPull(h, { head: sha(8), repo: repo() });
    const run = await completedRun(h, pr.owner, pr.repo, sha(8));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toMatch(/token/i);
  });
});
