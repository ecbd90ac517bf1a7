import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { mergeGroupPayload, sarifSchemaErrors } from "../../dev/github-standin/index.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { checkRuns, completedRun, openPull, reportEnded, sha } from "../support/pr.js";
import { jobId } from "../../src/runtime/names.js";
import { repositoryMonthSpend } from "../../src/policy/credits.js";
import { demoMergeQueue } from "../../dev/harness/merge-queue.js";
import { isRuledOut } from "../../src/domain/verdict.js";
import { parseLocation } from "../../src/domain/location.js";
import { addGroup, queuedPull } from "../support/merge-group.js";

/**
 * Merge queues end to end: real `merge_group` payloads (`@octokit/webhooks-examples`, filled from
 * the GitHub stand-in's merge groups), the scanning-service sandbox over HTTP, a real Redis.
 */
describe("merge queue: the diffward check on merge groups", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Puts the pull request into the queue (a merge group on `groupHead` over `groupBase`) and sends checks_requested. */
  async function enqueue(
    pr: { owner: string; repo: string; number: number },
    groupHead: string,
    groupBase: string,
    deliveryId?: string,
  ) {
    const group = addGroup(h, pr, groupHead, groupBase);
    const ack = await h.send(
      "merge_group",
      mergeGroupPayload(h.github.state, group, "checks_requested"),
      deliveryId,
    );
    expect(ack.status).toBe(200);
    return group;
  }

  it("reuse: a pull request reported green gives the group a completed check within seconds, and the service sees no launch", async () => {
    const pr = await openPull(h, {
      head: sha(0x1301),
      repo: "mq-reuse",
      config: demoConfig().replace("failOn: high", "failOn: none"),
    });
    const prRun = await completedRun(h, pr.owner, pr.repo, sha(0x1301));
    expect(prRun.conclusion).toBe("success");
    const launchesBefore = h.sandbox.state.scans.size;

    const started = Date.now();
    const group = await enqueue(pr, sha(0x1302), sha(0x1300), "mq-reuse-delivery");
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 10_000);
    const tookMs = Date.now() - started;
    expect(run.conclusion).toBe("success");
    expect(run.output.title).toContain(`#${pr.number}`);
    expect(run.output.summary).toContain(sha(0x1301));
    expect(run.output.summary).toContain(prRun.externalId!);
    expect(run.output.summary).toMatch(/no new scan was launched/i);
    expect(tookMs).toBeLessThan(10_000);

    // redeliveries (same delivery id, and a second delivery of the same group): nothing new
    const payload = mergeGroupPayload(h.github.state, group, "checks_requested");
    await h.send("merge_group", payload, "mq-reuse-delivery");
    await h.send("merge_group", payload);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(checkRuns(h, pr.owner, pr.repo, group.headSha)).toHaveLength(1);
    expect(h.sandbox.state.scans.size).toBe(launchesBefore);
    expect(h.github.violations()).toEqual([]);
  });

  it("demoMergeQueue (the demo's merge-queue step) shows the pull request's report reused, with no launch", async () => {
    const pr = await openPull(h, { head: sha(0x13b1), repo: "mq-demo" });
    await completedRun(h, pr.owner, pr.repo, sha(0x13b1));
    const shown = await demoMergeQueue(
      h,
      { owner: pr.owner, repo: pr.repo, pullNumber: pr.number },
      { headSha: sha(0x13b2), baseSha: sha(0x13b0) },
    );
    expect(shown.run.headSha).toBe(sha(0x13b2));
    expect(shown.run.output.title).toMatch(/^Reused #\d+'s scan of/);
    expect(shown.launchesAfter).toBe(shown.launchesBefore);
  });

  it("reuse: a failing report is reused as failure (the group cannot merge what the pull request could not)", async () => {
    const pr = await openPull(h, { head: sha(0x1311), repo: "mq-reuse-red" });
    const prRun = await completedRun(h, pr.owner, pr.repo, sha(0x1311));
    expect(prRun.conclusion).toBe("failure");
    const launchesBefore = h.sandbox.state.scans.size;
    const group = await enqueue(pr, sha(0x1312), sha(0x1310));
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 10_000);
    expect(run.conclusion).toBe("failure");
    expect(run.output.title).toMatch(/Reused #\d+'s scan/);
    expect(h.sandbox.state.scans.size).toBe(launchesBefore);
  });

  it("skip: neutral at once, saying merge-queue checks are off; nothing launched", async () => {
    const pr = await openPull(h, {
      head: sha(0x1321),
      repo: "mq-skip",
      config: demoConfig("mergeQueue: skip"),
      send: false,
    });
    const launchesBefore = h.sandbox.state.scans.size;
    const group = await enqueue(pr, sha(0x1322), sha(0x1320));
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 10_000);
    expect(run.conclusion).toBe("neutral");
    expect(run.output.title).toBe("Merge-queue checks are off");
    expect(h.sandbox.state.scans.size).toBe(launchesBefore);
  });

  it("a repository without .github/diffward.yml gets no check on its merge groups", async () => {
    const pr = await openPull(h, { head: sha(0x1331), repo: "mq-absent", config: null, send: false });
    const group = await enqueue(pr, sha(0x1332), sha(0x1330));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(checkRuns(h, pr.owner, pr.repo, group.headSha)).toEqual([]);
  });

  it("destroyed before checks_requested is processed: the late request creates no check run", async () => {
    const { pr, group } = queuedPull(
      h,
      {
        head: sha(0x1341),
        repo: "mq-early-destroy",
        config: demoConfig("mergeQueue: skip"),
      },
      { head: sha(0x1342), base: sha(0x1340) },
    );
    h.github.state.destroyMergeGroup(pr.owner, pr.repo, group.headSha, "dequeued");
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "destroyed"));
    await h.waitFor(
      async () =>
        (await h.booted.rt.stores.pulls.getGroup(`${pr.owner}/${pr.repo}@${group.headSha}`))?.destroyed,
      10_000,
      "destroyed state",
    );
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(checkRuns(h, pr.owner, pr.repo, group.headSha)).toEqual([]);
  });

  it("destroyed after the check completed (merged): the completed check is left as it is", async () => {
    const pr = await openPull(h, {
      head: sha(0x1351),
      repo: "mq-merged",
      config: demoConfig("mergeQueue: skip"),
      send: false,
    });
    const group = await enqueue(pr, sha(0x1352), sha(0x1350));
    await completedRun(h, pr.owner, pr.repo, group.headSha, 10_000);
    h.github.state.destroyMergeGroup(pr.owner, pr.repo, group.headSha, "merged");
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "destroyed"));
    await h.waitFor(
      async () =>
        (await h.booted.rt.stores.pulls.getGroup(`${pr.owner}/${pr.repo}@${group.headSha}`))?.destroyed,
      10_000,
      "destroyed state",
    );
    await new Promise((r) => setTimeout(r, 500));
    const runs = checkRuns(h, pr.owner, pr.repo, group.headSha);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.conclusion).toBe("neutral");
  });

  /** Launches the sandbox received for a commit. */
  const launchesOf = (commit: string) =>
    [...h.sandbox.state.scans.values()].filter((x) => x.commitHash === commit);

  it("scan: exactly one launch per group head whatever the redeliveries, with the group's base as baseCommit; reported on the group's check, no review", async () => {
    const { pr, group } = queuedPull(
      h,
      {
        head: sha(0x1361),
        repo: "mq-scan",
        config: demoConfig("mergeQueue: scan"),
      },
      { head: sha(0x1362), base: sha(0x1360) },
    );
    const payload = mergeGroupPayload(h.github.state, group, "checks_requested");
    // GitHub redelivers (same delivery id) and may send the event twice (new ids): all at once
    const acks = await Promise.all([
      h.send("merge_group", payload, "mq-scan-1"),
      h.send("merge_group", payload, "mq-scan-1"),
      h.send("merge_group", payload, "mq-scan-2"),
      h.send("merge_group", payload),
    ]);
    expect(acks.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 30_000);
    await h.send("merge_group", payload); // after completion too
    await new Promise((r) => setTimeout(r, 1_500));

    const launched = launchesOf(group.headSha);
    expect(launched).toHaveLength(1);
    expect(launched[0]!.baseCommit).toBe(group.baseSha);
    expect(checkRuns(h, pr.owner, pr.repo, group.headSha)).toHaveLength(1);
    expect(run.externalId).toBe(launched[0]!.id);
    expect(run.conclusion).toBe("failure"); // the demo scenario's confirmed critical finding
    expect(run.output.summary).toContain("Merge group");
    expect(run.output.summary).toContain(`#${pr.number}`);
    // the policy's parts name where each came from, as on a pull request's check run (mode: no file sets it)
    expect(run.output.summary).toContain("| `failOn` | `high` | repository file (.github/diffward.yml) |");
    expect(run.output.summary).toContain("| `mode` | `enforce` | default |");
    expect(run.annotations.length).toBeGreaterThan(0);
    expect(h.github.state.reviews(pr.owner, pr.repo)).toEqual([]);
    expect(h.github.state.reviewComments(pr.owner, pr.repo)).toEqual([]);
    expect(h.github.violations()).toEqual([]);
  });

  /**
   * A pull request (not sent) of a repository with `mergeQueue: scan` and `codeScanning.upload: true`, and
   * its merge group: base `sha(n)`, pull request head `sha(n + 1)`, group head `sha(n + 2)`. A public
   * repository gets its default disclosure (`summary`).
   */
  async function uploadingGroup(n: number, repo: string, isPrivate: boolean) {
    const config = demoConfig("mergeQueue: scan\ncodeScanning:\n  upload: true");
    const { pr, group } = queuedPull(
      h,
      {
        head: sha(n + 1),
        repo,
        private: isPrivate,
        config: isPrivate ? config : config.replace("disclosure: full\n", ""),
      },
      { head: sha(n + 2), base: sha(n) },
    );
    return { pr, group };
  }

  it("scan with codeScanning.upload on a private repository: ONE upload on the group's head_ref and head, and the check links to it", async () => {
    const { pr, group } = await uploadingGroup(0x13c0, "mq-sarif", true);
    const payload = mergeGroupPayload(h.github.state, group, "checks_requested");
    const mg = payload.merge_group as { head_ref: string; head_sha: string };
    const repoUrl = (payload.repository as { html_url: string }).html_url;
    expect(mg.head_ref).toBe(group.headRef);
    await h.send("merge_group", payload, "mq-sarif-1");
    await h.send("merge_group", payload, "mq-sarif-1"); // a redelivery
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 30_000);
    await new Promise((r) => setTimeout(r, 1_000));

    const uploads = h.github.state.sarifUploads(pr.owner, pr.repo);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatchObject({
      ref: mg.head_ref,
      commitSha: mg.head_sha,
      toolName: "diffward",
    });
    expect(sarifSchemaErrors(uploads[0]!.log)).toEqual([]);
    // one result per open finding of the group's scan that names a file (as the service holds them now)
    const open = [...h.sandbox.state.findings.values()].filter(
      (f) => f.commitHash === group.headSha && !isRuledOut(f) && parseLocation(f.location) !== undefined,
    );
    expect(open.length).toBeGreaterThan(0);
    const results = (uploads[0]!.log as { runs: Array<{ results: Array<{ message: { text: string } }> }> })
      .runs[0]!.results;
    expect(results).toHaveLength(open.length);
    for (const f of open) expect(results.some((r) => r.message.text.includes(f.title))).toBe(true);
    expect(run.output.summary).toContain("### Code scanning");
    const branch = mg.head_ref.replace(/^refs\/heads\//, "");
    expect(run.output.summary).toContain(
      `[this merge group's code scanning results](${repoUrl}/security/code-scanning?query=${encodeURIComponent(`branch:${branch} tool:diffward is:open`)})`,
    );
    expect(h.github.state.reviews(pr.owner, pr.repo)).toEqual([]);
    expect(h.github.violations()).toEqual([]);
  });

  it("scan on a public repository (summary disclosure) uploads nothing, and the group's check says why", async () => {
    const { pr, group } = await uploadingGroup(0x13d0, "mq-sarif-public", false);
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 30_000);
    expect(h.github.state.sarifUploads(pr.owner, pr.repo)).toHaveLength(0);
    expect(run.output.summary).toContain("`disclosure` is `summary`");
    expect(run.annotations).toEqual([]);
  });

  it("reuse falls back to scan when the pull request's head moved since its report (head read from GitHub, not from diffward's state)", async () => {
    const pr = await openPull(h, { head: sha(0x1371), repo: "mq-moved" });
    await completedRun(h, pr.owner, pr.repo, sha(0x1371));
    // a push diffward has not heard of yet: only GitHub knows the new head
    h.github.state.updatePullRequestHead({
      owner: pr.owner,
      repo: pr.repo,
      number: pr.number,
      sha: sha(0x1373),
    });
    const group = await enqueue(pr, sha(0x1372), sha(0x1370));
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 30_000);
    const launched = launchesOf(group.headSha);
    expect(launched).toHaveLength(1);
    expect(launched[0]!.baseCommit).toBe(group.baseSha);
    expect(run.output.title).not.toMatch(/Reused/);
    expect(run.externalId).toBe(launched[0]!.id);
  });

  it("reuse without any report (the pull request was never scanned) scans the group", async () => {
    const pr = await openPull(h, { head: sha(0x1381), repo: "mq-noreport", send: false });
    const group = await enqueue(pr, sha(0x1382), sha(0x1380));
    await completedRun(h, pr.owner, pr.repo, group.headSha, 30_000);
    expect(launchesOf(sha(0x1381))).toHaveLength(0);
    expect(launchesOf(group.headSha)).toHaveLength(1);
  });

  it("reuse without any report: authors.skip applies to the pull request read once for reuse and the gates", async () => {
    const config = demoConfig("authors:\n  skip: [Codertocat]");
    const pr = await openPull(h, { head: sha(0x13e1), repo: "mq-noreport-author", config, send: false });
    const from = h.github.requests.length;
    const group = await enqueue(pr, sha(0x13e2), sha(0x13e0));
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 30_000);
    expect(run.conclusion).toBe("skipped");
    expect(launchesOf(group.headSha)).toHaveLength(0);
    const pullPath = `/repos/${pr.owner}/${pr.repo}/pulls/${pr.number}`;
    const pullReads = h.github.requests.slice(from).filter((r) => r.path === pullPath);
    expect(pullReads.map((r) => r.operationId)).toEqual(["pulls/get"]);
  });

  it("spend: a group scan counts in the repository's month spend, and creditCap.monthly refuses the next group before any credit is reserved", async () => {
    h.sandbox.state.addRepository({ id: "repo_mq_cap", readiness: "ready" });
    const config = demoConfig("mergeQueue: scan\ncreditCap:\n  monthly: 10").replace(
      "repo_demo",
      "repo_mq_cap",
    );
    const pr = await openPull(h, { head: sha(0x1391), repo: "mq-cap", config, send: false });
    const first = await enqueue(pr, sha(0x1392), sha(0x1390));
    const run = await completedRun(h, pr.owner, pr.repo, first.headSha, 30_000);
    expect(run.output.summary).toMatch(/credit/i);
    const scan = launchesOf(first.headSha)[0]!;
    const tenant = (await h.booted.rt.scanner.forAccount(pr.owner))!;
    const spent = await h.waitFor(
      async () => {
        const n = await repositoryMonthSpend(tenant, "repo_mq_cap");
        return n > 0 ? n : undefined;
      },
      15_000,
      "the group scan's settlement in the ledger",
    );
    expect(spent).toBe(scan.spentCredits);
    // the cap ledger counts the group scan's settled spend, no longer its budget
    const ledger = h.booted.rt.stores.capLedger;
    const capKey = ledger.keyOf({ projectId: tenant.projectId, repositoryId: "repo_mq_cap" }, Date.now());
    await h.waitFor(
      async () => (await ledger.snapshot(capKey)).settled === spent || undefined,
      10_000,
      "cap settled",
    );
    expect(await ledger.snapshot(capKey)).toMatchObject({ settled: spent, inFlight: 0, reserved: 0 });

    const second = await enqueue(pr, sha(0x1394), sha(0x1393));
    const refused = await completedRun(h, pr.owner, pr.repo, second.headSha, 15_000);
    expect(refused.conclusion).toBe("action_required");
    expect(refused.output.summary).toContain("creditCap.monthly");
    expect(launchesOf(second.headSha)).toHaveLength(0);
  });
});

