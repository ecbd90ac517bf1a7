import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { mergeGroupPayload } from "../../dev/github-standin/index.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { jobId } from "../../src/runtime/names.js";
import { checkRuns, completedRun, launchedScan, sha } from "../support/pr.js";
import { flushPrefix } from "../support/flush.js";
import { addGroup, queuedPull } from "../support/merge-group.js";

/** Launch requests the sandbox answered, whatever their status (`POST /projects/{projectId}/scans`). */
function launchRequests(h: Harness): number {
  const counts = h.sandbox.state.stats.requests["POST /projects/:projectId/scans"] ?? {};
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

/** Waits for the group's check run to show its scan id (the scan is in flight and GitHub knows it). */
async function runWithScan(h: Harness, owner: string, repo: string, head: string) {
  return h.waitFor(
    () => checkRuns(h, owner, repo, head).find((c) => c.externalId && c.status !== "completed"),
    20_000,
    `in-flight check run with a scan id on ${head.slice(0, 7)}`,
  );
}

describe("merge queue: reconciliation rebuilds in-flight merge group scans after Redis is lost", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 6_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("flush mid-scan, reconcile: the group's check completes with the scan's results, launched once, a redelivery launches nothing", async () => {
    const { pr, group } = queuedPull(
      h,
      { head: sha(0x1401), repo: "mq-reconcile", config: demoConfig("mergeQueue: scan") },
      { head: sha(0x1402), base: sha(0x1400), ownBranch: true },
    );
    const payload = mergeGroupPayload(h.github.state, group, "checks_requested");
    expect((await h.send("merge_group", payload)).status).toBe(200);
    const scanId = await launchedScan(h, group.headSha, 15_000);
    const running = await runWithScan(h, pr.owner, pr.repo, group.headSha);
    expect(running.externalId).toBe(scanId);
    expect(launchRequests(h)).toBe(1);

    const key = `${pr.owner}/${pr.repo}@${group.headSha}`;
    expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);
    expect(await h.booted.rt.stores.pulls.getGroup(key)).toBeUndefined();
    expect(await h.booted.rt.queues.scans.getJob(jobId("poll", scanId))).toBeUndefined();

    // Two reconciliations racing: one poll job (BullMQ job id `poll-<scanId>`).
    const [a, b] = await Promise.all([h.booted.reconcile(), h.booted.reconcile()]);
    expect(a.mergeGroups).toBe(1);
    expect([...a.resumed, ...a.alreadyFollowed]).toEqual([scanId]);
    expect([...b.resumed, ...b.alreadyFollowed]).toEqual([scanId]);
    expect([...a.resumed, ...b.resumed]).toEqual([scanId]);
    expect(a.errors + b.errors).toBe(0);
    expect(await h.booted.rt.stores.pulls.getGroup(key)).toMatchObject({
      checkRunId: running.id,
      scanId,
      pullNumber: pr.number,
    });

    // GitHub redelivers checks_requested (a new delivery id): the rebuilt state says the group is handled.
    expect((await h.send("merge_group", payload)).status).toBe(200);

    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 30_000);
    expect(run.id).toBe(running.id);
    expect(run.externalId).toBe(scanId);
    expect(run.conclusion).toBe("failure"); // the demo scenario's confirmed critical finding
    expect(run.output.summary).toContain("Merge group");
    expect(run.output.summary).toContain(`#${pr.number}`);
    expect(run.annotations.length).toBeGreaterThan(0);
    expect(h.sandbox.state.scans.get(scanId)!.final?.status).toBe("COMPLETED");

    await new Promise((r) => setTimeout(r, 1_000));
    expect(launchRequests(h)).toBe(1);
    expect(checkRuns(h, pr.owner, pr.repo, group.headSha)).toHaveLength(1);
    expect(h.github.state.reviews(pr.owner, pr.repo)).toEqual([]);
    expect(h.github.violations()).toEqual([]);

    // A later reconciliation finds nothing in flight.
    const after = await h.booted.reconcile();
    expect(after.resumed).toEqual([]);
    expect(after.alreadyFollowed).toEqual([]);
  });

  it("only groups still in their queue are resumed: a group whose branch GitHub deleted is not followed again", async () => {
    const live = queuedPull(
      h,
      { head: sha(0x1411), repo: "mq-reconcile-gone", config: demoConfig("mergeQueue: scan") },
      { head: sha(0x1412), base: sha(0x1410), ownBranch: true },
    );
    const gone = addGroup(h, live.pr, sha(0x1413), sha(0x1410), true);
    const { owner, repo } = live.pr;
    await h.send("merge_group", mergeGroupPayload(h.github.state, live.group, "checks_requested"));
    await h.send("merge_group", mergeGroupPayload(h.github.state, gone, "checks_requested"));
    const liveScan = (await runWithScan(h, owner, repo, live.group.headSha)).externalId!;
    const goneScan = (await runWithScan(h, owner, repo, gone.headSha)).externalId!;

    await flushPrefix(h.prefix);
    // the group left the queue while diffward's state was lost: GitHub deleted its branch
    h.github.state.destroyMergeGroup(owner, repo, gone.headSha, "dequeued");

    const summary = await h.booted.reconcile();
    expect(summary.resumed).toEqual([liveScan]);
    expect(summary.alreadyFollowed).toEqual([]);
    expect(await h.booted.rt.queues.scans.getJob(jobId("poll", goneScan))).toBeUndefined();
    expect(await h.booted.rt.stores.pulls.getGroup(`${owner}/${repo}@${gone.headSha}`)).toBeUndefined();

    const run = await completedRun(h, owner, repo, live.group.headSha, 30_000);
    expect(run.externalId).toBe(liveScan);
    // and again: the gone group is still not resumed
    expect((await h.booted.reconcile()).resumed).toEqual([]);
    expect(await h.booted.rt.queues.scans.getJob(jobId("poll", goneScan))).toBeUndefined();
  });
  it("destroyed after the state was lost: the group's unfinished check is concluded cancelled and its scan cancelled, read from GitHub", async () => {
    const { pr, group } = queuedPull(
      h,
      { head: sha(0x1431), repo: "mq-destroy-lost", config: demoConfig("mergeQueue: scan") },
      { head: sha(0x1432), base: sha(0x1430), ownBranch: true },
    );
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
    const running = await runWithScan(h, pr.owner, pr.repo, group.headSha);
    const scanId = running.externalId!;

    await flushPrefix(h.prefix);
    h.github.state.destroyMergeGroup(pr.owner, pr.repo, group.headSha, "dequeued");
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "destroyed"));

    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 15_000);
    expect(run.id).toBe(running.id);
    expect(run.conclusion).toBe("cancelled");
    expect(run.output.summary).toContain("removed from the merge queue");
    expect(run.output.summary).toContain(scanId);
    expect(h.sandbox.state.scans.get(scanId)!.final?.status).toBe("CANCELLED");
    expect(await h.booted.rt.stores.pulls.getGroup(`${pr.owner}/${pr.repo}@${group.headSha}`)).toMatchObject({
      destroyed: true,
    });
    expect(checkRuns(h, pr.owner, pr.repo, group.headSha)).toHaveLength(1);
  });
});

