import { Worker } from "bullmq";
import { WALK_PRIORITY } from "../../src/runtime/fairness.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { expectExactlyOnce } from "../support/faults.js";
import { flushPrefix } from "../support/flush.js";
import { checkRuns, completedRun, launchedScan, openPull, seedPull, sha } from "../support/pr.js";
import { jobId } from "../../src/runtime/names.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { seedOrganization } from "../../dev/github-standin/index.js";

describe("reconciliation after a Redis flush", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 3_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("flush mid-scan, reconcile: the scan is resumed and reported exactly once, a redelivery launches nothing", async () => {
    const head = "e".repeat(39) + "1";
    const pr = seedPull(h, { head });
    const { owner, repo: name } = pr;
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    const running = await h.waitFor(
      () => h.github.state.checkRuns(owner, name).find((c) => c.headSha === head && c.externalId),
      15_000,
      "check run with the scan id",
    );
    expect(running.status).not.toBe("completed");

    expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);
    expect(await h.booted.rt.stores.pulls.getPull(`${owner}/${name}#${pr.number}`)).toBeUndefined();

    // Two reconciliations racing: one poll job (BullMQ job id `poll-<scanId>`).
    const [a, b] = await Promise.all([h.booted.reconcile(), h.booted.reconcile()]);
    expect(a.mode).toBe("full-sweep");
    expect(a.installations).toBeGreaterThanOrEqual(1);
    expect(a.pulls).toBeGreaterThanOrEqual(1);
    expect([...a.resumed, ...a.alreadyFollowed]).toEqual([running.externalId]);
    expect([...b.resumed, ...b.alreadyFollowed]).toEqual([running.externalId]);
    expect(a.errors + b.errors).toBe(0);

    // GitHub redelivers the opened event (new delivery id): the rebuilt state says it is followed.
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);

    const done = await completedRun(h, pr.owner, pr.repo, head);
    expect(done.conclusion).toBe("failure");
    expectExactlyOnce(h, pr, head);

    // A later reconciliation finds the state intact (the sweep wrote its marker) and nothing in flight.
    const after = await h.booted.reconcile();
    expect(after.mode).toBe("in-flight");
    expect(after.resumed).toEqual([]);
    expect(after.alreadyFollowed).toEqual([]);
  });

  it("a reconcile job on the queue runs through the workers; requests in one window collapse", async () => {
    const { enqueueReconcile } = await import("../../src/recovery/reconcile/index.js");
    const now = Date.now();
    const id = await enqueueReconcile(h.booted.rt, now);
    expect(await enqueueReconcile(h.booted.rt, now)).toBe(id);
    const summary = await h.waitFor(
      async () =>
        (await h.booted.rt.queues.events.getJob(id))?.returnvalue as
          { mode: string; resumed: string[] } | undefined,
      10_000,
      "reconcile job result",
    );
    expect(summary.mode).toBe("in-flight"); // the state is intact since the first test's sweep
    expect(summary.resumed).toEqual([]);
    const jobs = await h.booted.rt.queues.events.getJobs(["completed", "waiting", "active", "delayed"]);
    expect(jobs.filter((j) => j.name === "reconcile")).toHaveLength(1);
    expect(jobs.find((j) => j.name === "reconcile")!.opts.priority).toBe(WALK_PRIORITY);
  });
});

/**
 * A poll job that completed without handing its scan to a report (as the poll of a scan whose token was
 * missing did): its check run is unfinished and nothing follows the scan, so reconciliation resumes it
 * instead of counting it as followed.
 */
