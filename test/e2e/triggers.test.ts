import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { demoConfig, demoPullFiles } from "../../dev/harness/demo-repo.js";
import { jobId } from "../../src/runtime/names.js";
import {
  type Payload,
  checkRuns,
  completedRun,
  launchedScan,
  openPull,
  reportEnded,
  type SeededPull,
  pushPull,
  sha,
} from "../support/pr.js";

describe("pull request triggers", () => {
  let h: Harness;
  let n = 0;
  const repo = () => `triggers-${++n}`;
  const jobResult = (delivery: string) =>
    h.waitFor(
      async () => (await h.booted.rt.queues.events.getJob(jobId("pr", delivery)))?.returnvalue,
      10_000,
      "job result",
    );

  /** Commits whose scans, from now on, stay queued long enough to be looked at (ended with `completeNow`). */
  const slowHeads = new Set<string>();

  beforeAll(async () => {
    h = await startHarness({
      sandbox: {
        scenario: "demo",
        scanDurationMs: (scan) => (slowHeads.has(scan.commitHash) ? 120_000 : 3_000),
        retryAfterSeconds: 1,
        seed: 21,
      },
    });
  });
  afterAll(async () => h?.close());

  it("a repository without .github/diffward.yml is not onboarded: no check run", async () => {
    const delivery = randomUUID();
    const pr = await openPull(h, { head: sha(101), repo: repo(), config: null, deliveryId: delivery });
    expect(await jobResult(delivery)).toBe("not-onboarded");
    expect(checkRuns(h, pr.owner, pr.repo)).toHaveLength(0);
  });

  it("an invalid config gives a failed check run quoting the exact problem", async () => {
    const pr = await openPull(h, {
      head: sha(102),
      repo: repo(),
      config: "repositoryId: repo_demo\nfailOn: hgih\n",
    });
    const run = await completedRun(h, pr.owner, pr.repo, sha(102));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("failOn");
    expect(run.output.summary).toContain("hgih");
    expect(h.sandbox.state.scans.size).toBe(0);
  });

  it("a draft is skipped by default (drafts: skip), spending nothing", async () => {
    const delivery = randomUUID();
    const pr = await openPull(h, { head: sha(103), repo: repo(), draft: true, deliveryId: delivery });
    expect(await jobResult(delivery)).toBe("draft-skipped");
    expect(checkRuns(h, pr.owner, pr.repo)).toHaveLength(0);
  });

  it("the same delivery twice, or the same head from two deliveries, launches one scan", async () => {
    const delivery = randomUUID();
    const before = h.sandbox.state.scans.size;
    const pr = await openPull(h, { head: sha(104), repo: repo(), deliveryId: delivery });
    await h.send("pull_request", pr.payload, delivery); // redelivery: same id
    await h.send("pull_request", pr.payload); // another delivery of the same head
    await completedRun(h, pr.owner, pr.repo, sha(104));
    expect(checkRuns(h, pr.owner, pr.repo, sha(104))).toHaveLength(1);
    expect(h.sandbox.state.scans.size - before).toBe(1);
  });

  it("a push inside the debounce window replaces the waiting launch: nothing spent on the old head", async () => {
    const before = h.sandbox.state.scans.size;
    const config = demoConfig().replace("debounceSeconds: 0", "debounceSeconds: 2");
    const pr = await openPull(h, { head: sha(105), repo: repo(), config });
    await h.waitFor(() => checkRuns(h, pr.owner, pr.repo, sha(105)).length === 1, 10_000, "first check run");
    await pushPull(h, pr, sha(106));
    const old = await completedRun(h, pr.owner, pr.repo, sha(105));
    expect(old.conclusion).toBe("cancelled");
    expect(old.output.title).toBe(`Superseded by ${sha(106).slice(0, 7)}`);
    await completedRun(h, pr.owner, pr.repo, sha(106));
    const launched = [...h.sandbox.state.scans.values()].slice(before);
    expect(launched.map((s) => s.commitHash)).toEqual([sha(106)]);
  });

  it("a newer head cancels the running scan and concludes its check run cancelled", async () => {
    const pr = await openPull(h, { head: sha(107), repo: repo() });
    const first = { externalId: await launchedScan(h, sha(107)) };
    await pushPull(h, pr, sha(108));
    const old = await completedRun(h, pr.owner, pr.repo, sha(107));
    expect(old.conclusion).toBe("cancelled");
    expect(h.sandbox.state.statusOf(h.sandbox.state.scans.get(first.externalId!)!)).toBe("CANCELLED");
    expect((await completedRun(h, pr.owner, pr.repo, sha(108))).conclusion).toBe("failure");
  });

  it("a closed pull request cancels its scan", async () => {
    const pr = await openPull(h, { head: sha(109), repo: repo() });
    const run = { externalId: await launchedScan(h, sha(109)) };
    const closed: Payload = webhookExample("pull_request", "closed");
    closed.repository = pr.payload.repository;
    closed.number = pr.number;
    closed.pull_request.number = pr.number;
    // GitHub sets `updated_at` to the close's time, after the opening's (the example's is from 2019)
    closed.pull_request.updated_at = new Date(Date.now() + 1_000).toISOString();
    await h.send("pull_request", closed);
    const done = await completedRun(h, pr.owner, pr.repo, sha(109));
    expect(done.conclusion).toBe("cancelled");
    expect(h.sandbox.state.statusOf(h.sandbox.state.scans.get(run.externalId)!)).toBe("CANCELLED");
  });

  /** The real `check_run.rerequested` example, as GitHub sends it for the pull request's check run on `head`. */
  function rerunPayload(pr: SeededPull, head: string, checkRunId?: number): Payload {
    const rerun: Payload = webhookExample("check_run", "rerequested");
    rerun.repository = pr.payload.repository;
    rerun.installation = pr.payload.installation;
    rerun.check_run.head_sha = head;
    if (checkRunId !== undefined) rerun.check_run.id = checkRunId;
    // as GitHub sends it for a same-repository pull request: head and base carry the repository's id
    const repoRef = {
      id: pr.payload.repository.id,
      url: pr.payload.repository.url,
      name: pr.payload.repository.name,
    };
    rerun.check_run.pull_requests = [
      {
        number: pr.number,
        head: { sha: head, ref: "changes", repo: repoRef },
        base: { ref: pr.payload.pull_request.base.ref, repo: repoRef },
      },
    ];
    return rerun;
  }

  it("the re-run button (check_run.rerequested) launches a fresh scan for that head", async () => {
    const pr = await openPull(h, { head: sha(110), repo: repo() });
    await completedRun(h, pr.owner, pr.repo, sha(110));
    const before = h.sandbox.state.scans.size;
    await h.send("check_run", rerunPayload(pr, sha(110)));
    await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, sha(110)).filter((c) => c.status === "completed").length === 2,
      20_000,
      "second run",
    );
    expect(h.sandbox.state.scans.size - before).toBe(1);
  });

  it("Re-run pressed twice 300 ms apart on a completed check run launches one scan and the re-run's check run says so; a Re-run after that scan ended launches again", async () => {
    const head = sha(113);
    const pr = await openPull(h, { head, repo: repo() });
    const done = await completedRun(h, pr.owner, pr.repo, head);
    const launches = () => [...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head);
    expect(launches()).toHaveLength(1);
    const outcome = (delivery: string) =>
      h.waitFor(
        async () =>
          (await h.booted.rt.queues.events.getJob(jobId("rerun", delivery, pr.number)))?.returnvalue,
        20_000,
        "re-run job result",
      );
    slowHeads.add(head);
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    expect((await h.send("check_run", rerunPayload(pr, head, done.id), first)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect((await h.send("check_run", rerunPayload(pr, head, done.id), second)).status).toBe(200);
    expect(await outcome(first)).toBe("launch-enqueued");
    expect(await outcome(second)).toBe("rerun-in-progress");

    const scan = await h.waitFor(() => launches()[1], 10_000, "the re-run's scan");
    const answered = await h.waitFor(
      () =>
        checkRuns(h, pr.owner, pr.repo, head).find(
          (c) => c.output.title === "Re-run already in progress" && c.externalId === scan.id,
        ),
      10_000,
      "the answer on the re-run's check run",
    );
    expect(answered.id).not.toBe(done.id);
    expect(answered.status).not.toBe("completed");
    expect(answered.output.summary).toContain("`@octocat` pressed **Re-run** for this commit again");
    expect(answered.output.summary).toContain("no second scan was launched");
    expect(answered.output.summary).toContain(`(scan \`${scan.id}\`)`);
    expect(launches()).toHaveLength(2);
    expect(h.sandbox.state.statusOf(scan)).toBe("QUEUED");

    // the re-run's scan ends and is reported: the next Re-run launches again
    slowHeads.delete(head);
    h.sandbox.state.completeNow(scan.id);
    await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id === answered.id)?.status === "completed",
      20_000,
      "the re-run's check run completed",
    );
    await reportEnded(h, scan.id, 20_000);
    expect(launches()).toHaveLength(2);
    expect((await h.send("check_run", rerunPayload(pr, head, answered.id), third)).status).toBe(200);
    expect(await outcome(third)).toBe("launch-enqueued");
    await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).filter((c) => c.status === "completed").length === 3,
      20_000,
      "the third run completed",
    );
    expect(launches()).toHaveLength(3);
    expect(h.sandbox.state.statusOf(scan)).toBe("COMPLETED");
  });

  it("a pull request that edits .github/diffward.yml gets its version validated in its check", async () => {
    const files = [
      ...demoPullFiles(),
      {
        filename: ".github/diffward.yml",
        status: "modified" as const,
        patch: "@@ -1,1 +1,2 @@\n repositoryId: repo_demo\n+failOn: sometimes",
      },
    ];
    const pr = await openPull(h, { head: sha(112), repo: repo(), files, send: false });
    h.github.state.setFile(
      pr.owner,
      pr.repo,
      sha(112),
      ".github/diffward.yml",
      "repositoryId: repo_demo\nfailOn: sometimes\n",
    );
    await h.send("pull_request", pr.payload);
    const run = await completedRun(h, pr.owner, pr.repo, sha(112));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("sometimes");
  });

  // Last: every pull request of this file shares the webhook example's installation id, and a removed
  // installation launches nothing more (GitHub gives a reinstall a new installation id).
  it("an uninstalled app cancels its installation's scans", async () => {
    const pr = await openPull(h, { head: sha(111), repo: repo() });
    const scanId = await launchedScan(h, sha(111));
    const deleted: Payload = webhookExample("installation", "deleted");
    deleted.installation.id = pr.payload.installation.id;
    deleted.installation.account.login = pr.owner;
    await h.send("installation", deleted);
    await h.waitFor(
      () => h.sandbox.state.statusOf(h.sandbox.state.scans.get(scanId)!) === "CANCELLED",
      10_000,
      "cancel",
    );
  });
});
