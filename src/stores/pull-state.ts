import { Cluster } from "ioredis";
import { DEFAULT_STATE_PREFIX, type RedisConnection } from "../runtime/connection.js";
import { takeLock } from "../runtime/renewed-lock.js";

/** What diffward remembers of one pull request between jobs (Redis, JSON). */
export interface PullState {
  installationId: number;
  owner: string;
  repo: string;
  pullNumber: number;
  /** the head SHA diffward is following; older heads are superseded */
  headSha: string;
  /** `pull_request.updated_at` of the event that set `headSha` (ISO), to drop out-of-order deliveries */
  updatedAt?: string;
  /**
   * When diffward received the request that set `headSha`, ms since the epoch: the BullMQ add time of its
   * `pull-request` job (the webhook delivery, a re-run, a rescan, a reconciliation), never a payload's
   * timestamp. The organization's page measures "push → report" from it.
   */
  receivedAt?: number;
  mergeBase?: string;
  checkRunId?: number;
  launchKey?: string;
  launchJobId?: string;
  scanId?: string;
  projectId?: string;
  closed?: boolean;
  /** the explicit request (re-run, rescan) that set this state, so a retried job does not repeat it */
  explicitNonce?: string;
  /**
   * The head's launch was asked by a **Re-run** button (`check_run` or `check_suite` `rerequested`): further
   * Re-runs of this head launch nothing while its scan is queued or running.
   */
  rerun?: boolean;
  /**
   * A later Re-run of this head (by a GitHub login) launched nothing because this one's scan was queued or
   * running: the launch's own check-run write says so too, so the answer stands whichever is written first.
   */
  rerunAgain?: { by?: string };
  /**
   * How many times a head was followed for this pull request (1, 2, …). A head that comes back (reopen,
   * force-push back to an earlier SHA) is a new generation, and its launch job gets a new BullMQ job id:
   * BullMQ keeps completed jobs and ignores an add with a used id (BullMQ docs "Job Ids").
   */
  generation?: number;
}

/**
 * The state a pull request event starts: its installation, repository and number, the head it names and that
 * event's `pull_request.updated_at` (ISO).
 */
export function pullStateAt(
  pull: Pick<PullState, "installationId" | "owner" | "repo" | "pullNumber">,
  headSha: string,
  updatedAt: string,
): PullState {
  const { installationId, owner, repo, pullNumber } = pull;
  return { installationId, owner, repo, pullNumber, headSha, updatedAt };
}

/** The pull request a check run of diffward's belongs to, recorded when the check run is created. */
export interface CheckRunOwner {
  pullNumber: number;
  headSha: string;
}

/**
 * What diffward remembers of one merge group (Redis `mg:<owner/repo@headSha>`, JSON): its check run and,
 * when the group is scanned, the launch and scan, like {@link PullState} for a pull request.
 */
export interface GroupState {
  installationId: number;
  owner: string;
  repo: string;
  /** `merge_group.head_sha`: the commit the group's check run is on */
  headSha: string;
  /** the pull request named in `merge_group.head_ref`, when the ref parses */
  pullNumber?: number;
  checkRunId?: number;
  /** the check run was concluded by diffward (skip, reuse, an early refusal): nothing runs */
  concluded?: boolean;
  launchKey?: string;
  launchJobId?: string;
  scanId?: string;
  projectId?: string;
  /** GitHub sent `merge_group.destroyed`: nothing more is done for this group */
  destroyed?: boolean;
}

/**
 * Why diffward stopped following a scan: a newer head (`bySha`; `sameHead` for an explicit request of the
 * same commit, Re-run, Scan anyway or rescan, which replaces the scan), the pull request closed, or the app
 * uninstalled.
 */
export type ScanStop =
  { kind: "superseded"; bySha: string; sameHead?: boolean } | { kind: "closed" } | { kind: "uninstalled" };

/** A scan status that never changes again (spec §Scan status: `COMPLETED`, `FAILED` and `CANCELLED`). */
export type EndedScanStatus = "COMPLETED" | "FAILED" | "CANCELLED";