describe("reconciliation: a completed poll job whose check run is unfinished", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 3_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => h?.close());

  it("is not counted as followed: the scan is polled again and reported", { timeout: 60_000 }, async () => {
    const head = sha(0x4b1);
    const pr = await openPull(h, { head, repo: "stale-poll" });
    const scanId = await launchedScan(h, head);
    const scans = h.booted.rt.queues.scans;
    const poll = await h.waitFor(() => scans.getJob(jobId("poll", scanId)), 10_000, "poll job");
    const worker = h.booted.workers.find((w) => w.name === scans.name)!;
    await worker.pause(); // waits for its running jobs and ends its blocking fetch
    // the poll job ends "no-token" without concluding the check run (what an earlier poll did)
    const data = poll.data as Record<string, unknown>;
    await poll.remove();
    await scans.add(poll.name, data, { ...poll.opts, delay: 0 });
    const manual = new Worker(scans.name, null, { connection: h.booted.rt.redis, prefix: h.prefix });
    try {
      const job = await h.waitFor(() => manual.getNextJob("manual"), 5_000, "the poll job");
      expect(job.id).toBe(jobId("poll", scanId));
      await job.moveToCompleted("no-token", "manual", false);
    } finally {
      await manual.close();
    }
    worker.resume();
    const unfinished = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.externalId === scanId),
      10_000,
      "the scan id on the check run",
    );
    expect(unfinished.status).not.toBe("completed");

    const summary = await h.booted.reconcile();
    expect(summary.alreadyFollowed).not.toContain(scanId);
    expect(summary.resumed).toContain(scanId);
    const done = await completedRun(h, pr.owner, pr.repo, head, 30_000);
    expect(done.conclusion).toBe("failure");
    expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);
  });
});

/**
 * A check run created before its scan id was written (the launch waits out `debounceSeconds`, or the scan-id
 * write waits in the write lane): Redis is lost, and reconciliation follows the scan the service has for the
 * head since the check run was created, or, when it has none, decides the head's launch again (launched once).
 */
describe("reconciliation: a check run without a scan id after a Redis flush", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 3_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => h?.close());

  const scansOf = (head: string) => [...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head);

  it(
    "flush inside the debounce window: the head is launched once and reported",
    { timeout: 60_000 },
    async () => {
      const head = sha(0x4d1);
      const pr = await openPull(h, {
        head,
        repo: "debounce-flush",
        config: demoConfig().replace("debounceSeconds: 0", "debounceSeconds: 600"),
      });
      const queued = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.status === "queued"),
        10_000,
        "the queued check run",
      );
      expect(queued.externalId).toBeFalsy();
      await h.waitFor(
        async () => ((await h.booted.rt.queues.launch.getJobCounts("delayed")).delayed ?? 0) > 0,
        10_000,
        "the delayed launch",
      );
      expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);

      const summary = await h.booted.reconcile();
      expect(summary.errors).toBe(0);
      expect(summary.redecided).toEqual([queued.id]);
      const done = await completedRun(h, pr.owner, pr.repo, head, 30_000);
      expect(done.id).toBe(queued.id);
      expect(done.conclusion).toBe("failure");
      expect(scansOf(head)).toHaveLength(1);
      expect(done.externalId).toBe(scansOf(head)[0]!.id);
      expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);

      const after = await h.booted.reconcile();
      expect(after.redecided).toEqual([]);
      expect(after.resumed).toEqual([]);
      expect(scansOf(head)).toHaveLength(1);
    },
  );

  it(
    "scan launched, its scan id not yet on the check run: the scan is followed, never launched again",
    { timeout: 60_000 },
    async () => {
      const head = sha(0x4d2);
      const scans = h.booted.rt.queues.scans;
      const worker = h.booted.workers.find((w) => w.name === scans.name)!;
      const pr = await openPull(h, { head, repo: "unlinked-flush" });
      const scanId = await launchedScan(h, head);
      const run = await h.waitFor(
        () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.externalId === scanId),
        10_000,
        "the scan id on the check run",
      );
      await worker.pause(); // nothing reports the scan before the flush
      try {
        expect(run.status).not.toBe("completed");
        // as if the scan-id write had not reached GitHub (waiting in the lane, or lost with the process)
        run.externalId = null;
        expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);
      } finally {
        worker.resume();
      }
      const summary = await h.booted.reconcile();
      expect(summary.errors).toBe(0);
      expect(summary.resumed).toEqual([scanId]);
      expect(summary.redecided).toEqual([]);
      // the scan id is on the check run again before the report
      await h.waitFor(() => run.externalId === scanId, 10_000, "the scan id written back");
      const done = await completedRun(h, pr.owner, pr.repo, head, 30_000);
      expect(done.id).toBe(run.id);
      expect(done.externalId).toBe(scanId);
      expect(done.conclusion).toBe("failure");
      expect(scansOf(head)).toHaveLength(1);
      expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);
    },
  );
});