describe("merge queue: destroyed groups leave no running scan and no unfinished check", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 60_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("destroyed while its scan runs: the scan is cancelled and the check concluded cancelled", async () => {
    const { pr, group } = queuedPull(
      h,
      {
        head: sha(0x13a1),
        repo: "mq-destroy",
        config: demoConfig("mergeQueue: scan"),
      },
      { head: sha(0x13a2), base: sha(0x13a0) },
    );
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
    const key = `${pr.owner}/${pr.repo}@${group.headSha}`;
    const scanId = await h.waitFor(
      async () => (await h.booted.rt.stores.pulls.getGroup(key))?.scanId,
      15_000,
      "the group's scan",
    );

    h.github.state.destroyMergeGroup(pr.owner, pr.repo, group.headSha, "dequeued");
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "destroyed"));
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 15_000);
    expect(run.conclusion).toBe("cancelled");
    expect(run.output.summary).toContain("removed from the merge queue");
    expect(run.output.summary).toContain(scanId);
    expect(h.sandbox.state.scans.get(scanId)!.final?.status).toBe("CANCELLED");
    const installationId = (await h.booted.rt.stores.pulls.getGroup(key))!.installationId;
    expect(await h.booted.rt.stores.scans.inflightScans(installationId)).not.toContain(scanId);
    // nothing restarts it: a late redelivery of checks_requested does nothing
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(checkRuns(h, pr.owner, pr.repo, group.headSha)).toHaveLength(1);
    expect([...h.sandbox.state.scans.values()].filter((x) => x.commitHash === group.headSha)).toHaveLength(1);
  });
});

