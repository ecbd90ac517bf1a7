import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { pushPayload } from "../../dev/github-standin/index.js";
import { baselineSchedulerId, jobId, pullKey } from "../../src/runtime/names.js";
import { mergeGroupPayload } from "../../dev/github-standin/index.js";
import { type Payload, checkRuns, completedRun, openPull, pushPull, sha } from "../support/pr.js";
import { addGroup } from "../support/merge-group.js";
import { waitEventJob } from "../support/commands.js";

/**
 * Uninstall then install again (GitHub gives a new installation id): the check runs the uninstall left
 * unfinished end, and their heads are scanned once more, once. Real sequences: signed webhook examples, the
 * GitHub stand-in, the sandbox over HTTP, a real Redis.
 */
const LONG = new Set([sha(3001), sha(3011), sha(3061), sha(3072), sha(3091)]);
/** a head whose scan runs 6 s: it finishes while diffward is uninstalled */
const FINISHES = sha(3021);
const ranLong = new Set<string>();

describe("reinstalling the app after an uninstall", () => {
  let h: Harness;
  let n = 0;
  const launchedFor = (head: string) =>
    [...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head);

  beforeAll(async () => {
    h = await startHarness({
      sandbox: {
        scenario: "demo",
        // the first scan of a long head runs long, so the uninstall finds it in flight
        scanDurationMs: (scan) => {
          const head = scan.commitHash ?? "";
          if (head === FINISHES) return 6_000;
          if (!LONG.has(head) || ranLong.has(head)) return 1_500;
          ranLong.add(head);
          return 60_000;
        },
        retryAfterSeconds: 1,
        seed: 31,
      },
    });
  });
  afterAll(async () => h?.close());

  /** Uninstalls `from` (the uninstall job processed) and installs the app again as `to`; returns the payload. */
  async function reinstall(owner: string, from: number, to: number): Promise<Payload> {
    const deleted: Payload = webhookExample("installation", "deleted");
    deleted.installation.id = from;
    deleted.installation.account.login = owner;
    const gone = randomUUID();
    await h.send("installation", deleted, gone);
    await h.waitFor(
      async () => (await h.booted.rt.queues.events.getJob(jobId("uninstall", gone)))?.finishedOn,
      15_000,
      "uninstall processed",
    );
    const account = h.github.state.installation(from)!.account;
    h.github.state.addInstallation({ id: to, account: { login: account.login, type: account.type } });
    for (const r of h.github.state.repositoriesOf(from))
      (r as { installationId: number }).installationId = to;
    h.github.state.uninstall(from);
    const created: Payload = webhookExample("installation", "created");
    created.installation.id = to;
    created.installation.app_id = h.github.state.installation(to)!.appId;
    created.installation.account.login = owner;
    created.installation.created_at = Math.floor(Date.now() / 1000);
    return created;
  }

  /**
   * Sends `created` (the reinstall), waits for `head`'s check run to complete `failure` (the demo scenario's
   * confirmed critical finding), sends it again (GitHub's redelivery of the event) and checks that the head
   * was scanned and reported once.
   */
  async function decidedOnceAfter(created: Payload, pr: { owner: string; repo: string }, head: string) {
    await h.send("installation", created, randomUUID());
    const fresh = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.status === "completed"),
      30_000,
      `the check run of ${head.slice(0, 8)} completed`,
    );
    expect(fresh.conclusion).toBe("failure");
    await h.send("installation", created, randomUUID());
    await new Promise((r) => setTimeout(r, 3_000));
    expect(launchedFor(head)).toHaveLength(1);
    expect(checkRuns(h, pr.owner, pr.repo, head)).toHaveLength(1);
  }

  it("ends the check run the uninstall left open and scans its head once more, once", async () => {
    const head = sha(3001);
    const done = sha(3002);
    const repo = `reinstall-${++n}`;
    const finished = await openPull(h, { head: done, repo, number: 2, installationId: 81_001 });
    await completedRun(h, finished.owner, finished.repo, done);
    const pr = await openPull(h, { head, repo, number: 1, installationId: 81_001 });
    const left = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.status === "in_progress" && c.externalId),
      15_000,
      "the scan in flight",
    );
    const created = await reinstall(pr.owner, 81_001, 81_002);
    expect(h.sandbox.state.statusOf(launchedFor(head)[0]!)).toBe("CANCELLED");
    await h.send("installation", created, randomUUID());
    const fresh = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id !== left.id && c.status === "completed"),
      30_000,
      "the head's new check run completed",
    );
    expect(fresh.conclusion).toBe("failure"); // the demo scenario's confirmed critical finding
    const old = checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id === left.id)!;
    expect(old.status).toBe("completed");
    expect(old.conclusion).toBe("cancelled");
    expect(old.output.title).toBe("Cancelled: diffward was uninstalled");
    expect(launchedFor(head)).toHaveLength(2);
    // the head completed before the uninstall is left as it was
    expect(launchedFor(done)).toHaveLength(1);
    expect(checkRuns(h, pr.owner, pr.repo, done)).toHaveLength(1);

    // GitHub's redelivery of the same event (a new delivery id) launches nothing more
    const again = randomUUID();
    await h.send("installation", created, again);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(launchedFor(head)).toHaveLength(2);
    expect(checkRuns(h, pr.owner, pr.repo, head)).toHaveLength(2);
  });

  it("a second worker's or a replayed reinstall job launches the head once", async () => {
    const head = sha(3011);
    const repo = `reinstall-${++n}`;
    const pr = await openPull(h, { head, repo, installationId: 82_001 });
    await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.status === "in_progress" && c.externalId),
      15_000,
      "the scan in flight",
    );
    const created = await reinstall(pr.owner, 82_001, 82_002);
    // the same walk run twice at once, as two workers taking two jobs of the event would
    const data = {
      deliveryId: randomUUID(),
      installationId: 82_002,
      appId: created.installation.app_id as number,
      accountLogin: pr.owner,
      installedAt: new Date(created.installation.created_at * 1000).toISOString(),
    };
    const { addJob } = await import("../../src/job-catalogue/index.js");
    await Promise.all([
      addJob(h.booted.rt, "reinstall", data, { jobId: jobId("replay-a", 82_002) }),
      addJob(
        h.booted.rt,
        "reinstall",
        { ...data, deliveryId: randomUUID() },
        { jobId: jobId("replay-b", 82_002) },
      ),
    ]);
    await h.waitFor(
      () =>
        checkRuns(h, pr.owner, pr.repo, head).filter((c) => c.status === "completed").length === 2 ||
        undefined,
      30_000,
      "the old check run ended and the new one completed",
    );
    await new Promise((r) => setTimeout(r, 3_000));
    expect(launchedFor(head)).toHaveLength(2);
    expect(checkRuns(h, pr.owner, pr.repo, head)).toHaveLength(2);
  });

  it("a scan that finished while uninstalled is reported from that scan, not paid for again", async () => {
    const head = FINISHES;
    const repo = `reinstall-${++n}`;
    const pr = await openPull(h, { head, repo, installationId: 83_001 });
    const left = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.status === "in_progress" && c.externalId),
      15_000,
      "the scan in flight",
    );
    // the uninstall's cancel fails (the service answers 500), so the scan runs to its end meanwhile
    h.sandbox.state.faults.errors = { remaining: 1_000, statuses: [500], route: /\/cancel$/, served: 0 };
    try {
      const created = await reinstall(pr.owner, 83_001, 83_002);
      const scan = launchedFor(head)[0]!;
      await h.waitFor(() => h.sandbox.state.statusOf(scan) === "COMPLETED" || undefined, 20_000, "scan done");
      h.sandbox.state.faults.errors = null;
      await h.send("installation", created, randomUUID());
      const ended = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id === left.id && c.status === "completed"),
        20_000,
        "the left check run ended",
      );
      // the scan's own findings: the demo scenario's confirmed critical finding
      expect(ended.conclusion).toBe("failure");
      expect(ended.output.title).not.toContain("uninstalled");
      // a redelivered installation.created reports and launches nothing more
      await h.send("installation", created, randomUUID());
      await new Promise((r) => setTimeout(r, 3_000));
      expect(launchedFor(head)).toHaveLength(1);
      expect(checkRuns(h, pr.owner, pr.repo, head)).toHaveLength(1);
      expect(checkRuns(h, pr.owner, pr.repo, head)[0]!.conclusion).toBe("failure");
    } finally {
      h.sandbox.state.faults.errors = null;
    }
  });

  it("a launch under way when the uninstall is processed: its head is scanned again after the reinstall", async () => {
    const head = sha(3031);
    const repo = `reinstall-${++n}`;
    // the launch's POST is held 6 s in the service: the launch has passed its look at the installation when
    // the uninstall runs, so its scan is cancelled by the launch itself and its check run is left unfinished
    h.sandbox.state.faults.delays = { remaining: 1, ms: 6_000, route: /^POST \/projects\/[^/]+\/scans$/ };
    try {
      const pr = await openPull(h, { head, repo, installationId: 84_001 });
      await h.waitFor(
        () => h.sandbox.state.faults.delays?.remaining === 0 || undefined,
        15_000,
        "the launch's POST held in the service",
      );
      const created = await reinstall(pr.owner, 84_001, 84_002);
      const first = await h.waitFor(() => launchedFor(head)[0], 15_000, "the launch reached the service");
      await h.waitFor(
        () => h.sandbox.state.statusOf(first) === "CANCELLED" || undefined,
        15_000,
        "the launch cancelled its own scan",
      );
      const left = checkRuns(h, pr.owner, pr.repo, head);
      expect(left).toHaveLength(1);
      expect(left[0]!.status).not.toBe("completed");
      await h.send("installation", created, randomUUID());
      const fresh = await h.waitFor(
        () =>
          checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id !== left[0]!.id && c.status === "completed"),
        30_000,
        "the head's new check run completed",
      );
      expect(fresh.conclusion).toBe("failure");
      expect(checkRuns(h, pr.owner, pr.repo, head).every((c) => c.status === "completed")).toBe(true);
      expect(launchedFor(head)).toHaveLength(2);
    } finally {
      h.sandbox.state.faults.delays = null;
    }
  });

  it("a launch still waiting in its debounce window at the uninstall: its head is scanned after the reinstall", async () => {
    const head = sha(3041);
    const repo = `reinstall-${++n}`;
    const config = demoConfig().replace("debounceSeconds: 0", "debounceSeconds: 2");
    const pr = await openPull(h, { head, repo, config, installationId: 85_001 });
    const queued = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head)[0],
      10_000,
      "queued check run",
    );
    const created = await reinstall(pr.owner, 85_001, 85_002);
    await new Promise((r) => setTimeout(r, 3_000)); // the debounce window ends: the launch is dropped
    expect(launchedFor(head)).toHaveLength(0);
    await h.send("installation", created, randomUUID());
    const fresh = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id !== queued.id && c.status === "completed"),
      30_000,
      "the head's new check run completed",
    );
    expect(fresh.conclusion).toBe("failure");
    expect(checkRuns(h, pr.owner, pr.repo, head).every((c) => c.status === "completed")).toBe(true);
    expect(launchedFor(head)).toHaveLength(1);
  });
  it("a push whose event was processed after the uninstall: its head is decided after the reinstall", async () => {
    const first = sha(3051);
    const head = sha(3052);
    const draftHead = sha(3053);
    const repo = `reinstall-${++n}`;
    const pr = await openPull(h, { head: first, repo, number: 1, installationId: 86_001 });
    await completedRun(h, pr.owner, pr.repo, first);
    // a draft skipped (`drafts: skip`, the default): followed without a check run, so decided, and left so
    const draft = await openPull(h, {
      head: draftHead,
      repo: `${repo}-drafts`,
      draft: true,
      installationId: 86_001,
    });
    await h.waitFor(
      async () =>
        (await h.booted.rt.stores.pulls.getPull(pullKey(draft.owner, draft.repo, draft.number)))?.headSha,
      10_000,
      "the draft followed",
    );
    const created = await reinstall(pr.owner, 86_001, 86_002);
    // the push's delivery came before the uninstall; its job runs after it, with the removed installation's
    // token, which GitHub refuses: the head gets no check run
    await pushPull(h, pr, head);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(checkRuns(h, pr.owner, pr.repo, head)).toHaveLength(0);
    await decidedOnceAfter(created, pr, head);
    expect(launchedFor(first)).toHaveLength(1);
    expect(checkRuns(h, pr.owner, pr.repo, first)).toHaveLength(1);
    expect(launchedFor(draftHead)).toHaveLength(0);
    expect(checkRuns(h, draft.owner, draft.repo)).toHaveLength(0);
  });
  it("a push processed after the uninstall, the older head's scan in flight at it: the older check run ends, the pushed head is decided after the reinstall", async () => {
    const first = sha(3091);
    const head = sha(3092);
    const repo = `reinstall-${++n}`;
    const pr = await openPull(h, { head: first, repo, number: 1, installationId: 89_001 });
    const left = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, first).find((c) => c.status === "in_progress" && c.externalId),
      15_000,
      "the older head's scan in flight",
    );
    const created = await reinstall(pr.owner, 89_001, 89_002);
    expect(h.sandbox.state.statusOf(launchedFor(first)[0]!)).toBe("CANCELLED");
    // the push's delivery came before the uninstall; its job runs after it: nothing read, written or launched
    const pushed = await pushPull(h, pr, head);
    expect((await waitEventJob(h, "pr", pushed.id)).value).toBe("installation-removed");
    expect(checkRuns(h, pr.owner, pr.repo, head)).toHaveLength(0);
    await decidedOnceAfter(created, pr, head);
    const old = checkRuns(h, pr.owner, pr.repo, first).find((c) => c.id === left.id)!;
    expect(old.status).toBe("completed");
    expect(old.conclusion).toBe("cancelled");
    expect(old.output.title).toBe("Cancelled: diffward was uninstalled");
    expect(old.output.summary).toContain("newest commit");
    // the older head is not scanned again
    expect(launchedFor(first)).toHaveLength(1);
    expect(checkRuns(h, pr.owner, pr.repo, first)).toHaveLength(1);
  });
  it("a pull request opened just before the uninstall, its job run after it: decided after the reinstall; one never sent is left", async () => {
    const head = sha(3101);
    const silentHead = sha(3102);
    const repo = `reinstall-${++n}`;
    const pr = await openPull(h, { head, repo, number: 1, installationId: 90_001, send: false });
    // opened in the same installation, its event never delivered: diffward never followed it
    const silent = await openPull(h, {
      head: silentHead,
      repo,
      number: 2,
      installationId: 90_001,
      send: false,
    });
    const created = await reinstall(pr.owner, 90_001, 90_002);
    // the opening's delivery came before the uninstall; its job runs after it: no state, nothing written
    const opened = await h.send("pull_request", pr.payload);
    expect((await waitEventJob(h, "pr", opened.id)).value).toBe("installation-removed");
    expect(await h.booted.rt.stores.pulls.getPull(pullKey(pr.owner, pr.repo, pr.number))).toBeUndefined();
    await decidedOnceAfter(created, pr, head);
    expect(launchedFor(silentHead)).toHaveLength(0);
    expect(checkRuns(h, silent.owner, silent.repo, silentHead)).toHaveLength(0);
  });
  it("an event of the removed installation whose job runs after the reinstall's walk is handed to the new installation", async () => {
    const head = sha(3111);
    const repo = `reinstall-${++n}`;
    const pr = await openPull(h, { head, repo, number: 1, installationId: 91_001, send: false });
    const created = await reinstall(pr.owner, 91_001, 91_002);
    const walk = randomUUID();
    await h.send("installation", created, walk);
    await h.waitFor(
      async () => (await h.booted.rt.queues.events.getJob(jobId("installed", 91_002)))?.finishedOn,
      15_000,
      "the reinstall's walk done",
    );
    expect(checkRuns(h, pr.owner, pr.repo, head)).toHaveLength(0);
    // the opening was delivered before the uninstall; its job runs only now, after the walk
    const opened = await h.send("pull_request", pr.payload);
    expect((await waitEventJob(h, "pr", opened.id)).value).toBe("installation-removed");
    await decidedOnceAfter(created, pr, head);
  });
  it("a baseline in flight at the uninstall ends, and starts again after the reinstall; a baseline schedule comes back", async () => {
    const head = sha(3061);
    const repo = `reinstall-${++n}`;
    const config = demoConfig("baseline:\n  on: push\n  preset: full-standard");
    const pr = await openPull(h, { head: sha(3060), repo, config, installationId: 87_001, send: false });
    const scheduled = demoConfig("baseline:\n  on: schedule\n  schedule: weekly\n  preset: full-standard");
    const other = await openPull(h, {
      head: sha(3069),
      repo: `${repo}-scheduled`,
      config: scheduled,
      installationId: 87_001,
      send: false,
    });
    const push = pushPayload(h.github.state, {
      owner: pr.owner,
      repo: pr.repo,
      after: head,
      before: sha(3060),
    });
    expect((await h.send("push", push)).status).toBe(200);
    const left = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.status === "in_progress" && c.externalId),
      15_000,
      "the baseline scan in flight",
    );
    // the scheduled repository's schedule as its push started it, under the earlier installation
    const schedulePush = pushPayload(h.github.state, {
      owner: other.owner,
      repo: other.repo,
      after: sha(3068),
      before: sha(3069),
    });
    expect((await h.send("push", schedulePush)).status).toBe(200);
    const schedulerId = baselineSchedulerId(other.owner, other.repo);
    await h.waitFor(
      async () => (await h.booted.rt.queues.events.getJobScheduler(schedulerId)) ?? undefined,
      10_000,
      "the baseline schedule",
    );
    const created = await reinstall(pr.owner, 87_001, 87_002);
    expect(h.sandbox.state.statusOf(launchedFor(head)[0]!)).toBe("CANCELLED");
    // the uninstall's schedule ends with its next job, which names the removed installation
    await h.booted.rt.queues.events.removeJobScheduler(schedulerId);
    await h.send("installation", created, randomUUID());
    const fresh = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id !== left.id && c.status === "completed"),
      30_000,
      "the baseline's new check run completed",
    );
    expect(fresh.output.summary).toContain("**Baseline**");
    const old = checkRuns(h, pr.owner, pr.repo, head).find((c) => c.id === left.id)!;
    expect(old.status).toBe("completed");
    expect(old.conclusion).toBe("cancelled");
    expect(old.output.summary).toContain("baseline is started again");
    expect(launchedFor(head)).toHaveLength(2);
    const schedule = await h.booted.rt.queues.events.getJobScheduler(schedulerId);
    expect(schedule?.template?.data).toMatchObject({ installationId: 87_002, trigger: "schedule" });
    // a redelivered installation.created starts nothing more
    await h.send("installation", created, randomUUID());
    await new Promise((r) => setTimeout(r, 3_000));
    expect(launchedFor(head)).toHaveLength(2);
    expect(checkRuns(h, pr.owner, pr.repo, head)).toHaveLength(2);
  });

  it("a merge group destroyed after the uninstall, its launch not sent: its check run is completed cancelled by the reinstall", async () => {
    const repo = `reinstall-${++n}`;
    const pr = await openPull(h, {
      head: sha(3121),
      repo,
      config: demoConfig("mergeQueue: scan"),
      installationId: 92_001,
    });
    await completedRun(h, pr.owner, pr.repo, sha(3121));
    const group = addGroup(h, pr, sha(3122), sha(3120));
    const launches = h.booted.rt.queues.launch;
    await launches.pause();
    try {
      await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
      const queued = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, group.headSha)[0],
        15_000,
        "the group's check run created",
      );
      expect(queued.status).toBe("queued");
      // merged: the destroyed event was delivered before the uninstall; its job runs after it
      const merged = mergeGroupPayload(h.github.state, group, "destroyed", "merged");
      const created = await reinstall(pr.owner, 92_001, 92_002);
      const destroyed = await h.send("merge_group", merged);
      await h.waitFor(
        async () => (await h.booted.rt.queues.events.getJob(jobId("mg-destroyed", destroyed.id)))?.finishedOn,
        15_000,
        "the destroyed event's job",
      );
      expect(checkRuns(h, pr.owner, pr.repo, group.headSha)[0]!.status).toBe("queued");
      await h.send("installation", created, randomUUID());
      const ended = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, group.headSha).find((c) => c.status === "completed"),
        30_000,
        "the group's check run completed",
      );
      expect(ended.id).toBe(queued.id);
      expect(ended.conclusion).toBe("cancelled");
      expect(ended.output.title).toBe("Cancelled: diffward was uninstalled");
    } finally {
      await launches.resume();
    }
    await new Promise((r) => setTimeout(r, 2_000));
    expect(launchedFor(group.headSha)).toHaveLength(0);
  });
  it("a merge group's check run left in progress by the uninstall is completed cancelled by the reinstall, launching nothing", async () => {
    const repo = `reinstall-${++n}`;
    const pr = await openPull(h, {
      head: sha(3071),
      repo,
      config: demoConfig("mergeQueue: scan"),
      installationId: 88_001,
    });
    const prRun = await completedRun(h, pr.owner, pr.repo, sha(3071));
    const group = addGroup(h, pr, sha(3072), sha(3070));
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
    const scan = await h.waitFor(() => launchedFor(group.headSha)[0], 15_000, "the group's scan launched");
    const created = await reinstall(pr.owner, 88_001, 88_002);
    await h.waitFor(
      () => h.sandbox.state.statusOf(scan) === "CANCELLED" || undefined,
      15_000,
      "the uninstall cancelled the group's scan",
    );
    const left = checkRuns(h, pr.owner, pr.repo, group.headSha);
    expect(left).toHaveLength(1);
    expect(left[0]!.status).not.toBe("completed");
    await h.send("installation", created, randomUUID());
    const ended = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, group.headSha).find((c) => c.status === "completed"),
      30_000,
      "the group's check run completed",
    );
    expect(ended.id).toBe(left[0]!.id);
    expect(ended.conclusion).toBe("cancelled");
    expect(ended.output.title).toBe("Cancelled: diffward was uninstalled");
    expect(ended.output.summary).toMatch(/merge queue again/);
    // a redelivered installation.created: the new installation writes nothing more
    const writes = () =>
      h.github.requests.filter(
        (r) =>
          r.method === "PATCH" &&
          r.installationId === 88_002 &&
          r.path === `/repos/${pr.owner}/${pr.repo}/check-runs/${ended.id}`,
      ).length;
    const before = writes();
    expect(before).toBe(1);
    await h.send("installation", created, randomUUID());
    await new Promise((r) => setTimeout(r, 2_000));
    expect(writes()).toBe(before);
    expect(launchedFor(group.headSha)).toHaveLength(1);
    expect(checkRuns(h, pr.owner, pr.repo, group.headSha)).toHaveLength(1);
    // the pull request's own report stays as it was
    expect(checkRuns(h, pr.owner, pr.repo, sha(3071))).toEqual([prRun]);
    expect(h.github.violations()).toEqual([]);
  });
});