/** GitHub requests recorded by the stand-in from index `from` on. */
const requestsSince = (h: Harness, from: number) => h.github.requests.slice(from);

/**
 * A restart with diffward's Redis state intact: reconciliation looks only at what the state says is in flight
 * and asks GitHub only about the scans their jobs no longer follow, however many repositories and pull
 * requests the installation has.
 */
describe("reconciliation with the state intact", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 15_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => h?.close());

  it(
    "asks GitHub only about the in-flight scan nothing follows, and resumes each in-flight scan once",
    { timeout: 60_000 },
    async () => {
      // an organization's other repositories with open pull requests: a full sweep would read them all
      seedOrganization(h.github.state, {
        installationId: 4242,
        login: "big-org",
        repositories: 12,
        pullsPerRepository: 2,
        config: () => demoConfig(),
      });
      const heads = [sha(0x5a1), sha(0x5a2), sha(0x5a3)];
      const pulls = [];
      for (const [i, head] of heads.entries()) pulls.push(await openPull(h, { head, repo: `intact-${i}` }));
      const scanIds = await Promise.all(heads.map((head) => launchedScan(h, head)));
      for (const [i, pr] of pulls.entries())
        await h.waitFor(
          () => checkRuns(h, pr.owner, pr.repo, heads[i]).find((c) => c.externalId === scanIds[i]),
          10_000,
          "the scan id on the check run",
        );
      const scans = h.booted.rt.queues.scans;
      const worker = h.booted.workers.find((w) => w.name === scans.name)!;
      await worker.pause(); // nothing polls while the state is looked at
      let summary;
      let asked;
      try {
        // the first start of this state: no marker, a full sweep
        const first = await h.booted.reconcile();
        expect(first.mode, JSON.stringify(first)).toBe("full-sweep");
        expect(first.repositories).toBeGreaterThanOrEqual(15);
        expect([...first.alreadyFollowed].sort()).toEqual([...scanIds].sort());

        // the first scan's poll job is gone (as if removed by hand); the others wait for their next read
        await (await scans.getJob(jobId("poll", scanIds[0]!)))!.remove();
        const from = h.github.requests.length;
        summary = await h.booted.reconcile();
        asked = requestsSince(h, from);
      } finally {
        worker.resume();
      }
      expect(summary.mode).toBe("in-flight");
      expect(summary.errors).toBe(0);
      expect(summary.resumed).toEqual([scanIds[0]]);
      expect([...summary.alreadyFollowed].sort()).toEqual([scanIds[1], scanIds[2]].sort());
      // GitHub was asked about the in-flight scans' repositories only (the first one's swept), nothing of
      // big-org's: no installation or repository listing
      const own = `/repos/${pulls[0]!.owner}/${pulls[0]!.repo}/`;
      expect(asked.filter((r) => r.path.startsWith(own) && r.operationId === "pulls/list")).toHaveLength(1);
      const inflightRepos = pulls.map((p) => `/repos/${p.owner}/${p.repo}`);
      // and of their owners' organization floor (`.github/diffward.yml` of the `.github` repository)
      const floors = pulls.map(
        (p) => `/repos/${p.owner}/.github/contents/${encodeURIComponent(".github/diffward.yml")}`,
      );
      expect(
        asked
          .filter(
            (r) =>
              !inflightRepos.some((x) => r.path === x || r.path.startsWith(`${x}/`)) &&
              !floors.includes(r.path) &&
              !r.path.endsWith("/access_tokens"),
          )
          .map((r) => r.path),
      ).toEqual([]);
      expect(asked.length).toBeLessThanOrEqual(12);
      // the resumed poll waits behind every webhook's job (BullMQ's lowest priority)
      expect((await scans.getJob(jobId("poll", scanIds[0]!)))?.opts.priority).toBe(WALK_PRIORITY);

      // every scan is reported exactly once
      for (const [i, pr] of pulls.entries()) {
        const done = await completedRun(h, pr.owner, pr.repo, heads[i]!, 30_000);
        expect(done.externalId).toBe(scanIds[i]);
        await h.waitFor(
          () => h.github.state.reviews(pr.owner, pr.repo, pr.number).length > 0,
          15_000,
          "the review",
        );
        expect(h.github.state.reviews(pr.owner, pr.repo, pr.number)).toHaveLength(1);
        expect(checkRuns(h, pr.owner, pr.repo, heads[i])).toHaveLength(1);
      }
      expect(h.github.violations()).toEqual([]);
    },
  );
});

