import type { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import {
  mergeGroupPayload,
  pushPayload,
  sarifSchemaErrors,
  type PushInput,
} from "../../dev/github-standin/index.js";
import { queuedPull } from "../support/merge-group.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { demoBaseline } from "../../dev/harness/baseline.js";
import { isRuledOut } from "../../src/domain/verdict.js";
import { fingerprint } from "../../src/domain/identity.js";
import { parseLocation } from "../../src/domain/location.js";
import { baselineKey, baselineSchedulerId } from "../../src/runtime/names.js";
import { checkRuns, completedRun, openPull, reportEnded, sha } from "../support/pr.js";
import { flushPrefix } from "../support/flush.js";
import { jobId } from "../../src/runtime/names.js";
import type { Severity } from "../../src/scanner/catalog.js";
import { clearPresetCache } from "../../src/tenants/presets.js";
import { findingLabel } from "../../src/scanner/labels.js";
import { writeConversationComment } from "../../dev/harness/triage.js";
import { syncBaselineSchedule } from "../../src/baseline/baseline-job.js";
import { repoConfig } from "../support/jobs.js";
import { JOBS } from "../../src/job-catalogue/index.js";

/**
 * Default-branch baselines end to end: real `push` payloads (`@octokit/webhooks-examples`, filled from the
 * GitHub stand-in's state), the scanning-service sandbox over HTTP, a real Redis.
 */
/** A commit whose baseline scan runs long, so a newer push finds it running. */
const SLOW_HEAD = sha(0x2442);
/** A commit whose baseline scan runs long enough for diffward's Redis state to be lost while it runs. */
const MID_HEAD = sha(0x24c1);
/** An older commit whose baseline scan runs long: still running when the state is lost and a newer head comes. */
const OLD_SLOW = sha(0x2501);
/** An older commit whose baseline scan runs a few seconds: still running when the state is lost. */
const OLD_MID = sha(0x2511);
/** A newer commit whose baseline scan runs a few seconds: still running when the older push is delivered. */
const NEWER_MID = sha(0x2533);

describe("baseline: scans of the default branch", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: {
        scenario: "demo",
        scanDurationMs: (scan) =>
          scan.commitHash === SLOW_HEAD || scan.commitHash === OLD_SLOW
            ? 120_000
            : scan.commitHash === MID_HEAD || scan.commitHash === OLD_MID || scan.commitHash === NEWER_MID
              ? 6_000
              : 1_500,
        retryAfterSeconds: 1,
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A repository with `.github/diffward.yml` on its default branch (seeded through a pull request, not sent). */
  async function repoWith(repo: string, config: string, n: number) {
    const pr = await openPull(h, { head: sha(n), repo, config, private: true, send: false });
    const branch = h.github.state.repository(pr.owner, pr.repo)!.defaultBranch;
    return { owner: pr.owner, repo: pr.repo, branch, installationId: pr.payload.installation.id as number };
  }

  async function push(
    r: { owner: string; repo: string },
    input: Omit<PushInput, "owner" | "repo">,
    id?: string,
  ) {
    const ack = await h.send(
      "push",
      pushPayload(h.github.state, { owner: r.owner, repo: r.repo, ...input }),
      id,
    );
    expect(ack.status).toBe(200);
  }

  /** Launches the sandbox received for a commit. */
  const launchesOf = (commit: string) =>
    [...h.sandbox.state.scans.values()].filter((x) => x.commitHash === commit);

  /** Waits until the jobs of the events queue are all done (the handler's job ran). */
  async function eventsIdle() {
    await h.waitFor(
      async () => (await h.booted.rt.queues.events.getJobCounts("waiting", "active", "delayed")).active === 0,
      10_000,
      "events idle",
    );
    await new Promise((r) => setTimeout(r, 500));
  }

  const baselineConfig = (extra = "") =>
    demoConfig(`baseline:\n  on: push\n  preset: full-standard\ncodeScanning:\n  upload: true\n${extra}`);

  it("a push to the default branch: one launch with the baseline preset and no base, a completed check run on the commit, one valid SARIF upload on refs/heads/<default branch>; no review", async () => {
    const r = await repoWith("bl-push", baselineConfig(), 0x2400);
    const head = sha(0x2401);
    await push(r, { after: head, before: sha(0x2400), message: "Merge pull request #1" }, "bl-push-1");
    await push(r, { after: head, before: sha(0x2400) }, "bl-push-1"); // a redelivery
    const run = await completedRun(h, r.owner, r.repo, head, 30_000);

    const launches = launchesOf(head);
    expect(launches).toHaveLength(1);
    expect(launches[0]).toMatchObject({ presetRef: "full-standard", baseCommit: null, branch: r.branch });
    expect(checkRuns(h, r.owner, r.repo, head)).toHaveLength(1);
    expect(run.name).toBe("diffward");
    expect(["success", "failure"]).toContain(run.conclusion);
    expect(run.output.summary).toContain(`**Baseline** of \`${r.branch}\``);
    expect(run.output.summary).toMatch(/credits/i);

    await h.waitFor(() => h.github.state.sarifUploads(r.owner, r.repo).length > 0, 10_000, "SARIF upload");
    const uploads = h.github.state.sarifUploads(r.owner, r.repo);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatchObject({
      ref: `refs/heads/${r.branch}`,
      commitSha: head,
      toolName: "diffward",
    });
    expect(sarifSchemaErrors(uploads[0]!.log)).toEqual([]);
    const log = uploads[0]!.log as {
      runs: Array<{ automationDetails: { id: string }; results: Array<{ partialFingerprints: object }> }>;
    };
    // the category of pull request uploads, so GitHub compares pull requests with this analysis
    expect(log.runs[0]!.automationDetails.id).toBe("diffward/pull-request/");
    const open = [...h.sandbox.state.findings.values()].filter(
      (f) => f.commitHash === head && !isRuledOut(f) && parseLocation(f.location) !== undefined,
    );
    expect(open.length).toBeGreaterThan(0);
    expect(log.runs[0]!.results).toHaveLength(open.length);
    for (const res of log.runs[0]!.results)
      expect(res.partialFingerprints).toHaveProperty(["diffwardFindingIdentity/v2"]);
    expect(run.output.summary).toContain("this default branch's code scanning results");

    expect(h.github.state.reviews(r.owner, r.repo)).toEqual([]);
    const report = await h.booted.rt.stores.baselines.getReport(r.owner, r.repo);
    expect(report).toMatchObject({ branch: r.branch, headSha: head, scanId: launches[0]!.id });
    expect(h.github.violations()).toEqual([]);
  });

  it("pushes to another branch, tag pushes and branch deletions launch nothing and create no check run", async () => {
    const r = await repoWith("bl-elsewhere", baselineConfig(), 0x2410);
    await push(r, { ref: "refs/heads/feature", after: sha(0x2411) });
    await push(r, { ref: "refs/tags/v1.0.0", after: sha(0x2412) });
    await push(r, { ref: `refs/heads/${r.branch}`, deleted: true, before: sha(0x2410) });
    await eventsIdle();
    for (const s of [sha(0x2411), sha(0x2412)]) {
      expect(checkRuns(h, r.owner, r.repo, s)).toEqual([]);
      expect(launchesOf(s)).toEqual([]);
    }
    expect(checkRuns(h, r.owner, r.repo)).toEqual([]);
  });

  it("a repository without baseline, or with baseline off, gets nothing on push", async () => {
    const r = await repoWith("bl-off", demoConfig(), 0x2420);
    await push(r, { after: sha(0x2421) });
    await eventsIdle();
    expect(checkRuns(h, r.owner, r.repo, sha(0x2421))).toEqual([]);
    expect(launchesOf(sha(0x2421))).toEqual([]);
  });

  it("two quick pushes: one launch, of the newer commit; the older commit's check is cancelled as superseded", async () => {
    const r = await repoWith(
      "bl-debounce",
      baselineConfig().replace("debounceSeconds: 0", "debounceSeconds: 2"),
      0x2430,
    );
    await push(r, { after: sha(0x2431), before: sha(0x2430) });
    await h.waitFor(() => checkRuns(h, r.owner, r.repo, sha(0x2431)).length > 0, 10_000, "first check run");
    await push(r, { after: sha(0x2432), before: sha(0x2431) });
    await completedRun(h, r.owner, r.repo, sha(0x2432), 30_000);
    expect(launchesOf(sha(0x2431))).toEqual([]);
    expect(launchesOf(sha(0x2432))).toHaveLength(1);
    const older = checkRuns(h, r.owner, r.repo, sha(0x2431));
    expect(older).toHaveLength(1);
    expect(older[0]).toMatchObject({ status: "completed", conclusion: "cancelled" });
    expect(older[0]!.output.title).toBe(`Superseded by ${sha(0x2432).slice(0, 7)}`);
  });

  it("a newer push cancels the running baseline scan of the older commit, never a finished one", async () => {
    const r = await repoWith("bl-cancel", baselineConfig(), 0x2440);
    // a finished baseline first: it must stay COMPLETED when newer commits come
    await push(r, { after: sha(0x2441), before: sha(0x2440) });
    await completedRun(h, r.owner, r.repo, sha(0x2441), 30_000);
    const finished = launchesOf(sha(0x2441))[0]!;

    await push(r, { after: SLOW_HEAD, before: sha(0x2441) });
    const running = await h.waitFor(() => launchesOf(SLOW_HEAD)[0], 10_000, "second launch");
    await push(r, { after: sha(0x2443), before: SLOW_HEAD });
    await h.waitFor(() => launchesOf(sha(0x2443))[0], 10_000, "third launch");
    await h.waitFor(() => h.sandbox.state.statusOf(running) === "CANCELLED", 10_000, "older scan cancelled");
    expect(h.sandbox.state.statusOf(finished)).toBe("COMPLETED");
    await h.waitFor(
      () => checkRuns(h, r.owner, r.repo, SLOW_HEAD)[0]?.conclusion === "cancelled",
      10_000,
      "older check cancelled",
    );
    expect(checkRuns(h, r.owner, r.repo, sha(0x2441))[0]!.conclusion).not.toBe("cancelled");
    await completedRun(h, r.owner, r.repo, sha(0x2443), 30_000);
  });

  it("two pushes in the same second delivered out of order (B on top of A first, then A): the baseline follows B, A starts nothing, B's running scan is not cancelled and only B's SARIF is uploaded", async () => {
    const r = await repoWith("bl-same-second", baselineConfig(), 0x2530);
    const [a, b] = [sha(0x2532), NEWER_MID];
    const pushedAt = Math.floor(Date.now() / 1000);
    // GitHub's order: A, then B on top of it (each payload moves the branch as its push did), one pushed_at
    const pushA = pushPayload(h.github.state, {
      owner: r.owner,
      repo: r.repo,
      before: sha(0x2530),
      after: a,
      pushedAt,
    });
    const pushB = pushPayload(h.github.state, {
      owner: r.owner,
      repo: r.repo,
      before: a,
      after: b,
      pushedAt,
    });
    // delivered the other way round, A while B's scan runs
    expect((await h.send("push", pushB, "bl-same-second-b")).status).toBe(200);
    const scanB = await h.waitFor(() => launchesOf(b)[0], 10_000, "B's launch");
    expect((await h.send("push", pushA, "bl-same-second-a")).status).toBe(200);
    const startA = await h.waitFor(
      async () => {
        const job = await h.booted.rt.queues.events.getJob(jobId("push", "bl-same-second-a"));
        return job?.finishedOn ? job : undefined;
      },
      10_000,
      "A's start ended",
    );
    expect(startA.returnvalue).toBe("stale-push");

    const run = await completedRun(h, r.owner, r.repo, b, 30_000);
    expect(h.sandbox.state.statusOf(scanB)).toBe("COMPLETED");
    expect(run.conclusion).not.toBe("cancelled");
    expect(run.output.summary).toContain(`**Baseline** of \`${r.branch}\``);
    expect(launchesOf(b)).toHaveLength(1);
    expect(launchesOf(a)).toEqual([]);
    expect(checkRuns(h, r.owner, r.repo, a)).toEqual([]);
    expect(await h.booted.rt.stores.baselines.get(baselineKey(r.owner, r.repo))).toMatchObject({
      headSha: b,
    });
    expect(await h.booted.rt.stores.baselines.getReport(r.owner, r.repo)).toMatchObject({
      headSha: b,
      scanId: scanB.id,
    });
    await h.waitFor(() => h.github.state.sarifUploads(r.owner, r.repo).length > 0, 10_000, "SARIF upload");
    expect(h.github.state.sarifUploads(r.owner, r.repo).map((u) => [u.ref, u.commitSha])).toEqual([
      [`refs/heads/${r.branch}`, b],
    ]);
  });

  it("a diff preset in baseline.preset: a configuration error on the commit's check, and no launch", async () => {
    const r = await repoWith(
      "bl-diff-preset",
      demoConfig("baseline:\n  on: push\n  preset: diff-standard"),
      0x2450,
    );
    await push(r, { after: sha(0x2451) });
    const run = await completedRun(h, r.owner, r.repo, sha(0x2451), 10_000);
    expect(run.conclusion).toBe("failure");
    expect(run.output.title).toBe("Invalid baseline configuration");
    expect(run.output.summary).toContain('baseline.preset: "diff-standard" is a diff preset');
    expect(launchesOf(sha(0x2451))).toEqual([]);
  });

  it("a diff preset diffward cannot tell from the presets list: the service refuses it before reserving anything (400 diff_base_required), a configuration error on the check, no scan, no retry", async () => {
    // a second diff preset, used by no pull request config: nothing in the list says it is a diff preset
    const diffStandard = h.sandbox.state.presetByRef("diff-standard")!;
    h.sandbox.state.presets.push({ ...diffStandard, ref: "diff-deep", name: "Deep diff scan" });
    clearPresetCache();
    try {
      const r = await repoWith(
        "bl-diff-unknown",
        demoConfig("baseline:\n  on: push\n  preset: diff-deep"),
        0x2455,
      );
      await push(r, { after: sha(0x2456) });
      const run = await completedRun(h, r.owner, r.repo, sha(0x2456), 10_000);
      expect(run.conclusion).toBe("failure");
      expect(run.output.title).toBe("Invalid baseline configuration");
      expect(run.output.summary).toContain(
        'baseline.preset: "diff-deep" is a diff preset (the service refused it without a base commit)',
      );
      expect(launchesOf(sha(0x2456))).toEqual([]);
      // the launch job ends for good (not retried): the 400 is a configuration error
      const launchJob = await h.waitFor(
        async () =>
          (await h.booted.rt.queues.launch.getJobs(["completed", "failed"])).find(
            (j) => j.data.headSha === sha(0x2456),
          ),
        10_000,
        "launch job ended",
      );
      expect(launchJob.attemptsMade).toBeLessThanOrEqual(1);
      expect(await launchJob.getState()).toBe("completed");
      expect(launchesOf(sha(0x2456))).toEqual([]);
    } finally {
      h.sandbox.state.presets = h.sandbox.state.presets.filter((p) => p.ref !== "diff-deep");
      clearPresetCache();
    }
  });

  it("creditCap.monthly refuses a baseline over budget before anything is reserved", async () => {
    const r = await repoWith(
      "bl-cap",
      demoConfig(
        "baseline:\n  on: push\n  preset: full-standard\n  creditBudget: 80\ncreditCap:\n  monthly: 30",
      ),
      0x2460,
    );
    await push(r, { after: sha(0x2461) });
    const run = await completedRun(h, r.owner, r.repo, sha(0x2461), 10_000);
    expect(run.conclusion).toBe("action_required");
    expect(run.output.summary).toContain("creditCap.monthly");
    expect(launchesOf(sha(0x2461))).toEqual([]);
  });

  it("no credits: a neutral check saying why, and no retry of the 402", async () => {
    const r = await repoWith("bl-no-credits", baselineConfig(), 0x2470);
    const balance = h.sandbox.state.balanceOf(h.sandbox.state.organizationOf("prj_demo").id);
    h.sandbox.state.setBalance(0);
    try {
      await push(r, { after: sha(0x2471) });
      const run = await completedRun(h, r.owner, r.repo, sha(0x2471), 10_000);
      expect(run.conclusion).toBe("neutral");
      expect(run.output.title).toBe("Baseline not scanned: not enough credits");
      expect(run.output.summary).toMatch(/does not retry/);
      await new Promise((res) => setTimeout(res, 1_500));
      expect(launchesOf(sha(0x2471))).toEqual([]);
      const launchJob = (
        await h.booted.rt.queues.launch.getJobs(["completed", "failed", "delayed", "waiting"])
      ).find((j) => j.data.headSha === sha(0x2471));
      expect(launchJob?.attemptsMade ?? 0).toBeLessThanOrEqual(1);
      expect(await launchJob?.getState()).toBe("completed");
    } finally {
      h.sandbox.state.setBalance(balance);
    }
  });

  it("on: schedule: one job scheduler per repository (UTC), firing once per period, skipped when the head already has a baseline, surviving a restart; removed when the config turns it off", async () => {
    const config = demoConfig("baseline:\n  on: schedule\n  schedule: weekly\n  preset: full-standard");
    const r = await repoWith("bl-schedule", config, 0x2480);
    const head = sha(0x2481);
    // a push to the default branch keeps the schedule in step with the config (and launches nothing itself)
    await push(r, { after: head, before: sha(0x2480) });
    const events = h.booted.rt.queues.events;
    const id = baselineSchedulerId(r.owner, r.repo);
    const scheduler = await h.waitFor(() => events.getJobScheduler(id), 10_000, "job scheduler");
    expect(scheduler.pattern).toMatch(/^\d{1,2} \d{1,2} \* \* [0-6]$/);
    expect(scheduler.tz).toBe("UTC");
    await eventsIdle();
    expect(launchesOf(head)).toEqual([]);

    const due = async (): Promise<Job[]> =>
      (await events.getDelayed()).filter(
        (j) => j.name === JOBS.baselineSchedule.name && j.data.repo === r.repo,
      );
    const [next] = await h.waitFor(async () => ((await due()).length === 1 ? await due() : undefined), 5_000);
    expect(next!.timestamp + (next!.opts.delay ?? 0)).toBeGreaterThan(Date.now());

    // the period comes (promoted instead of waited for): one baseline of the branch's head
    await next!.promote();
    const run = await completedRun(h, r.owner, r.repo, head, 30_000);
    expect(run.output.summary).toContain(`**Baseline** of \`${r.branch}\``);
    expect(launchesOf(head)).toHaveLength(1);
    // the scheduler queued the next period's run, one
    const after = await h.waitFor(async () => ((await due()).length === 1 ? await due() : undefined), 5_000);
    expect(after[0]!.id).not.toBe(next!.id);

    // a restart: this process's workers stop; a new process (its own connections and workers) takes over
    await Promise.all(h.booted.workers.map((w) => w.close()));
    const { boot } = await import("../../src/boot.js");
    const { devPrivateKey } = await import("../../dev/harness/harness.js");
    const second = boot({
      appId: 1,
      privateKey: devPrivateKey(),
      webhookSecret: h.webhookSecret,
      githubBaseUrl: h.github.url,
      redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      queuePrefix: h.prefix,
      statePrefix: h.prefix,
      scannerApiUrl: h.sandbox.url,
      scannerToken: "sandbox-token",
      log: h.booted.rt.log,
      settings: { firstPollDelayMs: 1_000 },
    });
    try {
      expect(await second.rt.queues.events.getJobScheduler(id)).toMatchObject({ pattern: scheduler.pattern });
      second.startWorkers();
      // the next period on the same head: nothing launched, the head already has its baseline
      const [again] = (await second.rt.queues.events.getDelayed()).filter(
        (j) => j.name === JOBS.baselineSchedule.name && j.data.repo === r.repo,
      );
      await again!.promote();
      await h.waitFor(async () => (await again!.getState()) === "completed", 10_000, "scheduled run done");
      expect(again!.returnvalue ?? (await second.rt.queues.events.getJob(again!.id!))?.returnvalue).toBe(
        "already-has-baseline",
      );
      expect(launchesOf(head)).toHaveLength(1);
      // a new head, and the period after: the new head gets its baseline, from the new process
      h.github.state.setBranchHead(r.owner, r.repo, r.branch, sha(0x2482));
      const [third] = await h.waitFor(async () => {
        const d = (await second.rt.queues.events.getDelayed()).filter(
          (j) => j.name === JOBS.baselineSchedule.name && j.data.repo === r.repo,
        );
        return d.length === 1 ? d : undefined;
      }, 5_000);
      await third!.promote();
      await h.waitFor(() => launchesOf(sha(0x2482))[0], 10_000, "baseline of the new head");
      await reportEnded(h, launchesOf(sha(0x2482))[0]!.id, 30_000).catch(() => undefined);

      // the config turns the schedule off: the next push removes the scheduler
      h.github.state.setFile(r.owner, r.repo, r.branch, ".github/diffward.yml", demoConfig());
      const ack = await h.send(
        "push",
        pushPayload(h.github.state, {
          owner: r.owner,
          repo: r.repo,
          after: sha(0x2483),
          before: sha(0x2482),
        }),
      );
      expect(ack.status).toBe(200);
      await h.waitFor(
        async () => !(await second.rt.queues.events.getJobScheduler(id)),
        10_000,
        "scheduler removed",
      );
      expect((await second.rt.stores.baselines.get(baselineKey(r.owner, r.repo)))?.headSha).toBe(sha(0x2482));
    } finally {
      await second.close();
      h.booted.startWorkers();
    }
  });
  it("reconciliation rebuilds the job scheduler of a repository with on: schedule (lost with Redis, or never set by a push)", async () => {
    const r = await repoWith(
      "bl-reconcile",
      demoConfig("baseline:\n  on: schedule\n  schedule: daily\n  preset: full-standard"),
      0x2490,
    );
    const id = baselineSchedulerId(r.owner, r.repo);
    expect(await h.booted.rt.queues.events.getJobScheduler(id)).toBeUndefined();
    await h.booted.reconcile();
    const scheduler = await h.booted.rt.queues.events.getJobScheduler(id);
    expect(scheduler?.pattern).toMatch(/^\d{1,2} \d{1,2} \* \* \*$/);
    expect(scheduler?.tz).toBe("UTC");
    await h.booted.rt.queues.events.removeJobScheduler(id);
  });
  it("a cron schedule BullMQ cannot run: the push's baseline job ends on the config error, never throws, and sets no scheduler", async () => {
    const events = h.booted.rt.queues.events;
    // BullMQ's parser refuses the first; the second parses but matches no date, so BullMQ would create nothing
    for (const [i, schedule] of ["0 0 30 2 *", "0 0 31 4,6 *"].entries()) {
      const n = 0x2530 + 2 * i;
      const r = await repoWith(
        `bl-bad-schedule-${i}`,
        demoConfig(`baseline:\n  on: schedule\n  schedule: "${schedule}"\n  preset: full-standard`),
        n,
      );
      await push(r, { after: sha(n + 1), before: sha(n) });
      const job = await h.waitFor(
        async () =>
          (await events.getJobs(["completed", "failed"])).find(
            (j) => j.name === JOBS.baselinePush.name && j.data.repo === r.repo,
          ),
        10_000,
        `baseline job of ${schedule}`,
      );
      expect(await job.getState(), schedule).toBe("completed");
      expect(job.returnvalue, schedule).toBe("invalid-config");
      expect(await events.getJobScheduler(baselineSchedulerId(r.owner, r.repo))).toBeUndefined();
    }
  });

  it("syncBaselineSchedule given a pattern BullMQ cannot run (a config parsed by an older diffward): sets none, removes the one set, does not throw", async () => {
    const events = h.booted.rt.queues.events;
    const repo = {
      installationId: 1,
      accountLogin: "acme",
      owner: "acme",
      repo: "bl-sync-bad",
      repoPrivate: true,
      defaultBranch: "main",
    };
    const id = baselineSchedulerId(repo.owner, repo.repo);
    const daily = repoConfig({ baseline: { on: "schedule", schedule: "daily", preset: "full-standard" } });
    expect(await syncBaselineSchedule(h.booted.rt, repo, daily)).toBe(true);
    expect(await events.getJobScheduler(id)).toBeDefined();
    for (const schedule of ["0 0 30 2 *", "0 0 31 4 *", "0 0 31 4,6 *"]) {
      const bad = { ...daily, baseline: { ...daily.baseline, schedule } };
      expect(await syncBaselineSchedule(h.booted.rt, repo, bad), schedule).toBe(false);
      expect(await events.getJobScheduler(id), schedule).toBeUndefined();
    }
  });

  it("Redis lost while a baseline scan runs: reconciliation follows the scan again (once), and its check run completes; no second launch", async () => {
    const r = await repoWith("bl-flush", baselineConfig(), 0x24c0);
    await push(r, { after: MID_HEAD, before: sha(0x24c0) });
    const scan = await h.waitFor(() => launchesOf(MID_HEAD)[0], 10_000, "launch");
    const running = await h.waitFor(
      () => checkRuns(h, r.owner, r.repo, MID_HEAD).find((c) => c.externalId === scan.id),
      10_000,
      "scan id on the check run",
    );
    expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);
    expect(await h.booted.rt.queues.scans.getJob(jobId("poll", scan.id))).toBeUndefined();

    const [a, b] = await Promise.all([h.booted.reconcile(), h.booted.reconcile()]);
    expect([...a.resumed, ...b.resumed]).toEqual([scan.id]);
    expect(a.errors + b.errors).toBe(0);
    const run = await completedRun(h, r.owner, r.repo, MID_HEAD, 30_000);
    expect(run.id).toBe(running.id);
    expect(run.output.summary).toContain(`**Baseline** of \`${r.branch}\``);
    expect(launchesOf(MID_HEAD)).toHaveLength(1);
    expect(checkRuns(h, r.owner, r.repo, MID_HEAD)).toHaveLength(1);
    expect(await h.booted.rt.stores.baselines.getReport(r.owner, r.repo)).toMatchObject({ scanId: scan.id });
  });

  it("Redis lost before a baseline's launch: reconciliation launches it once on the same check run, which completes", async () => {
    const r = await repoWith(
      "bl-flush-pending",
      demoConfig("baseline:\n  on: schedule\n  schedule: weekly\n  preset: full-standard"),
      0x24d0,
    );
    const head = sha(0x24d1);
    await push(r, { after: head, before: sha(0x24d0) }); // on: schedule: the push launches nothing
    await eventsIdle();
    const octokit = await h.booted.rt.octokit(r.installationId);
    // diffward's check run of a baseline whose launch was still pending, without a scan id
    const { data: pending } = await octokit.rest.checks.create({
      owner: r.owner,
      repo: r.repo,
      name: "diffward",
      head_sha: head,
      status: "queued",
    });
    await flushPrefix(h.prefix);

    const first = await h.booted.reconcile();
    expect(first.redecided).toEqual([pending.id]);
    const run = await completedRun(h, r.owner, r.repo, head, 30_000);
    expect(run.id).toBe(pending.id);
    expect(launchesOf(head)).toHaveLength(1);
    expect(checkRuns(h, r.owner, r.repo, head)).toHaveLength(1);
    const again = await h.booted.reconcile();
    expect(again.redecided).toEqual([]);
    await new Promise((res) => setTimeout(res, 1_000));
    expect(launchesOf(head)).toHaveLength(1);
    await h.booted.rt.queues.events.removeJobScheduler(baselineSchedulerId(r.owner, r.repo));
  });
  describe("Redis lost while a baseline of an older commit runs", () => {
    /** Pushes `older`, waits until its check run carries its scan id, then loses diffward's Redis state. */
    async function runningThenLost(r: { owner: string; repo: string }, older: string, before: string) {
      await push(r, { after: older, before });
      const scan = await h.waitFor(() => launchesOf(older)[0], 10_000, "older launch");
      const run = await h.waitFor(
        () => checkRuns(h, r.owner, r.repo, older).find((c) => c.externalId === scan.id),
        10_000,
        "scan id on the older check run",
      );
      expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);
      return { scan, run };
    }

    it("a newer head with its own baseline: the older check run is concluded superseded and its running scan cancelled, once; nothing launched again", async () => {
      const r = await repoWith("bl-older-superseded", baselineConfig(), 0x2500);
      const { scan, run } = await runningThenLost(r, OLD_SLOW, sha(0x2500));
      // a push after the loss: its start finds no state, so it cannot stop the older baseline itself
      await push(r, { after: sha(0x2502), before: OLD_SLOW });
      await completedRun(h, r.owner, r.repo, sha(0x2502), 30_000);
      expect(["QUEUED", "PROCESSING"]).toContain(h.sandbox.state.statusOf(scan));

      const [a, b] = await Promise.all([h.booted.reconcile(), h.booted.reconcile()]);
      expect(a.mode).toBe("full-sweep");
      expect([...a.superseded, ...b.superseded]).toContain(run.id);
      expect([...a.resumed, ...b.resumed]).not.toContain(scan.id);
      await h.waitFor(() => h.sandbox.state.statusOf(scan) === "CANCELLED", 10_000, "older scan cancelled");
      const older = await h.waitFor(
        () => checkRuns(h, r.owner, r.repo, OLD_SLOW).find((c) => c.status === "completed"),
        10_000,
        "older check run concluded",
      );
      expect(older).toMatchObject({ id: run.id, conclusion: "cancelled" });
      expect(older.output.title).toBe(`Superseded by ${sha(0x2502).slice(0, 7)}`);
      expect(checkRuns(h, r.owner, r.repo, OLD_SLOW)).toHaveLength(1);
      expect(launchesOf(OLD_SLOW)).toHaveLength(1);
      expect(launchesOf(sha(0x2502))).toHaveLength(1);
      // the newer head's completed baseline is the one pull requests compare with
      expect(await h.booted.rt.stores.baselines.getReport(r.owner, r.repo)).toMatchObject({
        headSha: sha(0x2502),
      });
    });

    it("a newer head without a baseline of its own: the older commit's running scan is the newest baseline, followed and reported, never launched again", async () => {
      const r = await repoWith("bl-older-followed", baselineConfig(), 0x2510);
      const { scan, run } = await runningThenLost(r, OLD_MID, sha(0x2510));
      // the branch moved on without diffward seeing the push (lost with the state)
      h.github.state.setBranchHead(r.owner, r.repo, r.branch, sha(0x2512));

      const summary = await h.booted.reconcile();
      expect(summary.resumed).toContain(scan.id);
      expect(summary.superseded).not.toContain(run.id);
      const done = await completedRun(h, r.owner, r.repo, OLD_MID, 30_000);
      expect(done.id).toBe(run.id);
      expect(done.output.summary).toContain(`**Baseline** of \`${r.branch}\``);
      expect(h.sandbox.state.statusOf(scan)).toBe("COMPLETED");
      expect(launchesOf(OLD_MID)).toHaveLength(1);
      expect(launchesOf(sha(0x2512))).toEqual([]);
      expect(await h.booted.rt.stores.baselines.getReport(r.owner, r.repo)).toMatchObject({
        headSha: OLD_MID,
      });
      // a second sweep finds it followed or done: nothing superseded, nothing launched
      await flushPrefix(h.prefix);
      const again = await h.booted.reconcile();
      expect(again.superseded).toEqual([]);
      expect(launchesOf(OLD_MID)).toHaveLength(1);
    });
  });

  it("a pull request into a branch with a completed baseline: its summary says how many findings were already open there and how many are new", async () => {
    const r = await repoWith("bl-pr", baselineConfig(), 0x24a0);
    await push(r, { after: sha(0x24a1), before: sha(0x24a0) });
    await completedRun(h, r.owner, r.repo, sha(0x24a1), 30_000);
    const demo = h.sandbox.state.scenario!;
    // the pull request's scan finds what the branch has, and one finding more
    h.sandbox.state.scenario = {
      ...demo,
      findings: [
        ...demo.findings,
        { ...demo.findings[0]!, title: "Open redirect after login", location: "src/server.js:35" },
      ],
    };
    try {
      const pr = await openPull(h, { head: sha(0x24a2), repo: r.repo, number: 77, private: true });
      const run = await completedRun(h, pr.owner, pr.repo, sha(0x24a2), 30_000);
      // counted by fingerprint against the baseline's open findings (ruled out ones are not open there)
      const known = new Set(
        (await h.booted.rt.stores.baselines.getReport(r.owner, r.repo))!.openFingerprints,
      );
      const prScan = launchesOf(sha(0x24a2))[0]!;
      const prOpen = [...h.sandbox.state.findings.values()].filter(
        (f) => f.scanId === prScan.id && !isRuledOut(f),
      );
      const pre = prOpen.filter((f) => known.has(fingerprint(f))).length;
      expect(pre).toBeGreaterThan(0);
      expect(prOpen.some((f) => f.title === "Open redirect after login" && !known.has(fingerprint(f)))).toBe(
        true,
      );
      const fresh = prOpen.length - pre;
      expect(run.output.summary).toContain(`### Against the baseline of \`${r.branch}\``);
      expect(run.output.summary).toContain(
        `Of ${prOpen.length} open findings, ${pre} were already open on \`${r.branch}\` at \`${sha(0x24a1).slice(0, 7)}\` (the same fingerprint), and **${fresh}** ${fresh === 1 ? "is" : "are"} new in this pull request.`,
      );
    } finally {
      h.sandbox.state.scenario = demo;
    }
  });
  describe("failOn {severity: high, only: new}", () => {
    const onlyNew = (extra = "") =>
      baselineConfig(extra).replace("failOn: high", "failOn:\n  severity: high\n  only: new");
    // A: high, already open on the default branch; B: new in the pull request, high or low
    const scenarioWith = (...findings: Array<{ title: string; location: string; severity: Severity }>) => {
      const demo = h.sandbox.state.scenario!;
      const a = demo.findings.find((f) => f.title === "Session secret hard-coded")!;
      return { ...demo, findings: findings.map((f) => ({ ...a, ...f })) };
    };
    const A = {
      title: "Session secret hard-coded",
      location: "src/server.js:8-10",
      severity: "HIGH" as const,
    };
    const B = (severity: Severity) => ({
      title: "Open redirect after login",
      location: "src/server.js:35",
      severity,
    });

    /** A pull request whose scan finds `findings`: its completed check run. */
    async function pullFinding(
      r: { repo: string },
      head: string,
      number: number,
      findings: ReturnType<typeof scenarioWith>,
    ) {
      const demo = h.sandbox.state.scenario!;
      h.sandbox.state.scenario = findings;
      try {
        const pr = await openPull(h, { head, repo: r.repo, number, private: true });
        return await completedRun(h, pr.owner, pr.repo, head, 30_000);
      } finally {
        h.sandbox.state.scenario = demo;
      }
    }

    it("with a baseline holding A: only the new finding B decides (B high: failure; B low: success although A is high; B raised to high by /severity: failure)", async () => {
      const r = await repoWith("bl-only-new", onlyNew(), 0x24e0);
      const demo = h.sandbox.state.scenario!;
      h.sandbox.state.scenario = scenarioWith(A);
      try {
        await push(r, { after: sha(0x24e1), before: sha(0x24e0) });
        const base = await completedRun(h, r.owner, r.repo, sha(0x24e1), 30_000);
        // the baseline's own check counts every finding: A blocks the commit
        expect(base.conclusion).toBe("failure");
      } finally {
        h.sandbox.state.scenario = demo;
      }

      const high = await pullFinding(r, sha(0x24e2), 81, scenarioWith(A, B("HIGH")));
      expect(high.conclusion).toBe("failure");
      expect(high.output.title).toBe("1 blocking finding (1 high)");
      expect(high.output.summary).toContain(
        "## ❌ 1 new finding at or above `high` blocks this pull request",
      );
      expect(high.output.summary).toContain(
        "1 finding at or above `high` already open on the base branch does not block (`failOn: {severity: high, only: new}`).",
      );
      expect(high.output.summary).toContain(
        `Of 2 open findings, 1 was already open on \`${r.branch}\` at \`${sha(0x24e1).slice(0, 7)}\``,
      );
      const levels = (run: typeof high) =>
        Object.fromEntries(
          run.annotations.map((x) => [String(x.start_line), x.annotation_level as string] as const),
        );
      // A (line 8) is a warning marked pre-existing; B (line 35) the failure
      expect(levels(high)).toEqual({ "8": "warning", "35": "failure" });
      expect(high.annotations.find((x) => x.start_line === 8)!.message).toContain("it does not block");

      const low = await pullFinding(r, sha(0x24e3), 82, scenarioWith(A, B("LOW")));
      expect(low.conclusion).toBe("success");
      expect(low.output.title).toBe("No new blocking findings (1 pre-existing at or above high)");
      expect(low.output.summary).toMatch(/ _pre-existing_ \|/);
      expect(levels(low)).toEqual({ "8": "warning", "35": "notice" });

      // a triage recompute decides with the comparison the report kept: B raised to high now blocks, A still not
      const prScan = launchesOf(sha(0x24e3))[0]!;
      const b = [...h.sandbox.state.findings.values()].find(
        (f) => f.scanId === prScan.id && f.title === "Open redirect after login",
      )!;
      h.github.state.setPermission(r.owner, r.repo, "octo-writer", "write");
      const say = writeConversationComment(h, {
        owner: r.owner,
        repo: r.repo,
        pullNumber: 82,
        login: "octo-writer",
        body: `/diffward severity ${findingLabel(b.id)} high`,
      });
      expect((await h.send("issue_comment", say)).status).toBe(200);
      const raised = await h.waitFor(
        () => checkRuns(h, r.owner, r.repo, sha(0x24e3)).find((c) => c.conclusion === "failure"),
        20_000,
        "the recomputed check run",
      );
      expect(raised.output.title).toBe("1 blocking finding (1 high)");
      expect(raised.output.summary).toContain(
        "## ❌ 1 new finding at or above `high` blocks this pull request",
      );
      expect(raised.output.summary).toMatch(/ _pre-existing_ \|/);
      expect(launchesOf(sha(0x24e3))).toHaveLength(1);
    });

    it("a merge group's own scan (mergeQueue: scan) blocks on the same findings as its pull request: the pre-existing high one does not", async () => {
      const r = await repoWith("bl-only-new-mq", onlyNew("mergeQueue: scan"), 0x2520);
      const demo = h.sandbox.state.scenario!;
      h.sandbox.state.scenario = scenarioWith(A, B("LOW"));
      try {
        await push(r, { after: sha(0x2521), before: sha(0x2520) });
        await completedRun(h, r.owner, r.repo, sha(0x2521), 30_000);
        const { group } = queuedPull(
          h,
          { head: sha(0x2522), repo: r.repo, number: 85, private: true },
          { head: sha(0x2523), base: sha(0x2521) },
        );
        const ack = await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
        expect(ack.status).toBe(200);
        const run = await completedRun(h, r.owner, r.repo, group.headSha, 30_000);
        expect(launchesOf(group.headSha)).toHaveLength(1);
        expect(run.output.summary).toContain("Merge group");
        expect(run.conclusion).toBe("success");
        expect(run.output.title).toBe("No new blocking findings (1 pre-existing at or above high)");
        expect(run.output.summary).toContain(`### Against the baseline of \`${r.branch}\``);
      } finally {
        h.sandbox.state.scenario = demo;
      }
    });

    it("without a baseline of the base branch: every finding counts, and the summary says so", async () => {
      const r = await repoWith("bl-only-new-none", onlyNew(), 0x24f0);
      const run = await pullFinding(r, sha(0x24f2), 83, scenarioWith(A, B("LOW")));
      expect(run.conclusion).toBe("failure");
      expect(run.output.title).toBe("1 blocking finding (1 high)");
      expect(run.output.summary).toContain(`No baseline of \`${r.branch}\` yet: every finding counts.`);
      expect(run.output.summary).not.toContain("_pre-existing_");
    });
  });

  it("demoBaseline (the demo's baseline step) shows the commit's completed baseline and its upload on the default branch", async () => {
    const r = await repoWith("bl-demo", baselineConfig(), 0x24b0);
    const shown = await demoBaseline(
      h,
      { owner: r.owner, repo: r.repo, defaultBranch: r.branch },
      sha(0x24b1),
    );
    expect(shown.run.headSha).toBe(sha(0x24b1));
    expect(shown.run.output.summary).toContain(`**Baseline** of \`${r.branch}\``);
    expect(shown.scanId).toBe(launchesOf(sha(0x24b1))[0]!.id);
    await h.waitFor(() => h.github.state.sarifUploads(r.owner, r.repo).length > 0, 10_000, "SARIF upload");
    expect(h.github.state.sarifUploads(r.owner, r.repo).map((u) => u.ref)).toEqual([
      `refs/heads/${r.branch}`,
    ]);
  });
});
