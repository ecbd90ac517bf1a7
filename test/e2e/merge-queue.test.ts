import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { mergeGroupPayload } from "../../dev/github-standin/index.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { checkRuns, completedRun, openPull, sha } from "../support/pr.js";

/**
 * Merge queues end to end (issue 13): real `merge_group` payloads (`@octokit/webhooks-examples`, filled from
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
    const group = h.github.state.addMergeGroup({
      owner: pr.owner,
      repo: pr.repo,
      pullNumber: pr.number,
      headSha: groupHead,
      baseSha: groupBase,
    });
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
    const pr = await openPull(h, {
      head: sha(0x1341),
      repo: "mq-early-destroy",
      config: demoConfig("mergeQueue: skip"),
      send: false,
    });
    const group = h.github.state.addMergeGroup({
      owner: pr.owner,
      repo: pr.repo,
      pullNumber: pr.number,
      headSha: sha(0x1342),
      baseSha: sha(0x1340),
    });
    h.github.state.destroyMergeGroup(pr.owner, pr.repo, group.headSha, "dequeued");
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "destroyed"));
    await h.waitFor(
      async () => (await h.booted.rt.state.getGroup(`${pr.owner}/${pr.repo}@${group.headSha}`))?.destroyed,
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
      async () => (await h.booted.rt.state.getGroup(`${pr.owner}/${pr.repo}@${group.headSha}`))?.destroyed,
      10_000,
      "destroyed state",
    );
    await new Promise((r) => setTimeout(r, 500));
    const runs = checkRuns(h, pr.owner, pr.repo, group.headSha);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.conclusion).toBe("neutral");
  });
});