/**
 * What diffward knows of a scan's end (Redis hash `scanend:<scanId>`, kept {@link SCAN_END_TTL_SECONDS}):
 * the terminal status it read from the service, and why diffward stopped following it. Either may be
 * absent; both may be set (a scan that completed, then its head was superseded before the report).
 */
export interface ScanEnd {
  status?: EndedScanStatus;
  stop?: ScanStop;
  /** the GitHub login whose `/diffward cancel` cancelled the scan */
  cancelledBy?: string;
}

/** How long a scan's end record is kept, in seconds: as long as a pull request's state may name the scan (90 days). */
export const SCAN_END_TTL_SECONDS = 60 * 60 * 24 * 90;

/**
 * Stores the report state of a pull request unless its scan was stopped (KEYS[1] the scan's end record,
 * KEYS[2] the report state; ARGV the JSON and its TTL in seconds): the check and the write are one step, so
 * a stop recorded before it always wins. Returns 1 when stored.
 */
const PUT_REPORT_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], 'stop') == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'EX', tonumber(ARGV[2]))
return 1
`;

/** The launch record of one launch key: the guard against paying twice. */
export interface LaunchRecord {
  /** ms since epoch when a launch POST was first attempted; set before the POST is sent */
  attemptStartedAt?: number;
  scanId?: string;
  projectId?: string;
  creditBudget?: number;
}

/**
 * When the launch key's last POST was sent without its outcome being known (a timeout, a 5xx or no answer after
 * sending, a crash): the attempt's start, ms since epoch; `undefined` when no attempt is pending (none made, a
 * definite refusal, or the scan is recorded). The scan may exist and spend until the service's scan list says
 * otherwise. Pure.
 */
export function unknownOutcomeSince(record: LaunchRecord): number | undefined {
  return record.scanId ? undefined : record.attemptStartedAt;
}

/** Where a scan is reported (for cancel on uninstall, and for commands). */
export interface ScanLink {
  scanId: string;
  projectId: string;
  installationId: number;
  accountLogin: string;
  owner: string;
  repo: string;
  pullNumber: number;
  headSha: string;
  checkRunId: number;
  /** set when the scan is a merge group's (its `headSha` is the group's): no pull request state to touch */
  mergeGroup?: boolean;
  /** set when the scan is a default-branch baseline (`pullNumber` 0): no pull request state to touch */
  baseline?: boolean;
}

/**
 * How long a scan counts as in flight at most after it was linked, in ms (26 hours): its longest run
 * (`scanTimeoutMinutes` is at most 1,440; the poll cancels it then) and two hours for its report. Every path
 * that stops following a scan finishes it ({@link PullStateStore.finishScan}); the deadline ends the ones a
 * crash left behind, so they do not count against the installation's hourly write budget for ever.
 */
export const INFLIGHT_LEASE_MS = 26 * 3600_000;

/**
 * The installation's scans in flight, `{prefix}:inflight:<installationId>`: a sorted set of scan ids scored by
 * their deadline (ms since the epoch, Redis's clock), whose key expires with its latest deadline. A plain set
 * left by an earlier version is first converted (each member gets a full lease from now), then members past
 * their deadline are dropped. ARGV: `add` | `remove` | `list` | `count`, the lease (ms), the scan id (add,
 * remove). Returns the scan ids in flight, or their number (`count`).
 */
const INFLIGHT_SCRIPT = `
local k, op, lease, id = KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('TYPE', k).ok == 'set' then
  local old = redis.call('SMEMBERS', k)
  redis.call('DEL', k)
  for _, m in ipairs(old) do redis.call('ZADD', k, now + lease, m) end
  redis.call('PEXPIRE', k, lease)
end
redis.call('ZREMRANGEBYSCORE', k, '-inf', now)
if op == 'add' then
  redis.call('ZADD', k, now + lease, id)
  redis.call('PEXPIRE', k, lease)
elseif op == 'remove' then
  redis.call('ZREM', k, id)
elseif op == 'count' then
  return redis.call('ZCARD', k)