describe("merge queue: a group scan reported before its settlement", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1, settlementDelayMs: 6_000 },
      settings: { settleDelayMs: 1_000 },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("creditCap.monthly's ledger counts the budget at report time and the actual spend once it settles", async () => {
    h.sandbox.state.addRepository({ id: "repo_mq_settle", readiness: "ready" });
    const config = demoConfig("mergeQueue: scan\ncreditCap:\n  monthly: 500").replace(
      "repo_demo",
      "repo_mq_settle",
    );
    const { pr, group } = queuedPull(
      h,
      { head: sha(0x1421), repo: "mq-settle", config: config },
      { head: sha(0x1422), base: sha(0x1420), ownBranch: true },
    );
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 30_000);
    const scanId = run.externalId!;
    const scan = h.sandbox.state.scans.get(scanId)!;

    const tenant = (await h.booted.rt.scanner.forAccount(pr.owner))!;
    const ledger = h.booted.rt.stores.capLedger;
    const capKey = ledger.keyOf({ projectId: tenant.projectId, repositoryId: "repo_mq_settle" }, Date.now());
    // reported before the service settled it: the ledger still counts the scan's budget
    expect(scan.settled).toBe(false);
    const atReport = await ledger.snapshot(capKey);
    expect(atReport.settled).toBe(0);
    expect(atReport.inFlight).toBe(scan.creditBudget);
    expect(atReport.unsettled).toEqual([scanId]);

    // the settle follow-up: once the usage ledger has it, the cap ledger counts the actual spend
    await h.waitFor(() => scan.settled || undefined, 15_000, "the sandbox settling the scan");
    const after = await h.waitFor(
      async () => {
        const snap = await ledger.snapshot(capKey);
        return snap.unsettled.length === 0 ? snap : undefined;
      },
      15_000,
      "the group scan's spend settled in the cap ledger",
    );
    const spent = (scan.spentCredits ?? 0) - scan.refundedCredits;
    expect(spent).toBeLessThan(scan.creditBudget);
    expect(after).toMatchObject({ settled: spent, inFlight: 0, reserved: 0 });
    // the group's settlement touched no pull request: no check run, review or report state of the pull request
    expect(checkRuns(h, pr.owner, pr.repo, sha(0x1421))).toEqual([]);
    expect(await h.booted.rt.stores.reports.get(`${pr.owner}/${pr.repo}#${pr.number}`)).toBeUndefined();
    expect(h.github.violations()).toEqual([]);
  });
});
