import fc from "fast-check";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { writeConversationComment } from "../../dev/harness/triage.js";
import { mergeGroupPayload } from "../../dev/github-standin/index.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import type { ScanRecord } from "../../dev/sandbox/state.js";
import { jobId, pullKey } from "../../src/runtime/names.js";
import { DiffwardOctokit } from "../../src/runtime/octokit.js";
import { type Payload, MERGE_BASE, checkRuns, openPull, sha } from "../support/pr.js";
import { propertyOptions, propertyRuns } from "../support/property.js";
import { JOBS } from "../../src/job-catalogue/index.js";

/**
 * Model-based (stateful) test of the pull-request lifecycle, with fast-check's
 * `fc.commands`: random sequences of pushes, force-pushes back to an earlier head, closes, merges, reopens,
 * re-runs, "Scan anyway" clicks (fork pull requests: `check_run.pull_requests` is empty, as GitHub sends it),
 * `/diffward rescan` and `/diffward cancel` from a maintainer, uninstalls, redeliveries, merge groups (the
 * pull request queued with `mergeQueue: scan`, dequeued after the group's scan completed) are sent as real
 * signed webhooks (payloads from `@octokit/webhooks-examples`) to the real app (Redis, the sandbox over HTTP,
 * the GitHub stand-in), between worker restarts, gaps in the tokens file (the organization's scanner token
 * missing for 0.1 to 1.5 s while the jobs under way run) and Redis flushes (every key gone, then reconcile, as after
 * state loss; no delivery is sent after a flush that followed an uninstall: GitHub sends a removed
 * installation nothing, and diffward no longer knows it was removed). Each sequence has its own repository
 * and installation. After each sequence settles (no job waiting, every check run completed unless the app
 * was uninstalled):
 * - no check run is left unfinished (unless the app was uninstalled);
 * - no key of diffward's own state is left without an expiry (each expires or is deleted when its flow ends),
 *   and no scan is still counted in the installation's scans in flight;
 * - no scan of the pull request is still queued or running on the service;
 * - every scan was either reported on a check run or cancelled by diffward (none ran for nothing, e.g. for
 *   a closed pull request or a superseded head), or had ended by itself (`COMPLETED`, `FAILED`: no cancel is
 *   due) when diffward stopped following it or GitHub dequeued its merge group;
 * - launches of one (head, merge base, preset) are at most the times that head was asked for (open, push,
 *   force-push back, reopen, re-run, Scan anyway; a rescan scans whatever head the pull request has when the
 *   command is processed, so it may count for any head), and all launches at most all requests: at most one
 *   launch per trigger generation;
 * - a report that was complete when the pull request was closed or merged is never rewritten afterwards;
 * - no report of a superseded head: the reports worker may fall behind (paused, then resumed) while events go
 *   on, and once a check run is concluded "Superseded by …" (or "Replaced by a new scan of this commit")
 *   nothing writes it again, no review lands on its commit until that commit is followed again (a new check
 *   run on it), and the stored report is never that check run's;
 * - no scan is cancelled after the service answered a read of it with a terminal status (spec §Scan status:
 *   a finished scan is never cancelled);
 * - after an uninstall is processed, nothing more is followed for the installation (a launch already on its
 *   way to the service cancels its scan at once);
 * - in sequences with a small `creditCap.monthly` (each on its own service repository), credits spent never
 *   exceed the cap.
 *
 * Runs `DW_MODEL_RUNS` sequences (default 200 in CI: 200 sequences plus the regression seeds took 229 s on the
 * 2-core machine shared with other test runs, measured with `REDIS_URL=… npx vitest run
 * test/e2e/lifecycle.model.test.ts`; 173 s before waits and the reports worker's pauses joined the random
 * commands, 121 s before merge groups and flushes did; by hand, e.g. `DW_MODEL_RUNS=1000`: 1,000 sequences passed in 373 s at
 * load average 1.4–3.7), generated from the fixed seed of `test/support/property.ts`; `npm run test:explore`
 * runs ten times as many from a random seed. One harness serves every sequence, each on a fresh repository;
 * the sandbox answers `Retry-After: 0` and diffward's `pollFloorMs` is 100 ms, so a sequence waits for real
 * scans without waiting whole seconds. Sequences that failed once are replayed first from `REGRESSIONS`; one seed is replayed
 * with `DW_MODEL_SEED=<seed> DW_MODEL_PATH=<path> DW_MODEL_RUNS=0` (both printed by fast-check on a failure).
 */

/**
 * Sequences that failed once, replayed on every run as written (a seed would name another sequence as soon
 * as a command is added to the model).
 */