/**
 * The full sweep after a state loss reads only repositories `.github/diffward.yml` applies to: their own file,
 * or the organization's `.github` repository's when they have none (the fallback config loading follows).
 */
describe("reconciliation's full sweep: repositories without a config", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo" } });
  });
  afterAll(async () => h?.close());

  it("skips them, and reads those inheriting the organization's config", async () => {
    seedOrganization(h.github.state, {
      installationId: 4301,
      login: "plain-org",
      repositories: 6,
      pullsPerRepository: 1,
      config: (i) => (i < 2 ? demoConfig() : null),
    });
    seedOrganization(h.github.state, {
      installationId: 4302,
      login: "inherit-org",
      repositories: 3,
      pullsPerRepository: 1,
      organizationConfig: demoConfig(),
    });
    const from = h.github.requests.length;
    const summary = await h.booted.reconcile();
    expect(summary.mode).toBe("full-sweep");
    expect(summary.errors).toBe(0);
    // plain-org: 2 configured, 4 skipped; inherit-org: 3 inherit, and its `.github` repository has the file
    expect(summary.skippedWithoutConfig).toBe(4);
    expect(summary.repositories).toBe(2 + 3 + 1);
    // the pull requests of the repositories a config applies to: plain-org's 2, inherit-org's 3 (`.github` has none)
    expect(summary.pulls).toBe(2 + 3);
    // all read by the GraphQL walk, one query per installation (a repository's first 3 pull requests with it); REST
    // reads no pull request, check run or file of a repository without a config
    const asked = requestsSince(h, from);
    expect(summary.graphqlQueries).toBe(2);
    expect(asked.filter((r) => r.operationId === "graphql")).toHaveLength(2);
    const restRepos = asked.filter((r) => r.path.startsWith("/repos/")).map((r) => r.path);
    expect(restRepos.filter((p) => /\/(pulls|check-runs|git\/matching-refs)/.test(p))).toEqual([]);
    expect(restRepos.filter((p) => /\/repo-[2-5]\//.test(p) && p.includes("plain-org"))).toEqual([]);
    expect(h.github.violations()).toEqual([]);
  });
});

/**
 * The full sweep keeps within the installation's primary rate limit: while `x-ratelimit-remaining` is within
 * the share left to live traffic, it waits for `x-ratelimit-reset` instead of spending the rest.
 */
describe("reconciliation's full sweep: pacing within the rate limit", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo" },
      // A window long enough that the sweep spends its first 24 requests inside it even on a loaded machine (a
      // shorter one can reset before the sweep runs low, and the pacing is never exercised).
      // GraphQL's points too: 30 a window, and the walk's 3 queries (100, 100 and 50 repositories) cost 13 + 13 + 7
      github: {
        limits: { primary: { limit: 30, windowSeconds: 8 }, graphql: { points: 30, windowSeconds: 8 } },
      },
    });
  });
  afterAll(async () => h?.close());

  it(
    "waits for the reset when the remaining points are low, and is never refused",
    { timeout: 120_000 },
    async () => {
      seedOrganization(h.github.state, {
        installationId: 4401,
        login: "paced-org",
        repositories: 250,
        pullsPerRepository: 1,
        config: () => demoConfig(),
      });
      const from = h.github.requests.length;
      const summary = await h.booted.reconcile();
      expect(summary.errors).toBe(0);
      expect(summary.repositories).toBe(250);
      expect(summary.pulls).toBe(250);
      expect(summary.graphqlQueries).toBe(3);
      expect(summary.rateWaits).toBeGreaterThanOrEqual(1);
      const asked = requestsSince(h, from).filter((r) => r.installationId === 4401);
      // more points than one window holds, none refused: the walk waited for the reset
      expect(asked.reduce((n, r) => n + (r.graphqlCost ?? 0), 0)).toBeGreaterThan(30);
      expect(asked.filter((r) => r.status === 403 || r.status === 429)).toEqual([]);
      expect(h.github.violations()).toEqual([]);
    },
  );
});