end
return redis.call('ZRANGE', k, 0, -1)
`;

/**
 * How long the state marker (`{prefix}:swept`) lives after its last write, in seconds (90 days: the longest
 * life of a pull request's state). Every reconciliation writes it again, so it ends only when diffward does
 * not start for that long, or with the state (a flush, a new Redis).
 */
export const SWEPT_MARKER_TTL_SECONDS = 60 * 60 * 24 * 90;

/**
 * diffward's Redis state beside BullMQ's own keys. Every key starts with `prefix` so tests (and several
 * deployments on one Redis) never collide. The default prefix is a cluster hash tag (`{dw}`), so every key
 * of this store is in one Redis Cluster slot and its multi-key operations (the MULTI of `linkScan`) are
 * allowed there; other prefixes must carry a hash tag too on a cluster (`assertClusterPrefixes`).
 */
export class PullStateStore {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix = DEFAULT_STATE_PREFIX,
    /** how long a pull request's lock outlives a dead holder, in ms (tests shorten it with worker timing) */
    readonly lockTtlMs = 60_000,
    /** how long a linked scan counts as in flight at most, in ms ({@link INFLIGHT_LEASE_MS}; tests shorten it) */
    readonly inflightLeaseMs = INFLIGHT_LEASE_MS,
  ) {}

  #k(...parts: Array<string | number>): string {
    return [this.prefix, ...parts].join(":");
  }

  async getPull(key: string): Promise<PullState | undefined> {
    const raw = await this.redis.get(this.#k("pr", key));
    return raw ? (JSON.parse(raw) as PullState) : undefined;
  }

  async setPull(key: string, state: PullState): Promise<void> {
    await this.redis.set(this.#k("pr", key), JSON.stringify(state), "EX", 60 * 60 * 24 * 90);
  }

  async getGroup(key: string): Promise<GroupState | undefined> {
    const raw = await this.redis.get(this.#k("mg", key));
    return raw ? (JSON.parse(raw) as GroupState) : undefined;
  }

  /** Stores a merge group's state; kept 30 days (a group lives minutes to hours). */
  async setGroup(key: string, state: GroupState): Promise<void> {
    await this.redis.set(this.#k("mg", key), JSON.stringify(state), "EX", 60 * 60 * 24 * 30);
  }

  async deletePull(key: string): Promise<void> {
    await this.redis.del(this.#k("pr", key));
  }

  /**
   * Runs `fn` holding the pull request's lock (Redis `SET NX PX`), so two workers never decide about the
   * same pull request at once. Throws {@link LockBusyError} when another holder has it; the job retries.
   * While `fn` runs, the lock is renewed every third of `ttlMs` (only while it is still ours), so a holder
   * that waits longer than `ttlMs` (a write waiting its turn in the installation's write lane, a slow
   * service) keeps it, and a dead holder's lock still expires after `ttlMs`.
   * @param ttlMs how long the lock survives a dead holder, in ms.
   */
  async withPullLock<T>(key: string, fn: () => Promise<T>, ttlMs = this.lockTtlMs): Promise<T> {
    const lock = await takeLock(this.redis, this.#k("lock", key), ttlMs);
    if (lock === undefined) throw new LockBusyError(key);
    try {
      return await fn();
    } finally {
      await lock.release();
    }
  }

  async getLaunch(launchKey: string): Promise<LaunchRecord> {
    const h = await this.redis.hgetall(this.#k("launch", launchKey));
    return {
      ...(h.attemptStartedAt ? { attemptStartedAt: Number(h.attemptStartedAt) } : {}),
      ...(h.scanId ? { scanId: h.scanId } : {}),
      ...(h.projectId ? { projectId: h.projectId } : {}),
      ...(h.creditBudget ? { creditBudget: Number(h.creditBudget) } : {}),
    };
  }

  /** Forgets a launch key (its scan was cancelled): the same head may be launched again later. */
  async deleteLaunch(launchKey: string): Promise<void> {
    await this.redis.del(this.#k("launch", launchKey));
  }

  /** Records that a launch POST is about to be sent (kept when the outcome is unknown). */
  async markLaunchAttempt(launchKey: string, at: number): Promise<void> {
    const k = this.#k("launch", launchKey);
    await this.redis
      .multi()
      .hsetnx(k, "attemptStartedAt", String(at))
      .expire(k, 60 * 60 * 24 * 30)
      .exec();
  }

  /** Forgets an attempt the service answered with a definite refusal (nothing was created). */
  async clearLaunchAttempt(launchKey: string): Promise<void> {
    await this.redis.hdel(this.#k("launch", launchKey), "attemptStartedAt");
  }

  async recordLaunch(launchKey: string, rec: { scanId: string; projectId: string; creditBudget?: number }) {
    const k = this.#k("launch", launchKey);
    await this.redis
      .multi()
      .hset(k, {
        scanId: rec.scanId,
        projectId: rec.projectId,
        ...(rec.creditBudget !== undefined ? { creditBudget: String(rec.creditBudget) } : {}),
      })
      .expire(k, 60 * 60 * 24 * 30)
      .exec();
  }

  /**
   * Records where a scan is reported (the scan link, kept 30 days) and adds it to the installation's scans in
   * flight, until {@link finishScan} or its deadline ({@link INFLIGHT_LEASE_MS} from now), in one MULTI.
   */
  async linkScan(link: ScanLink): Promise<void> {
    await this.redis
      .multi()
      .set(this.#k("scan", link.scanId), JSON.stringify(link), "EX", 60 * 60 * 24 * 30)
      .eval(
        INFLIGHT_SCRIPT,
        1,
        this.#k("inflight", link.installationId),
        "add",
        this.inflightLeaseMs,
        link.scanId,
      )
      .exec();
  }

  async getScanLink(scanId: string): Promise<ScanLink | undefined> {
    const raw = await this.redis.get(this.#k("scan", scanId));
    return raw ? (JSON.parse(raw) as ScanLink) : undefined;
  }

  /**
   * Forgets a scan in flight (reported, cancelled, superseded, lost, no longer followed): removes it from the
   * installation's scans in flight.
   */
  async finishScan(installationId: number, scanId: string): Promise<void> {
    await this.redis.eval(
      INFLIGHT_SCRIPT,
      1,
      this.#k("inflight", installationId),
      "remove",
      this.inflightLeaseMs,
      scanId,
    );
  }

  /**
   * The installation's scans in flight (every process): linked and neither finished nor past their deadline.
   * The uninstall job cancels them; their number ({@link inflightCount}) sizes the hourly write budget
   * (`src/runtime/writes.ts`).
   */
  async inflightScans(installationId: number): Promise<string[]> {
    return (await this.redis.eval(
      INFLIGHT_SCRIPT,
      1,
      this.#k("inflight", installationId),
      "list",
      this.inflightLeaseMs,
    )) as string[];
  }

  /** How many scans the installation has in flight ({@link inflightScans} without reading them). */
  async inflightCount(installationId: number): Promise<number> {
    return Number(
      await this.redis.eval(
        INFLIGHT_SCRIPT,
        1,
        this.#k("inflight", installationId),
        "count",
        this.inflightLeaseMs,
      ),
    );
  }

  /**
   * Records that diffward stopped following a scan, and why ({@link ScanEnd}): from then on its poll and
   * report jobs write nothing (`src/jobs/target.ts` `stillFollowed`). Recorded before anything else of the
   * stop, so a report running meanwhile sees it before its next write.
   */
  async recordScanStop(scanId: string, stop: ScanStop): Promise<void> {
    const k = this.#k("scanend", scanId);
    await this.redis.multi().hset(k, "stop", JSON.stringify(stop)).expire(k, SCAN_END_TTL_SECONDS).exec();
  }

  /** Records the terminal status diffward read for a scan (spec §Scan status): it is never cancelled again. */
  async recordScanEnded(scanId: string, status: EndedScanStatus): Promise<void> {
    const k = this.#k("scanend", scanId);
    await this.redis.multi().hset(k, "status", status).expire(k, SCAN_END_TTL_SECONDS).exec();
  }

  /**
   * Records that `/diffward cancel` of `login` cancels the scan (before the cancel is sent), so its check run
   * says who cancelled it.
   */
  async recordScanCancelledBy(scanId: string, login: string): Promise<void> {
    const k = this.#k("scanend", scanId);
    await this.redis.multi().hset(k, "cancelledBy", login).expire(k, SCAN_END_TTL_SECONDS).exec();
  }

  /** What diffward knows of a scan's end ({@link ScanEnd}); `{}` when nothing is known. */
  async getScanEnd(scanId: string): Promise<ScanEnd> {
    const h = await this.redis.hgetall(this.#k("scanend", scanId));
    return {
      ...(h.status ? { status: h.status as EndedScanStatus } : {}),
      ...(h.stop ? { stop: JSON.parse(h.stop) as ScanStop } : {}),
      ...(h.cancelledBy ? { cancelledBy: h.cancelledBy } : {}),
    };
  }

  /**
   * Stores a pull request's report state (`report:<key>`, kept 90 days) in one step with the check that
   * its scan was not stopped ({@link recordScanStop}): the report of a superseded head never replaces it.
   * @returns false when the scan was stopped (nothing stored).
   */
  async putReportUnlessStopped(key: string, scanId: string, state: unknown): Promise<boolean> {
    const stored = await this.redis.eval(
      PUT_REPORT_SCRIPT,
      2,
      this.#k("scanend", scanId),
      this.#k("report", key),
      JSON.stringify(state),
      String(60 * 60 * 24 * 90),
    );
    return Number(stored) === 1;
  }

  /**
   * The installations with a key of scans in flight (`{prefix}:inflight:<installationId>`, Redis `SCAN`; on a
   * cluster, every master's keys: the prefix's hash tag puts them on one).
   */
  async inflightInstallations(): Promise<number[]> {
    return this.installationsWith("inflight");
  }

  /**
   * The installations with a key `{prefix}:<kind>:<installationId>` (Redis `SCAN`, as
   * {@link inflightInstallations}): `inflight` (scans in flight), `expiries` (acceptances that expire,
   * src/triage/expiry.ts).
   */
  async installationsWith(kind: "inflight" | "expiries"): Promise<number[]> {
    const ids: number[] = [];
    for await (const key of this.#scanKeys(this.#k(kind, "*"))) {
      const id = Number(key.slice(this.#k(kind, "").length));
      if (Number.isInteger(id)) ids.push(id);
    }
    return ids.sort((a, b) => a - b);
  }

  /**
   * Every pull request's (`pr`) or merge group's (`mg`) state, with its key (`owner/repo#number`,
   * `owner/repo@headSha`), by Redis `SCAN` (a state that expires or appears meanwhile may be missed or seen).
   */
  async *allStates<K extends "pr" | "mg">(
    kind: K,
  ): AsyncGenerator<[string, K extends "pr" ? PullState : GroupState]> {
    const head = this.#k(kind, "");
    for await (const key of this.#scanKeys(`${head}*`)) {
      const raw = await this.redis.get(key);
      if (raw) yield [key.slice(head.length), JSON.parse(raw) as K extends "pr" ? PullState : GroupState];
    }
  }

  async *#scanKeys(match: string): AsyncGenerator<string> {
    const nodes = this.redis instanceof Cluster ? this.redis.nodes("master") : [this.redis];
    for (const node of nodes) {
      let cursor = "0";
      do {
        const [next, keys] = await node.scan(cursor, "MATCH", match, "COUNT", 1000);
        cursor = next;
        yield* keys;
      } while (cursor !== "0");
    }
  }

  /**
   * When a full reconciliation last ended with diffward's state in Redis (`{prefix}:swept`, ISO 8601), or
   * `undefined` when the marker is gone: the state was lost (a flush, a new Redis) or never built.
   */
  async sweptAt(): Promise<string | undefined> {
    return (await this.redis.get(this.#k("swept"))) ?? undefined;
  }

  /** Writes the state marker ({@link sweptAt}); kept {@link SWEPT_MARKER_TTL_SECONDS}. */
  async markSwept(at: string): Promise<void> {
    await this.redis.set(this.#k("swept"), at, "EX", SWEPT_MARKER_TTL_SECONDS);
  }

  /** Deletes the state marker: the next reconciliation sweeps every installation ({@link sweptAt}). */
  async forgetSwept(): Promise<void> {
    await this.redis.del(this.#k("swept"));
  }

  /** Renews the state marker's life ({@link SWEPT_MARKER_TTL_SECONDS}) when it exists. */
  async touchSwept(): Promise<void> {
    await this.redis.expire(this.#k("swept"), SWEPT_MARKER_TTL_SECONDS);
  }

  /** Stores a JSON document under `kind:key` (report state, decisions). */
  async putJson(kind: string, key: string, value: unknown, ttlSeconds = 60 * 60 * 24 * 90): Promise<void> {
    await this.redis.set(this.#k(kind, key), JSON.stringify(value), "EX", ttlSeconds);
  }

  async getJson<T>(kind: string, key: string): Promise<T | undefined> {
    const raw = await this.redis.get(this.#k(kind, key));
    return raw ? (JSON.parse(raw) as T) : undefined;
  }

  /**
   * Records which pull request a check run belongs to. GitHub sends `check_run.pull_requests` empty when
   * the head is in a fork (GitHub REST "Check runs": "pull_requests … does not include pull requests from
   * forks"), so re-runs and "Scan anyway" clicks find their pull request here. Kept 90 days.
   */
  async recordCheckRunOwner(
    owner: string,
    repo: string,
    checkRunId: number,
    value: CheckRunOwner,
  ): Promise<void> {
    await this.putJson("checkrun", `${owner}/${repo}/${checkRunId}`, value);
  }

  async getCheckRunOwner(
    owner: string,
    repo: string,
    checkRunId: number,
  ): Promise<CheckRunOwner | undefined> {
    return this.getJson<CheckRunOwner>("checkrun", `${owner}/${repo}/${checkRunId}`);
  }

  /**
   * Claims a one-time action for `holder` (`SET NX`, kept `ttlSeconds`): true for the first holder, and
   * again for that same holder (a retried job of the same delivery), false for any other. Used so one
   * "Scan anyway" per check run and head launches, whatever the clicks and redeliveries.
   */
  async claimOnce(
    kind: string,
    key: string,
    holder: string,
    ttlSeconds = 60 * 60 * 24 * 30,
  ): Promise<boolean> {
    const k = this.#k("once", kind, key);
    if ((await this.redis.set(k, holder, "EX", ttlSeconds, "NX")) === "OK") return true;
    return (await this.redis.get(k)) === holder;
  }

  /**
   * Marks an installation removed (`installation.deleted`) or back (`installation.created`): a launch still
   * waiting in its debounce window for a removed installation is dropped before it spends anything.
   */
  async setInstallationRemoved(installationId: number, removed: boolean): Promise<void> {
    if (removed) await this.redis.set(this.#k("uninstalled", installationId), "1", "EX", 60 * 60 * 24 * 30);
    else await this.redis.del(this.#k("uninstalled", installationId));
  }

  async isInstallationRemoved(installationId: number): Promise<boolean> {
    return (await this.redis.exists(this.#k("uninstalled", installationId))) === 1;
  }

  /**
   * Allows one action per `key` per `windowMs` (Redis `SET NX PX`); used to keep check-run progress
   * updates to at most one per 10 s per scan.
   */
  async throttle(key: string, windowMs: number): Promise<boolean> {
    return (await this.redis.set(this.#k("throttle", key), "1", "PX", windowMs, "NX")) === "OK";
  }
}

/**
 * Another worker holds a lock the job needs (a pull request's, the recovery run's); the job is retried
 * without spending an attempt, after `retryInMs` (when the holder's lock would expire) or shortly.
 */
export class LockBusyError extends Error {
  constructor(
    readonly key: string,
    /** when to try again, in ms from now; unset: shortly (a pull request's lock is held for seconds) */
    readonly retryInMs?: number,
  ) {
    super(`${key} is being handled by another worker`);
    this.name = "LockBusyError";
  }
}