const REGRESSIONS: Array<() => Array<fc.AsyncCommand<Model, Real>>> = [
  // push, /rescan: the rescan read the pushed head before the push's event was processed; the push then
  // launched a second scan and left the rescan's check run in progress (fixed in decideHead)
  () => [new Push(), new Say("rescan")],
  // /rescan, push, push: a rescan scans the head current when it is processed (the model's count)
  () => [new Say("rescan"), new Push(), new Push()],
  // restart, /rescan: the write lane's order counter was left with no expiry
  () => [new RestartWorkers(), new Say("rescan")],
  () => [new Close(false), new FlushRedis()],
  // a scan that completed before the close stopped it is not cancelled (spec §Scan status) nor reported: the
  // model counted it as paid for nothing until it read diffward's stop records
  () => [
    new Say("rescan"),
    new FlushRedis(),
    new Say("rescan"),
    new RestartWorkers(),
    new DequeueAfterScan(),
    new Close(false),
  ],
  // a flush, then a merge while the organization's token was missing: the close could send no cancel (no
  // token) and the scan, ended by then, was counted as paid for nothing
  () => [new FlushRedis(), new Close(true), new TokenGap(100)],
  // the reports worker behind: the old head's scan ended and its report waited while a push landed; the
  // report then completed the superseded check run, reviewed the old commit and stored its report
  () => [new PauseReports(), new Wait(), new Push(), new ResumeReports()],
  // merged after the report: the finished scan was cancelled (answered 400)
  () => [new Wait(), new Close(true)],
  // merged while the finished scan's report still waits
  () => [new PauseReports(), new Wait(), new Close(true), new ResumeReports()],
];

/** Sequences per run: the CI default fits a few minutes on a small machine; `DW_MODEL_RUNS` for long runs. */
const RUNS = Number(process.env.DW_MODEL_RUNS ?? 200);

/** The maintainer who clicks "Scan anyway" and writes commands; a fork's author has `read`. */
const MAINTAINER = "maintainer";
/** The account every sequence's repository belongs to (the `pull_request` example's owner). */
const ACCOUNT = (webhookExample("pull_request", "opened") as Payload).repository.owner.login as string;
const OUTSIDER = "outsider";

interface Model {
  /** the head lives in a fork (its author is an outsider: each head waits for "Scan anyway") */
  fork: boolean;
  /** heads pushed so far, in order (index 0 opened the pull request) */
  heads: string[];
  head: string;
  closed: boolean;
  merged: boolean;
  uninstalled: boolean;
  /** times each head was asked for (a trigger generation each), before any uninstall */
  follows: Map<string, number>;
  /** `/diffward rescan` commands sent before any uninstall (each scans the head current when processed) */
  rescans: number;
  /** head SHAs of the merge groups the pull request was queued in (each asked for once) */
  groups: string[];
  /**
   * Redis was flushed after the uninstall: diffward no longer knows of it, and GitHub sends a removed
   * installation nothing more, so no further delivery is sent
   */
  forgotten: boolean;
  /** the reports queue is paused: terminal scans' reports wait (a reports worker behind) */
  reportsPaused: boolean;
}

interface Real {
  h: Harness;
  pr: Awaited<ReturnType<typeof openPull>>;
  lastEvent: { name: string; payload: Payload; delivery: string };
  nextHead: () => string;
  /** check runs completed (not waiting for approval) when the pull request was closed or merged */
  kept: Map<number, { conclusion: string | null; title: string | null }>;
  uninstallDelivery?: string;
  /** when the uninstall job finished (ms since epoch), read before a Redis flush deletes the job */
  uninstallDoneAt?: number;
  /** scans that had ended when GitHub removed their merge group from the queue (nothing left to report on) */
  endedBeforeDequeue: Set<string>;
  /** scans diffward recorded a stop for (`scanend:<scanId>`), read before each Redis flush and at the end */
  stopped: Set<string>;
}

const follow = (m: Model, head: string) => {
  if (!m.uninstalled) m.follows.set(head, (m.follows.get(head) ?? 0) + 1);
};

async function send(r: Real, name: string, payload: Payload): Promise<void> {
  const delivery = randomUUID();
  r.lastEvent = { name, payload, delivery };
  await r.h.send(name, payload, delivery);
}

