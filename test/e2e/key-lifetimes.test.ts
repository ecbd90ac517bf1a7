import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { demoApproval, demoReplyCommand } from "../../dev/harness/triage.js";
import { mergeGroupPayload } from "../../dev/github-standin/index.js";
import { QUEUE_NAMES, REDIS_KEYS, groupKey, redisKeyRegExp } from "../../src/runtime/names.js";
import { type Payload, completedRun, launchedScan, openPull, sha } from "../support/pr.js";
import { queuedPull } from "../support/merge-group.js";
import { UnthrottledOctokit } from "../support/octokit.js";

/**
 * Every Redis key diffward writes has an owner and an end: after real flows (the GitHub stand-in, the sandbox
 * over HTTP, a real Redis) every key under the harness's prefix is either one of BullMQ's, whose end is the
 * job's retention (`removeOnComplete`/`removeOnFail`, checked on every job), or one of diffward's own kinds
 * (`REDIS_KEYS` in src/runtime/names.ts) and then has a TTL: a key without one would stay for ever.
 */

/**
 * BullMQ's per-queue keys (BullMQ 6 `QueueKeys`): one of each per queue whatever the traffic, so they need no
 * end. `events` is a stream BullMQ caps itself (`streams.events.maxLen`, 10,000 by default).
 */
const QUEUE_STRUCTURE = new Set([
  "id",
  "meta",
  "events",
  "wait",
  "paused",
  "active",
  "delayed",
  "prioritized",
  "pc",
  "marker",
  "completed",
  "failed",
  "stalled",
  "stalled-check",
  "limiter",
  "repeat",
  "waiting-children",
  "metrics:completed",
  "metrics:failed",
  "metrics:completed:data",
  "metrics:failed:data",
]);

/** The parts of a job's keys beside its hash (`<queue>:<jobId>:<part>`), removed with the job. */
const JOB_PARTS = new Set(["logs", "lock", "dependencies", "processed", "failed", "unsuccessful"]);

interface KeyReport {
  key: string;
  /** which of diffward's kinds, or `bullmq` */
  kind: string;
  /** PTTL: -1 no expiry, else ms left */
  pttl: number;
}

