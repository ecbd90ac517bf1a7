import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { writeConversationComment } from "../../dev/harness/triage.js";
import { jobId, pullKey } from "../../src/runtime/names.js";
import { LockBusyError } from "../../src/stores/pull-state.js";
import { type Payload, MERGE_BASE, checkRuns, completedRun, openPull, pushPull, sha } from "../support/pr.js";
import { addJob, type PullClosedJobData } from "../../src/job-catalogue/index.js";
import { repoConfig } from "../support/jobs.js";

/**
 * Regression tests of "every check run ends, every credit is meant":
 * real event sequences (webhooks from `@octokit/webhooks-examples`, signed) against the GitHub stand-in, the
 * sandbox over HTTP and a real Redis.
 */
const RESCANNED = sha(1081);
let rescannedOnce = false;

describe("pull-request lifecycle under real event sequences", () => {
  let h: Harness;
  let n = 0;
  const repo = () => `lifecycle-${++n}`;
  const launchedFor = (head: string) =>
    [...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head);

  function pullEvent(pr: Awaited<ReturnType<typeof openPull>>, action: "closed" | "reopened", head: string) {
    const p: Payload = webhookExample("pull_request", action);
    p.repository = pr.payload.repository;
    p.installation = pr.payload.installation;
    p.number = pr.number;
    p.pull_request = { ...pr.payload.pull_request, state: action === "closed" ? "closed" : "open" };
    p.pull_request.head = { ...pr.payload.pull_request.head, sha: head };
    p.pull_request.updated_at = new Date(Date.now() + 2_000).toISOString();
    return p;
  }

  beforeAll(async () => {
    h = await startHarness({
      sandbox: {
        scenario: "demo",
        // the rescan case's first scan runs long, so it is still running when the rescan replaces it
        scanDurationMs: (scan) => {
          if (scan.commitHash !== RESCANNED || rescannedOnce) return 1_500;
          rescannedOnce = true;
          return 60_000;
        },
        retryAfterSeconds: 1,
        seed: 77,
      },
    });
  });
  afterAll(async () => h?.close());

  it("close then reopen with no new commit reports the head's scan again in a new check run, launching nothing", async () => {
    const head = sha(1001);
    const pr = await openPull(h, { head, repo: repo() });
    const first = await completedRun(h, pr.owner, pr.repo, head);
    const comments = h.github.state.reviewComments(pr.owner, pr.repo, pr.number).length;
    expect(comments).toBeGreaterThan(0);
    await h.send("pull_request", pullEvent(pr, "closed", head));
    await h.waitFor(
      async () => (await h.booted.rt.stores.pulls.getPull(pullKey(pr.owner, pr.repo, pr.number)))?.closed,
      10_000,
      "closed state",
    );
    h.github.state.updatePullRequestHead({
      owner: pr.owner,
      repo: pr.repo,
      number: pr.number,
      sha: head,
      mergeBaseSha: MERGE_BASE,
    });
    await h.send("pull_request", pullEvent(pr, "reopened", head));
    const second = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id !== first.id && c.status === "completed"),
      25_000,
      "the reopened head's check run completed",
    );
    expect(second.conclusion).toBe("failure"); // the demo scenario's confirmed critical finding
    expect(second.externalId).toBe(first.externalId);
    // the findings already have their review comments: the second report posts none again
    expect(h.github.state.reviewComments(pr.owner, pr.repo, pr.number)).toHaveLength(comments);
    expect(checkRuns(h, pr.owner, pr.repo, head).every((c) => c.status === "completed")).toBe(true);
    expect(launchedFor(head)).toHaveLength(1);
  });

  it("a force-push A → B → A completes the check run of A's return with A's scan, launching A once", async () => {
    const a = sha(1011);
    const b = sha(1012);
    const pr = await openPull(h, { head: a, repo: repo() });
    await completedRun(h, pr.owner, pr.repo, a);
    await pushPull(h, pr, b);
    await completedRun(h, pr.owner, pr.repo, b);
    const before = checkRuns(h, pr.owner, pr.repo, a).length;
    await pushPull(h, pr, a);
    await h.waitFor(
      () =>
        checkRuns(h, pr.owner, pr.repo, a).length === before + 1 &&
        checkRuns(h, pr.owner, pr.repo).every((c) => c.status === "completed"),
      25_000,
      "every check run completed after the force-push back",
    );
    const runs = checkRuns(h, pr.owner, pr.repo, a);
    expect(runs.at(-1)!.conclusion).toBe("failure");
    expect(runs.at(-1)!.externalId).toBe(runs[0]!.externalId);
    expect(launchedFor(a)).toHaveLength(1);
  });

  it("closing a pull request whose report is complete leaves the report as it is", async () => {
    const head = sha(1021);
    const pr = await openPull(h, { head, repo: repo() });
    const run = await completedRun(h, pr.owner, pr.repo, head);
    const done = { id: run.id, conclusion: run.conclusion, title: run.output.title }; // the stand-in's object changes in place
    expect(done.conclusion).toBe("failure");
    const delivery = randomUUID();
    await h.send("pull_request", pullEvent(pr, "closed", head), delivery);
    await h.waitFor(
      async () => (await h.booted.rt.queues.events.getJob(jobId("closed", delivery)))?.finishedOn,
      10_000,
      "close job finished",
    );
    const after = checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id === done.id)!;
    expect(after.conclusion).toBe(done.conclusion);
    expect(after.output.title).toBe(done.title);
  });

  it("an explicit launch whose head is no longer the pull request's head spends nothing", async () => {
    const head = sha(1041);
    const pr = await openPull(h, { head, repo: repo() });
    await completedRun(h, pr.owner, pr.repo, head);
    await pushPull(h, pr, sha(1042));
    await completedRun(h, pr.owner, pr.repo, sha(1042));
    const state = (await h.booted.rt.stores.pulls.getPull(pullKey(pr.owner, pr.repo, pr.number)))!;
    // A Re-run of the old head that waited in a backlog while the push landed.
    const job = await addJob(h.booted.rt, "launch", {
      installationId: state.installationId,
      accountLogin: pr.owner,
      owner: pr.owner,
      repo: pr.repo,
      repoPrivate: true,
      defaultBranch: "master",
      pullNumber: pr.number,
      headSha: head,
      headRef: "changes",
      mergeBase: MERGE_BASE,
      commitMessage: "old head",
      repositoryId: "repo_demo",
      presetRef: "diff-standard",
      launchKey: "stale-rerun",
      explicit: true,
      checkRunId: state.checkRunId!,
      config: repoConfig({ repositoryId: "repo_demo" }),
    });
    const result = await h.waitFor(
      async () => (await h.booted.rt.queues.launch.getJob(job.id!))?.returnvalue,
      10_000,
      "stale launch result",
    );
    expect(result).toBe("superseded");
    expect(launchedFor(head)).toHaveLength(1); // only the first, automatic scan
  });

  it("Scan anyway on a fork's pull request (check_run.pull_requests empty) launches once and drops its button", async () => {
    const head = sha(1051);
    const pr = await openPull(h, {
      head,
      repo: repo(),
      send: false,
      permissions: { outsider: "read", maintainer: "maintain" },
    });
    pr.payload.pull_request.user = { ...pr.payload.pull_request.user, login: "outsider" };
    pr.payload.pull_request.head.repo = {
      ...pr.payload.pull_request.head.repo,
      id: 987_654,
      full_name: "outsider/fork",
      fork: true,
    };
    await h.send("pull_request", pr.payload);
    const waiting = await completedRun(h, pr.owner, pr.repo, head);
    expect(waiting.conclusion).toBe("action_required");

    const click = () => {
      const p: Payload = webhookExample("check_run", "requested_action");
      p.repository = pr.payload.repository;
      p.installation = pr.payload.installation;
      p.check_run.id = waiting.id;
      p.check_run.head_sha = head;
      p.check_run.pull_requests = []; // as GitHub sends it when the head is in a fork
      p.requested_action = { identifier: "scan-anyway" };
      p.sender = { ...p.sender, login: "maintainer", type: "User" };
      return h.send("check_run", p);
    };
    await click();
    await click(); // a second click, another delivery
    await h.waitFor(() => launchedFor(head).length === 1, 15_000, "approved launch");
    await h.waitFor(
      () =>
        checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id !== waiting.id && c.status === "completed"),
      25_000,
      "the approved scan's report",
    );
    expect(launchedFor(head)).toHaveLength(1);
    const approved = checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id === waiting.id)!;
    expect(approved.output.title).toBe("Approved by maintainer: scanning in a new check run");
    expect(approved.actions ?? []).toEqual([]);
  });

  it("an event job that finds the pull request's lock busy waits without spending its attempts", async () => {
    const head = sha(1061);
    const pr = await openPull(h, { head, repo: repo() });
    await h.waitFor(() => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.externalId), 15_000, "launch");
    const key = pullKey(pr.owner, pr.repo, pr.number);
    const delivery = randomUUID();
    // Another holder keeps the lock for 4 s (longer than the old 10 attempts' backoff would have waited first).
    const hold = async (): Promise<void> => {
      for (;;) {
        try {
          return await h.booted.rt.stores.pulls.withPullLock(key, async () => {
            await h.send("pull_request", pullEvent(pr, "closed", head), delivery);
            await new Promise((r) => setTimeout(r, 4_000));
          });
        } catch (error) {
          if (!(error instanceof LockBusyError)) throw error;
          await new Promise((r) => setTimeout(r, 50)); // a diffward job holds it right now
        }
      }
    };
    await hold();
    const job = await h.waitFor(
      async () => {
        const j = await h.booted.rt.queues.events.getJob(jobId("closed", delivery));
        return j?.finishedOn ? j : undefined;
      },
      15_000,
      "close job finished",
    );
    expect(job.returnvalue).toBe("cancelled");
    expect(job.attemptsMade).toBeLessThanOrEqual(1); // the old retry-on-busy spent 3 or more in 4 s
    expect((await h.booted.rt.stores.pulls.getPull(key))?.closed).toBe(true);
  });

  it("a rescan while the scan runs concludes the replaced check run (it never stays in progress)", async () => {
    const head = RESCANNED;
    const pr = await openPull(h, { head, repo: repo(), permissions: { maintainer: "maintain" } });
    const first = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.externalId && c.status === "in_progress"),
      15_000,
      "the first scan running",
    );
    const say = writeConversationComment(h, {
      owner: pr.owner,
      repo: pr.repo,
      pullNumber: pr.number,
      login: "maintainer",
      body: "/diffward rescan",
    });
    await h.send("issue_comment", say);
    await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id !== first.id && c.status === "completed"),
      25_000,
      "the rescan's report",
    );
    const replaced = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id === first.id && c.status === "completed"),
      5_000,
      "the replaced check run completed",
    );
    expect(replaced.conclusion).toBe("cancelled");
    expect(replaced.output.title).toBe("Replaced by a new scan of this commit");
    expect(h.sandbox.state.statusOf(launchedFor(head)[0]!)).toBe("CANCELLED"); // the first, long scan
    expect(launchedFor(head)).toHaveLength(2);
  });

  it("a push event processed after a rescan that already scans its head launches nothing more", async () => {
    const first = sha(1091);
    const pushed = sha(1092);
    const pr = await openPull(h, { head: first, repo: repo(), permissions: { maintainer: "maintain" } });
    await completedRun(h, pr.owner, pr.repo, first);
    // The push lands on GitHub; a /rescan written meanwhile is processed before the push's event.
    h.github.state.updatePullRequestHead({
      owner: pr.owner,
      repo: pr.repo,
      number: pr.number,
      sha: pushed,
      mergeBaseSha: MERGE_BASE,
    });
    await h.send(
      "issue_comment",
      writeConversationComment(h, {
        owner: pr.owner,
        repo: pr.repo,
        pullNumber: pr.number,
        login: "maintainer",
        body: "/diffward rescan",
      }),
    );
    await h.waitFor(() => launchedFor(pushed).length === 1, 15_000, "the rescan of the pushed head");
    await pushPull(h, pr, pushed);
    await h.waitFor(
      async () => {
        const counts = await h.booted.rt.queues.events.getJobCounts(
          "waiting",
          "active",
          "delayed",
          "prioritized",
        );
        return (
          Object.values(counts).every((c) => c === 0) &&
          checkRuns(h, pr.owner, pr.repo, pushed).every((c) => c.status === "completed")
        );
      },
      25_000,
      "every check run of the pushed head completed",
    );
    expect(launchedFor(pushed)).toHaveLength(1);
    expect(checkRuns(h, pr.owner, pr.repo, pushed)).toHaveLength(1);
  });

  it("a launch already under way when the uninstall is processed cancels its scan at once", async () => {
    const head = sha(1071);
    const installationId = 71_071;
    // The launch's POST is held 6 s in the service once it arrives: the launch has passed its look at the
    // installation (and found it installed) when the uninstall job runs and finds nothing in flight.
    h.sandbox.state.faults.delays = { remaining: 1, ms: 6_000, route: /^POST \/projects\/[^/]+\/scans$/ };
    try {
      const pr = await openPull(h, { head, repo: repo(), installationId });
      await h.waitFor(
        () => h.sandbox.state.faults.delays?.remaining === 0 || undefined,
        15_000,
        "the launch's POST held in the service",
      );
      const deleted: Payload = webhookExample("installation", "deleted");
      deleted.installation.id = installationId;
      deleted.installation.account.login = pr.owner;
      const delivery = randomUUID();
      await h.send("installation", deleted, delivery);
      const uninstall = await h.waitFor(
        async () => {
          const j = await h.booted.rt.queues.events.getJob(jobId("uninstall", delivery));
          return j?.finishedOn ? j : undefined;
        },
        15_000,
        "uninstall processed",
      );
      const scan = await h.waitFor(() => launchedFor(head)[0], 15_000, "the launch reached the service");
      expect(scan.createdAtMs).toBeGreaterThan(uninstall.finishedOn!);
      await h.waitFor(
        () => ["COMPLETED", "FAILED", "CANCELLED"].includes(h.sandbox.state.statusOf(scan)),
        15_000,
        "scan ended",
      );
      expect(h.sandbox.state.statusOf(scan)).toBe("CANCELLED");
      expect(launchedFor(head)).toHaveLength(1);
    } finally {
      h.sandbox.state.faults.delays = null;
    }
  });

  it("a close whose job runs after a later reopen and push leaves the newest head's scan and report alone", async () => {
    const a = sha(1111);
    const b = sha(1112);
    const pr = await openPull(h, { head: a, repo: repo() });
    const key = pullKey(pr.owner, pr.repo, pr.number);
    await completedRun(h, pr.owner, pr.repo, a);
    // The close's job is taken out while the queue is paused and added back after the reopen and the push
    // were handled: a job whose worker was killed runs again only after the stall check finds it.
    const events = h.booted.rt.queues.events;
    await events.pause();
    let closeData: Payload = {};
    try {
      const close = pullEvent(pr, "closed", a);
      close.pull_request.updated_at = new Date().toISOString();
      await h.send("pull_request", close);
      const job = await h.waitFor(
        async () => (await events.getJobs(["waiting", "prioritized"])).find((j) => j.name === "pull-closed"),
        10_000,
        "the close's job waiting",
      );
      closeData = job.data as Payload;
      await job.remove();
    } finally {
      await events.resume();
    }
    const reopen = pullEvent(pr, "reopened", a);
    reopen.pull_request.updated_at = new Date(Date.parse(closeData.updatedAt as string) + 500).toISOString();
    await h.send("pull_request", reopen);
    await pushPull(h, pr, b);
    await h.waitFor(
      async () => {
        const state = await h.booted.rt.stores.pulls.getPull(key);
        return state?.headSha === b && state.scanId;
      },
      15_000,
      "b's scan",
    );
    const stale = await addJob(h.booted.rt, "pullClosed", closeData as PullClosedJobData);
    const ran = await h.waitFor(
      async () => {
        const job = await events.getJob(stale.id!);
        return job?.finishedOn ? job : undefined;
      },
      15_000,
      "the close's job ran",
    );
    expect(ran.returnvalue).toBe("idle");
    const run = await completedRun(h, pr.owner, pr.repo, b);
    expect(run.conclusion).toBe("failure"); // reported, not cancelled as closed
    const scans = launchedFor(b);
    expect(scans).toHaveLength(1);
    expect(h.sandbox.state.statusOf(scans[0]!)).toBe("COMPLETED");
    expect(scans[0]!.cancelRequests).toBe(0);
    expect((await h.booted.rt.stores.pulls.getPull(key))?.closed).toBeUndefined();
  });

  it("a close received while its job waits stops the launch not sent yet, which ends the check run as closed", async () => {
    const head = sha(1101);
    const config = demoConfig().replace("debounceSeconds: 0", "debounceSeconds: 2");
    const pr = await openPull(h, { head, repo: repo(), config });
    const key = pullKey(pr.owner, pr.repo, pr.number);
    await h.waitFor(() => checkRuns(h, pr.owner, pr.repo, head).length === 1, 10_000, "queued check run");
    const launchJobId = await h.waitFor(
      async () => (await h.booted.rt.stores.pulls.getPull(key))?.launchJobId,
      10_000,
      "the launch waiting in its debounce window",
    );
    // the close's job waits (behind the lock an earlier event's job holds, or a backlog): the events queue is
    // paused, the launch queue is not
    const events = h.booted.rt.queues.events;
    await events.pause();
    try {
      await h.send("pull_request", pullEvent(pr, "closed", head));
      const launch = await h.waitFor(
        async () => {
          const job = await h.booted.rt.queues.launch.getJob(launchJobId);
          return job?.finishedOn ? job : undefined;
        },
        15_000,
        "the delayed launch ran",
      );
      expect(launch.returnvalue).toBe("superseded");
      expect(launchedFor(head)).toHaveLength(0);
      // the launch ended the check run as the close's job would have
      const run = checkRuns(h, pr.owner, pr.repo, head)[0]!;
      expect(run.status).toBe("completed");
      expect(run.conclusion).toBe("cancelled");
      expect((await h.booted.rt.stores.pulls.getPull(key))?.closed).toBe(true);
    } finally {
      await events.resume();
    }
    // the close's job, when it runs, finds nothing left to do
    await h.waitFor(
      async () => (await events.getJobCounts("waiting", "active", "delayed")).waiting === 0 || undefined,
      10_000,
      "the close's job taken",
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(checkRuns(h, pr.owner, pr.repo, head)).toHaveLength(1);
    expect(launchedFor(head)).toHaveLength(0);
  });

  // Last: every pull request of this file shares the webhook example's installation id.
  it("uninstalling during the debounce window launches nothing", async () => {
    const head = sha(1031);
    const config = demoConfig().replace("debounceSeconds: 0", "debounceSeconds: 2");
    const pr = await openPull(h, { head, repo: repo(), config });
    await h.waitFor(() => checkRuns(h, pr.owner, pr.repo, head).length === 1, 10_000, "queued check run");
    const deleted: Payload = webhookExample("installation", "deleted");
    deleted.installation.id = pr.payload.installation.id;
    deleted.installation.account.login = pr.owner;
    await h.send("installation", deleted);
    const launch = await h.waitFor(
      async () => {
        const pull = await h.booted.rt.stores.pulls.getPull(pullKey(pr.owner, pr.repo, pr.number));
        const job = pull?.launchJobId ? await h.booted.rt.queues.launch.getJob(pull.launchJobId) : undefined;
        return job?.finishedOn ? job : undefined;
      },
      15_000,
      "the delayed launch ran",
    );
    expect(launch.returnvalue).toBe("superseded");
    expect(launchedFor(head)).toHaveLength(0);
    // a later installation has a new id (GitHub issues a new installation id on reinstall): unaffected
    expect(await h.booted.rt.stores.pulls.isInstallationRemoved(pr.payload.installation.id + 1)).toBe(false);
  });
});