function pullEvent(r: Real, action: "synchronize" | "closed" | "reopened", head: string, merged = false) {
  const p: Payload = webhookExample("pull_request", action);
  p.repository = r.pr.payload.repository;
  p.installation = r.pr.payload.installation;
  p.number = r.pr.number;
  p.pull_request = {
    ...r.pr.payload.pull_request,
    state: action === "closed" ? "closed" : "open",
    merged,
    merged_at: merged ? new Date().toISOString() : null,
  };
  p.pull_request.head = { ...r.pr.payload.pull_request.head, sha: head };
  p.pull_request.updated_at = new Date(Date.now() + 1_000).toISOString();
  return p;
}

function standInPull(r: Real) {
  return r.h.github.state.pullRequest(r.pr.owner, r.pr.repo, r.pr.number)!;
}

async function moveHead(m: Model, r: Real, head: string): Promise<void> {
  m.head = head;
  follow(m, head);
  r.h.github.state.updatePullRequestHead({
    owner: r.pr.owner,
    repo: r.pr.repo,
    number: r.pr.number,
    sha: head,
    mergeBaseSha: MERGE_BASE,
  });
  await send(r, "pull_request", pullEvent(r, "synchronize", head));
}

class Push implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => !m.forgotten && !m.closed && m.heads.length < 4;
  async run(m: Model, r: Real) {
    const head = r.nextHead();
    m.heads.push(head);
    await moveHead(m, r, head);
  }
  toString = () => "push";
}

class PushBack implements fc.AsyncCommand<Model, Real> {
  constructor(readonly back: number) {}
  check = (m: Readonly<Model>) => !m.forgotten && !m.closed && m.heads.length > 1;
  async run(m: Model, r: Real) {
    const candidates = m.heads.filter((x) => x !== m.head);
    await moveHead(m, r, candidates[this.back % candidates.length]!);
  }
  toString = () => `pushBack(${this.back})`;
}

class Close implements fc.AsyncCommand<Model, Real> {
  constructor(readonly merged: boolean) {}
  check = (m: Readonly<Model>) => !m.forgotten && !m.closed;
  async run(m: Model, r: Real) {
    m.closed = true;
    m.merged = this.merged;
    for (const c of checkRuns(r.h, r.pr.owner, r.pr.repo))
      if (c.status === "completed" && c.conclusion !== "action_required")
        r.kept.set(c.id, { conclusion: c.conclusion, title: c.output.title });
    standInPull(r).state = "closed";
    await send(r, "pull_request", pullEvent(r, "closed", m.head, this.merged));
  }
  toString = () => (this.merged ? "merge" : "close");
}

class Reopen implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => !m.forgotten && m.closed && !m.merged; // GitHub cannot reopen a merged pull request
  async run(m: Model, r: Real) {
    m.closed = false;
    follow(m, m.head);
    standInPull(r).state = "open";
    await send(r, "pull_request", pullEvent(r, "reopened", m.head));
  }
  toString = () => "reopen";
}

/** A `check_run` event on the newest diffward check run of the head, as GitHub sends it. */
function checkRunEvent(
  m: Model,
  r: Real,
  action: "rerequested" | "requested_action",
  runId: number,
): Payload {
  const p: Payload = webhookExample("check_run", action);
  p.repository = r.pr.payload.repository;
  p.installation = r.pr.payload.installation;
  p.check_run.id = runId;
  p.check_run.head_sha = m.head;
  const repoRef = { id: r.pr.payload.repository.id, url: r.pr.payload.repository.url, name: r.pr.repo };
  // GitHub lists no pull request when the head is in a fork (REST "Check runs": `pull_requests`).
  p.check_run.pull_requests = m.fork
    ? []
    : [
        {
          number: r.pr.number,
          head: { sha: m.head, ref: "changes", repo: repoRef },
          base: { ref: "master", repo: repoRef },
        },
      ];
  p.sender = { ...p.sender, login: MAINTAINER, type: "User" };
  return p;
}

class Rerun implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => !m.forgotten && !m.closed;
  async run(m: Model, r: Real) {
    const run = checkRuns(r.h, r.pr.owner, r.pr.repo, m.head).at(-1);
    if (!run) return; // nothing to re-run yet: GitHub shows no button
    follow(m, m.head);
    await send(r, "check_run", checkRunEvent(m, r, "rerequested", run.id));
  }
  toString = () => "rerun";
}

class ScanAnyway implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => !m.forgotten && m.fork && !m.closed;
  async run(m: Model, r: Real) {
    const run = checkRuns(r.h, r.pr.owner, r.pr.repo, m.head).findLast((c) => c.actions.length > 0);
    if (!run) return; // no button shown (yet)
    follow(m, m.head);
    const p = checkRunEvent(m, r, "requested_action", run.id);
    p.requested_action = { identifier: "scan-anyway" };
    await send(r, "check_run", p);
  }
  toString = () => "scanAnyway";
}