describe("merge queue: a group dequeued after its scan completed", () => {
  let h: Harness;
  beforeAll(async () => {
    // Retry-After 4 s: the group is destroyed between the scan's completion and the poll's next read
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 60_000, retryAfterSeconds: 4 } });
  });
  afterAll(async () => h?.close());

  it("the completed scan is not cancelled, the check is concluded, and the scan leaves the in-flight set", async () => {
    const { pr, group } = queuedPull(
      h,
      {
        head: sha(0x7a1),
        repo: "mq-dequeued-done",
        config: demoConfig("mergeQueue: scan"),
      },
      { head: sha(0x7a2), base: sha(0x7a0) },
    );
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
    const key = `${pr.owner}/${pr.repo}@${group.headSha}`;
    const scanId = await h.waitFor(
      async () => (await h.booted.rt.stores.pulls.getGroup(key))?.scanId,
      15_000,
      "scan",
    );
    const installationId = pr.payload.installation.id as number;
    expect(await h.booted.rt.stores.scans.inflightScans(installationId)).toContain(scanId);

    h.sandbox.state.completeNow(scanId);
    h.github.state.destroyMergeGroup(pr.owner, pr.repo, group.headSha, "dequeued");
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "destroyed"));
    const run = await completedRun(h, pr.owner, pr.repo, group.headSha, 15_000);
    expect(run.conclusion).toBe("cancelled");
    expect(h.sandbox.state.scans.get(scanId)!.final?.status).toBe("COMPLETED"); // never cancelled
    // the destroyed job removes the poll job while it waits; one that was running ends on its own
    await h.waitFor(
      async () => {
        const poll = await h.booted.rt.queues.scans.getJob(jobId("poll", scanId));
        return !poll || Boolean(poll.finishedOn);
      },
      15_000,
      "the poll job's end",
    );
    await reportEnded(h, scanId);
    expect(await h.booted.rt.stores.scans.inflightScans(installationId)).not.toContain(scanId);
  });
});