describe("Redis keys after real flows: each has a TTL, is BullMQ's under job retention, or is gone", () => {
  let h: Harness;
  const keys: KeyReport[] = [];
  const jobsWithoutRetention: string[] = [];
  let jobsChecked = 0;
  const unknown: string[] = [];
  let installationId = 0;

  const queueNames = Object.values(QUEUE_NAMES) as string[];
  const waitIdle = () =>
    h.waitFor(
      async () => {
        for (const q of Object.values(h.booted.rt.queues)) {
          // a flow has ended when none of its jobs waits, runs or is delayed (a debounced launch, a poll)
          const c = await q.getJobCounts("active", "wait", "prioritized", "waiting-children", "delayed");
          if (Object.values(c).some((n) => n > 0)) return false;
        }
        return true;
      },
      30_000,
      "every queue idle",
    );

  function closedPull(pr: Awaited<ReturnType<typeof openPull>>, head: string, merged: boolean): Payload {
    const p: Payload = webhookExample("pull_request", "closed");
    p.repository = pr.payload.repository;
    p.installation = pr.payload.installation;
    p.number = pr.number;
    p.pull_request = {
      ...pr.payload.pull_request,
      state: "closed",
      merged,
      merged_at: merged ? new Date().toISOString() : null,
      updated_at: new Date(Date.now() + 2_000).toISOString(),
    };
    p.pull_request.head = { ...pr.payload.pull_request.head, sha: head };
    return p;
  }

  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1 },
      boot: {
        Octokit: UnthrottledOctokit,
      },
    });

    // 1. A pull request opened → reported (with its code scanning upload) → triaged (`/fp`, a held
    //    dismissal and its approval) → merged.
    const head = sha(0x2101);
    const pr = await openPull(h, {
      head,
      repo: "keys-pr",
      private: true,
      config: demoConfig("codeScanning:\n  upload: true").replace("disclosure: full\n", ""),
    });
    await completedRun(h, pr.owner, pr.repo, head);
    installationId = pr.payload.installation.id as number;
    const at = { owner: pr.owner, repo: pr.repo, pullNumber: pr.number };
    const fp = await demoReplyCommand(h, at);
    expect(fp.resolutionStatus).toBe("FALSE_POSITIVE");
    const approved = await demoApproval(h, {
      ...at,
      defaultBranch: pr.payload.repository.default_branch,
      baseConfig: (extra) =>
        demoConfig(`codeScanning:\n  upload: true\n${extra}`).replace("disclosure: full\n", ""),
    });
    expect(approved.statusAfter).toBe("WONT_FIX");
    expect((await h.send("pull_request", closedPull(pr, head, true))).status).toBe(200);
    await h.waitFor(
      async () => (await h.booted.rt.stores.pulls.getPull(`${pr.owner}/${pr.repo}#${pr.number}`))?.closed,
      10_000,
      "merged pull request's state",
    );

    // 2. A merge group scanned (`mergeQueue: scan`), reported, then destroyed as merged.
    const { pr: queued, group } = queuedPull(
      h,
      {
        head: sha(0x2111),
        repo: "keys-mq",
        // a monthly cap: the launch reserves, binds and settles in the cap ledger
        config: demoConfig("mergeQueue: scan\ncreditCap:\n  monthly: 100000"),
      },
      { head: sha(0x2112), base: sha(0x2110) },
    );
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
    await completedRun(h, queued.owner, queued.repo, group.headSha, 30_000);
    const destroyed = mergeGroupPayload(h.github.state, group, "destroyed");
    (destroyed as { reason?: string }).reason = "merged";
    await h.send("merge_group", destroyed);
    await h.waitFor(
      async () =>
        (await h.booted.rt.stores.pulls.getGroup(groupKey(queued.owner, queued.repo, group.headSha)))
          ?.destroyed,
      10_000,
      "destroyed merge group's state",
    );

    // 3. A scan that fails on the service.
    const failing = await openPull(h, { head: sha(0x2121), repo: "keys-failed" });
    h.sandbox.state.forceScanOutcome(await launchedScan(h, sha(0x2121)), "FAILED");
    const failed = await completedRun(h, failing.owner, failing.repo, sha(0x2121));
    expect(failed.conclusion).toBe("failure");

    // 4. A fork's pull request waiting for approval, approved with "Scan anyway" (a one-time claim), reported.
    const forkHead = sha(0x2131);
    const fork = await openPull(h, {
      head: forkHead,
      repo: "keys-fork",
      send: false,
      permissions: { outsider: "read", maintainer: "maintain" },
    });
    fork.payload.pull_request.user = { ...fork.payload.pull_request.user, login: "outsider" };
    fork.payload.pull_request.head.repo = {
      ...fork.payload.pull_request.head.repo,
      id: 987_654,
      full_name: "outsider/fork",
      fork: true,
    };
    await h.send("pull_request", fork.payload);
    const waiting = await completedRun(h, fork.owner, fork.repo, forkHead);
    expect(waiting.conclusion).toBe("action_required");
    const click: Payload = webhookExample("check_run", "requested_action");
    click.repository = fork.payload.repository;
    click.installation = fork.payload.installation;
    click.check_run.id = waiting.id;
    click.check_run.head_sha = forkHead;
    click.check_run.pull_requests = [];
    click.requested_action = { identifier: "scan-anyway" };
    click.sender = { ...click.sender, login: "maintainer", type: "User" };
    await h.send("check_run", click);
    await h.waitFor(
      () =>
        h.github.state
          .checkRuns(fork.owner, fork.repo)
          .find((c) => c.headSha === forkHead && c.id !== waiting.id && c.status === "completed"),
      30_000,
      "the approved scan's report",
    );

    // 5. Another installation removes the app.
    const removed: Payload = webhookExample("installation", "deleted");
    removed.installation = { ...removed.installation, id: 424_242 };
    await h.send("installation", removed);
    await h.waitFor(
      () => h.booted.rt.stores.pulls.isInstallationRemoved(424_242),
      10_000,
      "uninstall recorded",
    );

    await waitIdle();

    // Every key of the harness (its queues and its state share the prefix).
    const redis = h.booted.rt.redis;
    let cursor = "0";
    const all: string[] = [];
    do {
      const [next, batch] = await redis.scan(cursor, "MATCH", `${h.prefix}:*`, "COUNT", 1000);
      cursor = next;
      all.push(...batch);
    } while (cursor !== "0");
    const own = Object.entries(REDIS_KEYS).map(([kind, k]) => ({
      kind,
      re: redisKeyRegExp(h.prefix, k.pattern),
    }));
    for (const key of all.sort()) {
      const rest = key.slice(h.prefix.length + 1);
      const queue = queueNames.find((q) => rest.startsWith(`${q}:`));
      const ownKind = own.find((o) => o.re.test(key))?.kind;
      if (ownKind) {
        keys.push({ key, kind: ownKind, pttl: await redis.pttl(key) });
        continue;
      }
      if (!queue) {
        unknown.push(key);
        continue;
      }
      const part = rest.slice(queue.length + 1);
      if (QUEUE_STRUCTURE.has(part) || part.startsWith("repeat:")) continue;
      const [id, sub] = part.split(/:(.*)/s) as [string, string | undefined];
      if (sub !== undefined) {
        if (!JOB_PARTS.has(sub)) unknown.push(key);
        continue;
      }
      // a job's hash: its retention must bound it
      const opts = JSON.parse((await redis.hget(key, "opts")) ?? "{}") as {
        removeOnComplete?: unknown;
        removeOnFail?: unknown;
      };
      const bounded = (v: unknown) =>
        v === true ||
        (typeof v === "number" && v >= 0) ||
        (typeof v === "object" && v !== null && ("age" in v || "count" in v));
      jobsChecked += 1;
      if (!bounded(opts.removeOnComplete) || !bounded(opts.removeOnFail))
        jobsWithoutRetention.push(`${queue}/${id}`);
    }
  }, 180_000);
  afterAll(async () => h?.close());

  it("ran the flows and found keys of diffward's own kinds", () => {
    const kinds = new Set(keys.map((k) => k.kind));
    for (const kind of [
      "pull",
      "group",
      "launch",
      "scanLink",
      "report",
      "completed",
      "sarif",
      "decisions",
      "approvals",
      "checkRunOwner",
      "commandClaim",
      "commandSent",
      "capMonth",
      "laneSent",
      "once",
      "uninstalled",
    ])
      expect(kinds).toContain(kind);
    expect(keys.length).toBeGreaterThan(20);
  });

  it("every key is of a kind src/runtime/names.ts lists (REDIS_KEYS) or BullMQ's", () => {
    expect(unknown).toEqual([]);
  });

  it("every key of diffward's own kinds has a TTL", () => {
    // PTTL -1: the key has no end; -2: it expired between the SCAN and the PTTL, which is an end, not a leak
    expect(keys.filter((k) => k.pttl === -1).map((k) => `${k.kind} ${k.key}`)).toEqual([]);
  });

  it("every BullMQ job carries removeOnComplete and removeOnFail", () => {
    expect(jobsChecked).toBeGreaterThan(10);
    expect(jobsWithoutRetention).toEqual([]);
  });

  it("no pull request or merge group lock outlives its flow", () => {
    expect(keys.filter((k) => k.kind === "pullLock" || k.kind === "groupLock").map((k) => k.key)).toEqual([]);
  });

  it("no scan is left in flight once every flow ended", async () => {
    expect(keys.filter((k) => k.kind === "inflight").map((k) => k.key)).toEqual([]);
    // the installation's in-flight set, read through diffward's own count (members past their deadline dropped)
    expect(await h.booted.rt.stores.scans.inflightCount(installationId)).toBe(0);
  });
});