class Say implements fc.AsyncCommand<Model, Real> {
  constructor(readonly verb: "rescan" | "cancel") {}
  check = (m: Readonly<Model>) => !m.forgotten && !m.closed;
  async run(m: Model, r: Real) {
    if (this.verb === "rescan" && !m.uninstalled) m.rescans += 1;
    const p = writeConversationComment(r.h, {
      owner: r.pr.owner,
      repo: r.pr.repo,
      pullNumber: r.pr.number,
      login: MAINTAINER,
      body: `/diffward ${this.verb}`,
    });
    await send(r, "issue_comment", p);
  }
  toString = () => `/${this.verb}`;
}

class Uninstall implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => !m.uninstalled;
  async run(m: Model, r: Real) {
    m.uninstalled = true;
    const p: Payload = webhookExample("installation", "deleted");
    p.installation.id = r.pr.payload.installation.id;
    p.installation.account.login = r.pr.owner;
    const delivery = randomUUID();
    r.uninstallDelivery = delivery;
    r.h.github.state.uninstall(p.installation.id as number); // GitHub lists it no more
    await r.h.send("installation", p, delivery);
  }
  toString = () => "uninstall";
}

class RestartWorkers implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real) {
    // A deploy: the workers stop (running jobs finish, waiting ones stay in Redis) and new ones start.
    const old = r.h.booted.workers.splice(0);
    await Promise.all(old.map((w) => w.close()));
    r.h.booted.startWorkers();
  }
  toString = () => "restartWorkers";
}

class FlushRedis implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    // Redis loses everything (a failover without persistence, a flush by hand): the workers stop, every key
    // of diffward and of its queues is gone, the workers start again and reconcile rebuilds what is in
    // flight from GitHub's check runs, as at a start-up after state loss.
    // Webhook deliveries still waiting in the events queue would be lost with it, and only GitHub's
    // redelivery brings those back (reconcile cannot know of an event it never saw): the flush comes once
    // the deliveries sent so far are processed. What they started (launches, polls, reports) is lost.
    const { events } = r.h.booted.rt.queues;
    await r.h.waitFor(
      async () => {
        const c = await events.getJobCounts("waiting", "active", "delayed", "prioritized");
        return Object.values(c).every((x) => x === 0);
      },
      20_000,
      "events processed before the flush",
    );
    // The uninstall's end is what the invariants compare launches with: read before its job is flushed.
    if (r.uninstallDelivery && r.uninstallDoneAt === undefined)
      r.uninstallDoneAt =
        (await events.getJob(jobId("uninstall", r.uninstallDelivery)))?.finishedOn ?? undefined;
    if (m.uninstalled) m.forgotten = true;
    const old = r.h.booted.workers.splice(0);
    await Promise.all(old.map((w) => w.close()));
    await readStops(r.h, r.stopped);
    await deleteKeys(r.h, "*");
    r.h.booted.startWorkers();
    await r.h.booted.reconcile();
  }
  toString = () => "flushRedis";
}

/**
 * The accounts whose scanner token is missing from the tokens file now (the harness reads the file's content
 * through `scannerTokens`, with no default token).
 */
const tokenGaps = new Set<string>();

class TokenGap implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: Model, r: Real) {
    // The organization's entry leaves the tokens file for a moment (the file rewritten by hand or by a
    // deploy): whatever runs meanwhile (the deliveries sent so far, their launches, polls and reports) finds
    // no token, then the entry is back.
    tokenGaps.add(r.pr.owner);
    try {
      await new Promise((resolve) => setTimeout(resolve, this.ms));
    } finally {
      tokenGaps.delete(r.pr.owner);
    }
  }
  toString = () => `tokenGap(${this.ms}ms)`;
}

