import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { checkRuns, completedRun, openPull, pushPull, sha } from "../support/pr.js";

/**
 * Regression tests of "the monthly credit cap is enforced against scans in flight": pull
 * requests opened at once in one repository with `creditCap.monthly`, against the sandbox over HTTP, the
 * GitHub stand-in and a real Redis. Before the fix every launch passed the preflight (only settled spend was
 * counted) and the repository spent 4 × 10 credits under a cap of 5.
 */
const CANCELLED_HEAD = sha(0x7301);

describe("creditCap.monthly holds against scans in flight", () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      sandbox: {
        scenario: "demo",
        // the scan the cancel case supersedes runs long, so it is still queued when the push lands
        scanDurationMs: (scan) => (scan.commitHash === CANCELLED_HEAD ? 120_000 : 1_500),
        retryAfterSeconds: 1,
        seed: 7,
      },
    });
  });
  afterAll(async () => h?.close());

  /** Opens `count` pull requests of one repository at once and waits until every check run is completed. */
  async function openConcurrently(
    repo: string,
    repositoryId: string,
    extra: string,
    count: number,
    base: number,
  ) {
    h.sandbox.state.addRepository({ id: repositoryId, readiness: "ready" });
    const config = demoConfig(extra).replace("repo_demo", repositoryId);
    const heads = Array.from({ length: count }, (_, i) => sha(base + i));
    await Promise.all(heads.map((head, i) => openPull(h, { head, repo, number: 100 + i, config })));
    await h.waitFor(
      () => {
        const runs = checkRuns(h, "Codertocat", repo);
        return runs.length >= count && runs.every((c) => c.status === "completed");
      },
      40_000,
      "every check run completed",
    );
    // Every launched scan ends and settles in the sandbox's ledger.
    const scans = () => [...h.sandbox.state.scans.values()].filter((s) => s.repositoryId === repositoryId);
    await h.waitFor(() => scans().every((s) => s.settled), 20_000, "every scan settled");
    return { scans: scans(), runs: checkRuns(h, "Codertocat", repo) };
  }

  it("four pull requests at once under `creditCap.monthly: 5` spend at most 5 credits", async () => {
    const { scans, runs } = await openConcurrently(
      "cap-five",
      "repo_cap_five",
      "creditCap:\n  monthly: 5",
      4,
      0x7001,
    );
    const spent = scans.reduce((sum, s) => sum + (s.spentCredits ?? 0) - s.refundedCredits, 0);
    const reserved = scans.reduce((sum, s) => sum + s.creditBudget, 0);
    expect(spent).toBeLessThanOrEqual(5);
    expect(reserved).toBeLessThanOrEqual(5); // the most the launched scans could ever have spent
    // The diff preset needs at least 10 credits, so no scan fits under 5: each check says why, readably.
    const refused = runs.filter((c) => c.conclusion === "action_required");
    expect(refused).toHaveLength(4);
    for (const run of refused) {
      expect(run.output.title).toMatch(/^Monthly credit cap reached/);
      expect(run.output.summary).toContain("`creditCap.monthly` is 5");
      expect(run.output.summary).toContain("the cap resets on");
    }
  });

  it("five pull requests at once with `creditBudget: 10` under `creditCap.monthly: 25` launch two scans, and spend ≤ 25", async () => {
    const { scans, runs } = await openConcurrently(
      "cap-shared",
      "repo_cap_shared",
      "creditBudget: 10\ncreditCap:\n  monthly: 25",
      5,
      0x7101,
    );
    expect(scans).toHaveLength(2);
    expect(scans.every((s) => s.creditBudget === 10)).toBe(true);
    const spent = scans.reduce((sum, s) => sum + (s.spentCredits ?? 0) - s.refundedCredits, 0);
    expect(spent).toBeLessThanOrEqual(25);
    expect(runs.filter((c) => c.conclusion === "action_required")).toHaveLength(3);
  });

  it("after Redis loses the cap ledger, the month's spend is read back from the service before any launch", async () => {
    const repositoryId = "repo_cap_shared"; // the previous case spent its 2 × 10 credits here
    const spent = [...h.sandbox.state.scans.values()]
      .filter((s) => s.repositoryId === repositoryId)
      .reduce((sum, s) => sum + (s.spentCredits ?? 0) - s.refundedCredits, 0);
    expect(spent).toBeGreaterThan(15);
    const keys = await h.booted.rt.redis.keys(`${h.prefix}:cap*`);
    expect(keys.length).toBeGreaterThan(0);
    await h.booted.rt.redis.del(...keys); // as after a flush of diffward's state
    const head = sha(0x7201);
    await openPull(h, {
      head,
      repo: "cap-shared",
      number: 120,
      config: demoConfig("creditBudget: 10\ncreditCap:\n  monthly: 25").replace("repo_demo", repositoryId),
    });
    const run = await completedRun(h, "Codertocat", "cap-shared", head, 20_000);
    expect(run.conclusion).toBe("action_required");
    expect(run.output.summary).toContain(`spent ${spent} credits this month`);
    expect([...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head)).toHaveLength(0);
  });

  it("a scan cancelled before it spent gives its budget back to the next launch", async () => {
    const repositoryId = "repo_cap_cancel";
    h.sandbox.state.addRepository({ id: repositoryId, readiness: "ready" });
    const config = demoConfig("creditBudget: 10\ncreditCap:\n  monthly: 10").replace(
      "repo_demo",
      repositoryId,
    );
    const pr = await openPull(h, { head: sha(0x7301), repo: "cap-cancel", number: 1, config });
    const first = await h.waitFor(
      () => [...h.sandbox.state.scans.values()].find((s) => s.commitHash === sha(0x7301)),
      15_000,
      "first launch",
    );
    // A push right away supersedes it: the scan is cancelled while queued (nothing spent).
    await pushPull(h, pr, sha(0x7302));
    const run = await completedRun(h, "Codertocat", "cap-cancel", sha(0x7302), 30_000);
    await h.waitFor(() => first.settled, 10_000, "the cancelled scan settled");
    expect(first.spentCredits).toBe(0);
    expect(run.conclusion).not.toBe("action_required");
    expect([...h.sandbox.state.scans.values()].filter((s) => s.commitHash === sha(0x7302))).toHaveLength(1);
  });
});