class DequeueAfterScan implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => !m.forgotten && !m.uninstalled && !m.closed;
  async run(m: Model, r: Real) {
    // The pull request enters the merge queue (`mergeQueue: scan`: the group is scanned), the group's scan
    // completes, then GitHub removes the group from the queue (`merge_group.destroyed`, `dequeued`).
    const headSha = r.nextHead();
    m.groups.push(headSha);
    follow(m, headSha);
    const { owner, repo, number } = r.pr;
    const group = r.h.github.state.addMergeGroup({
      owner,
      repo,
      pullNumber: number,
      headSha,
      baseSha: MERGE_BASE,
    });
    await send(r, "merge_group", mergeGroupPayload(r.h.github.state, group, "checks_requested"));
    const sandbox = r.h.sandbox.state;
    const ended = await r.h.waitFor(
      () => {
        const scan = [...sandbox.scans.values()].find((s) => s.commitHash === headSha);
        // no scan when the group's check run ended first (a missing token, the monthly cap)
        if (!scan) return checkRuns(r.h, owner, repo, headSha).some((c) => c.status === "completed");
        return TERMINAL.includes(sandbox.statusOf(scan)) ? scan : false;
      },
      20_000,
      "the merge group's scan completed",
    );
    if (typeof ended === "object") r.endedBeforeDequeue.add(ended.id);
    r.h.github.state.destroyMergeGroup(owner, repo, headSha, "dequeued");
    await send(r, "merge_group", mergeGroupPayload(r.h.github.state, group, "destroyed"));
  }
  toString = () => "mergeGroupDequeuedAfterScan";
}

class PauseReports implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => !m.reportsPaused;
  async run(m: Model, r: Real) {
    // The reports worker falls behind: terminal scans' reports wait in their queue while events go on.
    m.reportsPaused = true;
    await r.h.booted.rt.queues.reports.pause();
  }
  toString = () => "pauseReports";
}

class ResumeReports implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => m.reportsPaused;
  async run(m: Model, r: Real) {
    m.reportsPaused = false;
    await r.h.booted.rt.queues.reports.resume();
  }
  toString = () => "resumeReports";
}

class Wait implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    // Time passes: diffward runs every job it can (reports too, unless their worker is behind) and the scans
    // of the pull request's heads end on the service.
    await r.h.waitFor(
      async () =>
        (await queuesIdle(r.h, { reports: !m.reportsPaused })) &&
        [...r.h.sandbox.state.scans.values()]
          .filter((s) => m.heads.includes(s.commitHash))
          .every((s) => TERMINAL.includes(r.h.sandbox.state.statusOf(s))),
      20_000,
      "diffward caught up and the scans ended",
    );
  }
  toString = () => "wait";
}

class Redeliver implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => !m.forgotten;
  async run(_m: Model, r: Real) {
    // GitHub's "Redeliver": the same delivery id and payload again; nothing new may be launched.
    await r.h.send(r.lastEvent.name, r.lastEvent.payload, r.lastEvent.delivery);
  }
  toString = () => "redeliver";
}

const commands = [
  fc.constant(new Push()),
  fc.nat({ max: 3 }).map((n) => new PushBack(n)),
  fc.constant(new Close(false)),
  fc.constant(new Close(true)),
  fc.constant(new Reopen()),
  fc.constant(new Rerun()),
  fc.constant(new ScanAnyway()),
  fc.constant(new Say("rescan")),
  fc.constant(new Say("cancel")),
  fc.constant(new Uninstall()),
  fc.constant(new RestartWorkers()),
  fc.constant(new Redeliver()),
  fc.constant(new FlushRedis()),
  fc.constantFrom(100, 600, 1_500).map((ms) => new TokenGap(ms)),
  fc.constant(new DequeueAfterScan()),
  fc.constant(new Wait()),
  fc.constant(new PauseReports()),
  fc.constant(new ResumeReports()),
];

/** Adds to `into` the scans diffward recorded a stop for (`scanend:<scanId>` with a `stop`). */
async function readStops(h: Harness, into: Set<string>): Promise<void> {
  for (const key of await stateKeys(h, "scanend:*")) {
    const scanId = key.slice(`${h.prefix}:scanend:`.length);
    if ((await h.booted.rt.stores.scans.getScanEnd(scanId)).stop) into.add(scanId);
  }
}

/** Deletes the harness's keys matching `pattern` after its prefix. */
async function deleteKeys(h: Harness, pattern: string): Promise<void> {
  for (const key of await stateKeys(h, pattern)) await h.booted.rt.redis.del(key);
}

/** The harness's keys matching `pattern` after its prefix (one slot: the prefix is a hash tag). */
async function stateKeys(h: Harness, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, found] = await h.booted.rt.redis.scan(
      cursor,
      "MATCH",
      `${h.prefix}:${pattern}`,
      "COUNT",
      1000,
    );
    cursor = next;
    keys.push(...found);
  } while (cursor !== "0");
  return keys;
}

const TERMINAL = ["COMPLETED", "FAILED", "CANCELLED"];

/** A check-run write that concludes it as superseded by a newer head or a new scan of the same head. */
function isSupersededOutput(body: { conclusion?: string; output?: { title?: string } }): boolean {
  const title = body.output?.title ?? "";
  return (
    body.conclusion === "cancelled" &&
    (title.startsWith("Superseded by ") || title === "Replaced by a new scan of this commit")
  );
}

/**
 * No event, launch, poll or report job waiting, delayed or running (a ledger `settle` look may still wait);
 * `reports: false` leaves the reports queue out (its worker is behind on purpose).
 */
async function queuesIdle(h: Harness, o: { reports?: boolean } = {}): Promise<boolean> {
  const { events, launch, scans, reports } = h.booted.rt.queues;
  const states = ["waiting", "active", "delayed", "prioritized", "waiting-children"] as const;
  for (const q of o.reports === false ? [events, launch] : [events, launch, reports]) {
    const counts = await q.getJobCounts(...states);
    if (Object.values(counts).some((c) => c > 0)) return false;
  }
  const pending = await scans.getJobs([...states]);
  return pending.every((j) => j.name === JOBS.settle.name);
}

describe("pull-request lifecycle, model-based", () => {
  let h: Harness;
  let n = 0;

  beforeAll(async () => {
    // Fast timing, one harness for every sequence (fresh repository per sequence): the sandbox answers
    // `Retry-After: 0` (whole seconds, as the spec says) and diffward's poll floor is lowered to match.
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 150, retryAfterSeconds: 0, seed: 91 },
      settings: { firstPollDelayMs: 100, pollFloorMs: 100, pollMarginMs: 0 },
      // The throttling plugin paces one GitHub write per second in the process; the stand-in enforces no
      // secondary limit here, so the pacing is turned off (as other end-to-end tests do) to keep the timing short.
      // no default token: each account's comes from the tokens file, whose entries TokenGap takes away
      boot: {
        scannerToken: undefined,
        scannerTokens: () =>
          Object.fromEntries([ACCOUNT].filter((a) => !tokenGaps.has(a)).map((a) => [a, "sandbox-token"])),
        Octokit: DiffwardOctokit.defaults((o: Record<string, unknown>) => ({
          ...o,
          throttle: { ...(o.throttle as object), enabled: false },
        })) as typeof DiffwardOctokit,
      },
    });
  });
  afterAll(async () => h?.close());

  async function runSequence(
    fork: boolean,
    cap: number | undefined,
    cmds: Iterable<fc.AsyncCommand<Model, Real>>,
  ): Promise<void> {
    const id = ++n;
    const what = `sequence ${id} (${fork ? "fork, " : ""}${cap ? `cap ${cap}, ` : ""}${[...cmds].map(String).join(", ")})`;
    // A capped sequence scans its own service repository, so its month's spend is its own.
    const repositoryId = cap ? `repo_model_${id}` : "repo_demo";
    if (cap) h.sandbox.state.addRepository({ id: repositoryId, readiness: "ready" });
    let headCounter = 0;
    const nextHead = () => sha(0x5000_0000 + id * 16 + ++headCounter);
    const first = nextHead();
    const pr = await openPull(h, {
      head: first,
      repo: `model-${id}`,
      installationId: 70_000 + id,
      config: demoConfig(
        ["mergeQueue: scan", ...(cap ? [`creditCap:\n  monthly: ${cap}`] : [])].join("\n"),
      ).replace("repo_demo", repositoryId),
      permissions: { [OUTSIDER]: "read", [MAINTAINER]: "maintain" },
      send: false,
    });
    if (fork) {
      pr.payload.pull_request.user = { ...pr.payload.pull_request.user, login: OUTSIDER };
      pr.payload.pull_request.head.repo = {
        ...pr.payload.pull_request.head.repo,
        id: 987_654,
        full_name: `${OUTSIDER}/fork`,
        fork: true,
      };
    }
    const model: Model = {
      fork,
      heads: [first],
      head: first,
      closed: false,
      merged: false,
      uninstalled: false,
      follows: new Map([[first, 1]]),
      rescans: 0,
      groups: [],
      forgotten: false,
      reportsPaused: false,
    };
    const real: Real = {
      h,
      pr,
      lastEvent: { name: "pull_request", payload: pr.payload, delivery: randomUUID() },
      nextHead,
      kept: new Map(),
      endedBeforeDequeue: new Set(),
      stopped: new Set(),
    };
    await h.send("pull_request", pr.payload, real.lastEvent.delivery);
    try {
      await fc.asyncModelRun(() => ({ model, real }), cmds);
    } finally {
      // the reports worker catches up (the harness serves every sequence)
      await h.booted.rt.queues.reports.resume();
    }

    const scansOfPull = (): ScanRecord[] =>
      [...h.sandbox.state.scans.values()].filter(
        (s) => model.heads.includes(s.commitHash) || model.groups.includes(s.commitHash),
      );
    const status = (s: ScanRecord) => h.sandbox.state.statusOf(s);
    await h
      .waitFor(
        async () => {
          if (!(await queuesIdle(h))) return false;
          const runs = checkRuns(h, pr.owner, pr.repo);
          if (!model.uninstalled && !runs.every((c) => c.status === "completed")) return false;
          // a capped sequence also waits for every scan's spend to settle in the service's ledger
          return scansOfPull().every((s) => TERMINAL.includes(status(s)) && (!cap || s.settled));
        },
        30_000,
        `${what} settled`,
      )
      .catch((error: Error) => {
        const runs = checkRuns(h, pr.owner, pr.repo).map(
          (c) => `${c.headSha.slice(0, 8)}:${c.status}/${c.conclusion}`,
        );
        const writes = h.github.requests
          .filter((q) => q.path.includes(`/${pr.repo}`) && q.method !== "GET")
          .map(
            (q) => `${q.method} ${q.path.split(`/${pr.repo}/`)[1]} ${JSON.stringify(q.body).slice(0, 120)}`,
          );
        throw new Error(`${error.message}; check runs: ${runs.join(" ")}; writes:\n${writes.join("\n")}`);
      });

    const runs = checkRuns(h, pr.owner, pr.repo);
    const scans = scansOfPull();
    // No check run unfinished (unless the app was uninstalled: GitHub takes no write of it any more).
    if (!model.uninstalled)
      expect(
        runs.filter((c) => c.status !== "completed").map((c) => c.id),
        `${what}: check runs unfinished`,
      ).toEqual([]);
    // No scan left counted in flight: each stop, report or lost scan left the installation's set.
    expect(
      await h.booted.rt.stores.scans.inflightScans(70_000 + id),
      `${what}: scans still counted in flight`,
    ).toEqual([]);
    // No key without an end: every key of diffward's own state (not BullMQ's, which prunes its jobs by
    // `removeOnComplete`/`removeOnFail`) expires or was deleted when its flow ended.
    const endless: string[] = [];
    for (const key of await stateKeys(h, "*")) {
      if (key.startsWith(`${h.prefix}:diffward-`)) continue;
      if ((await h.booted.rt.redis.pttl(key)) === -1) endless.push(key.slice(h.prefix.length + 1));
    }
    expect(endless, `${what}: diffward keys with no expiry`).toEqual([]);
    // Every scan was reported on a check run or cancelled by diffward: none ran for nothing. A scan that ended
    // by itself (COMPLETED or FAILED: it can no longer be cancelled, spec §Scan status) may go unreported
    // when diffward stopped following it (a newer head, a close) or GitHub dequeued its merge group.
    await readStops(h, real.stopped);
    for (const s of scans) {
      const reported = runs.some(
        (c) => c.externalId === s.id && c.status === "completed" && c.conclusion !== "cancelled",
      );
      const endedUnfollowed =
        ["COMPLETED", "FAILED"].includes(status(s)) &&
        (real.stopped.has(s.id) || real.endedBeforeDequeue.has(s.id));
      expect(
        reported || s.cancelRequests > 0 || endedUnfollowed,
        `${what}: scan ${s.id} of ${s.commitHash.slice(0, 8)} ended ${status(s)}, neither reported nor cancelled`,
      ).toBe(true);
      // the merge base GitHub reported is the one every scan used
      expect(s.baseCommit).toBe(MERGE_BASE);
    }
    // At most one launch per (head, merge base, preset) and trigger generation.
    const launches = new Map<string, number>();
    for (const s of scans) {
      const key = `${s.commitHash} ${s.baseCommit} ${s.presetRef}`;
      launches.set(key, (launches.get(key) ?? 0) + 1);
    }
    for (const [key, count] of launches) {
      const times = (model.follows.get(key.split(" ")[0]!) ?? 0) + model.rescans;
      expect(count, `${what}: launches of ${key.slice(0, 8)} (asked for ${times} times)`).toBeLessThanOrEqual(
        times,
      );
    }
    const asked = [...model.follows.values()].reduce((a, b) => a + b, 0) + model.rescans;
    expect(scans.length, `${what}: launches (asked for ${asked} times)`).toBeLessThanOrEqual(asked);
    // Spend never exceeds `creditCap.monthly` (credits spent, refunds deducted, in the sandbox's ledger).
    if (cap) {
      const spent = scans.reduce((sum, s) => sum + (s.spentCredits ?? 0) - s.refundedCredits, 0);
      expect(spent, `${what}: credits spent under creditCap.monthly ${cap}`).toBeLessThanOrEqual(cap);
    }
    // A report complete at close or merge time is never rewritten afterwards.
    for (const [runId, kept] of real.kept) {
      const now = runs.find((c) => c.id === runId)!;
      expect(
        { conclusion: now.conclusion, title: now.output.title },
        `${what}: check run ${runId} after the close`,
      ).toEqual(kept);
    }
    // No report of a superseded head: once a check run is concluded as superseded, nothing writes it again,
    // and no review lands on its commit until that commit is followed again (a new check run created on it).
    const writes = h.github.requests.filter(
      (q) => q.method !== "GET" && q.path.startsWith(`/repos/${pr.owner}/${pr.repo}/`),
    );
    const headOf = new Map(runs.map((c) => [c.id, c.headSha]));
    const superseded = new Set<number>();
    for (const [i, q] of writes.entries()) {
      const id = Number(/\/check-runs\/(\d+)$/.exec(q.path)?.[1]);
      const body = q.body as { conclusion?: string; output?: { title?: string } };
      if (q.method !== "PATCH" || !id || !isSupersededOutput(body)) continue;
      superseded.add(id);
      const head = headOf.get(id)!;
      const later = writes.slice(i + 1);
      expect(
        later.filter((x) => x.path === q.path).map((x) => x.body),
        `${what}: check run ${id} (${head.slice(0, 8)}) written after it was superseded`,
      ).toEqual([]);
      const again = later.findIndex(
        (x) =>
          x.method === "POST" &&
          x.path.endsWith("/check-runs") &&
          (x.body as { head_sha?: string }).head_sha === head,
      );
      expect(
        (again < 0 ? later : later.slice(0, again)).filter(
          (x) => x.path.endsWith("/reviews") && (x.body as { commit_id?: string }).commit_id === head,
        ),
        `${what}: review on ${head.slice(0, 8)} after its check run ${id} was superseded`,
      ).toEqual([]);
    }
    const stored = await h.booted.rt.stores.reports.get(pullKey(pr.owner, pr.repo, pr.number));
    expect(
      stored && superseded.has(stored.checkRunId),
      `${what}: the stored report is the superseded check run ${stored?.checkRunId}'s`,
    ).toBeFalsy();
    // A finished scan is never cancelled: no cancel after the service answered a read with a terminal status.
    for (const s of scans)
      expect(s.cancelsAfterEndRead, `${what}: scan ${s.id} cancelled after it was read ended`).toBe(0);
    // Once the uninstall is processed, nothing more is followed for the installation: a launch that was
    // already on its way to the service when it ran cancels its scan at once and reports nothing.
    if (real.uninstallDelivery) {
      const job = await h.booted.rt.queues.events.getJob(jobId("uninstall", real.uninstallDelivery));
      const doneAt = real.uninstallDoneAt ?? job?.finishedOn ?? 0;
      expect(doneAt, `${what}: uninstall processed`).toBeGreaterThan(0);
      for (const s of scans.filter((x) => x.createdAtMs > doneAt)) {
        expect(
          s.cancelRequests,
          `${what}: scan ${s.id} launched after the uninstall, not cancelled`,
        ).toBeGreaterThan(0);
        expect(
          runs.filter(
            (c) => c.externalId === s.id && c.status === "completed" && c.conclusion !== "cancelled",
          ),
        ).toEqual([]);
      }
    }
  }

  it(
    "random sequences of pull-request events, clicks, commands, uninstalls, redeliveries and worker restarts settle with every check run completed and no scan paid for nothing or twice",
    async () => {
      const property = fc.asyncProperty(
        fc.boolean(),
        // a small `creditCap.monthly` in some sequences (the diff preset needs at least 10 credits a scan)
        fc.option(fc.constantFrom(12, 25, 40), { nil: undefined, freq: 3 }),
        fc.commands(commands, { maxCommands: 6 }),
        (fork, cap, cmds) => runSequence(fork, cap, cmds),
      );
      if (process.env.DW_MODEL_SEED) {
        const path = process.env.DW_MODEL_PATH;
        await fc.assert(property, {
          seed: Number(process.env.DW_MODEL_SEED),
          ...(path ? { path } : {}),
          numRuns: 1,
          endOnFailure: true,
        });
      } else for (const sequence of REGRESSIONS) await runSequence(false, undefined, sequence());
      await fc.assert(property, propertyOptions(RUNS, { endOnFailure: true, verbose: 1 }));
    },
    propertyRuns(RUNS) * 30_000 + 60_000,
  );
});
