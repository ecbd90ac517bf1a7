/**
 * What diffward remembers of each pull request and merge group between jobs (JSON under the state prefix),
 * their locks, and the small marks beside them: which pull request a check run belongs to, one-time claims,
 * removed installations, progress throttles and the reconciliation's state marker. Reads parse with zod: a
 * record that is not one throws `StoredRecordError` (`./stored-record.ts`).
 */
import { z } from "zod";
import { DEFAULT_STATE_PREFIX, type RedisConnection } from "../runtime/connection.js";
import { takeLock } from "../runtime/renewed-lock.js";
import { parseStored, scanKeys, type Stored } from "./stored-record.js";

/** What diffward remembers of one pull request between jobs (Redis `pr:<owner/repo#n>`, JSON). */
export const PullState = z.looseObject({
  installationId: z.number(),
  owner: z.string(),
  repo: z.string(),
  pullNumber: z.number(),
  /** the head SHA diffward is following; older heads are superseded */
  headSha: z.string(),
  /** `pull_request.updated_at` of the event that set `headSha` (ISO), to drop out-of-order deliveries */
  updatedAt: z.string().optional(),
  /**
   * When diffward received the request that set `headSha`, ms since the epoch: the BullMQ add time of its
   * `pull-request` job (the webhook delivery, a re-run, a rescan, a reconciliation), never a payload's
   * timestamp. The organization's page measures "push → report" from it.
   */
  receivedAt: z.number().optional(),
  mergeBase: z.string().optional(),
  checkRunId: z.number().optional(),
  launchKey: z.string().optional(),
  launchJobId: z.string().optional(),
  scanId: z.string().optional(),
  projectId: z.string().optional(),
  closed: z.boolean().optional(),
  /**
   * The uninstall cancelled this state's scan and marked it closed: its check run could not be written (GitHub
   * refuses a removed installation's token), and the reinstall completes it and decides the newest head.
   */
  uninstalled: z.boolean().optional(),
  /** the explicit request (re-run, rescan) that set this state, so a retried job does not repeat it */
  explicitNonce: z.string().optional(),
  /**
   * The head's launch was asked by a **Re-run** button (`check_run` or `check_suite` `rerequested`): further
   * Re-runs of this head launch nothing while its scan is queued or running.
   */
  rerun: z.boolean().optional(),
  /**
   * A later Re-run of this head (by a GitHub login) launched nothing because this one's scan was queued or
   * running: the launch's own check-run write says so too, so the answer stands whichever is written first.
   */
  rerunAgain: z.looseObject({ by: z.string().optional() }).optional(),
  /**
   * How many times a head was followed for this pull request (1, 2, …). A head that comes back (reopen,
   * force-push back to an earlier SHA) is a new generation, and its launch job gets a new BullMQ job id:
   * BullMQ keeps completed jobs and ignores an add with a used id (BullMQ docs "Job Ids").
   */
  generation: z.number().optional(),
});
export type PullState = Stored<typeof PullState>;

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

/** An account's installation after a reinstall, and when it was recorded (ms since the epoch). */
const InstalledAs = z.object({ installationId: z.number(), at: z.number() });

/** The pull request a check run of diffward's belongs to, recorded when the check run is created. */
export const CheckRunOwner = z.object({ pullNumber: z.number(), headSha: z.string() });
export type CheckRunOwner = z.infer<typeof CheckRunOwner>;

/**
 * What diffward remembers of one merge group (Redis `mg:<owner/repo@headSha>`, JSON): its check run and,
 * when the group is scanned, the launch and scan, like {@link PullState} for a pull request.
 */
export const GroupState = z.looseObject({
  installationId: z.number(),
  owner: z.string(),
  repo: z.string(),
  /** `merge_group.head_sha`: the commit the group's check run is on */
  headSha: z.string(),
  /** the pull request named in `merge_group.head_ref`, when the ref parses */
  pullNumber: z.number().optional(),
  checkRunId: z.number().optional(),
  /** the check run was concluded by diffward (skip, reuse, an early refusal): nothing runs */
  concluded: z.boolean().optional(),
  launchKey: z.string().optional(),
  launchJobId: z.string().optional(),
  scanId: z.string().optional(),
  projectId: z.string().optional(),
  /** GitHub sent `merge_group.destroyed`, or the app was uninstalled: nothing more is done for this group */
  destroyed: z.boolean().optional(),
  /**
   * The uninstall cancelled the group's scan and marked it destroyed: its check run could not be written
   * (GitHub refuses a removed installation's token), and the reinstall completes it.
   */
  uninstalled: z.boolean().optional(),
});
export type GroupState = Stored<typeof GroupState>;

/**
 * How long the state marker (`{prefix}:swept`) lives after its last write, in seconds (90 days: the longest
 * life of a pull request's state). Every reconciliation writes it again, so it ends only when diffward does
 * not start for that long, or with the state (a flush, a new Redis).
 */
export const SWEPT_MARKER_TTL_SECONDS = 60 * 60 * 24 * 90;

/** How long a pull request's state and its check runs' owners are kept, in seconds (90 days). */
const PULL_TTL_SECONDS = 60 * 60 * 24 * 90;
/** How long a close is noted ({@link PullStateStore.noteClose}): longer than any launch waits. */
const CLOSE_NOTE_TTL_SECONDS = 60 * 60 * 24 * 7;

/**
 * Whether a close noted at `noted` came after the event of `updatedAt` (both ISO 8601; GitHub counts whole
 * seconds, so a close in the same second is not after); `false` when either is unknown. Pure.
 */
export function closedAfter(noted: string | undefined, updatedAt: string | undefined): boolean {
  if (noted === undefined || updatedAt === undefined) return false;
  return Date.parse(noted) > Date.parse(updatedAt);
}

/**
 * diffward's pull request and merge group state beside BullMQ's own keys. Every key starts with `prefix` so
 * tests (and several deployments on one Redis) never collide. The default prefix is a cluster hash tag
 * (`{dw}`), so every key of the stores is in one Redis Cluster slot and their multi-key operations are
 * allowed there; other prefixes must carry a hash tag too on a cluster (`assertClusterPrefixes`).
 */
export class PullStateStore {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix = DEFAULT_STATE_PREFIX,
    /** how long a pull request's lock outlives a dead holder, in ms (tests shorten it with worker timing) */
    readonly lockTtlMs = 60_000,
  ) {}

  #k(...parts: Array<string | number>): string {
    return [this.prefix, ...parts].join(":");
  }

  /** A pull request's state, if diffward follows it. @throws {StoredRecordError} when it is not one. */
  async getPull(key: string): Promise<PullState | undefined> {
    return this.#getJson("pr", key, PullState);
  }

  async setPull(key: string, state: PullState): Promise<void> {
    await this.#putJson("pr", key, state, PULL_TTL_SECONDS);
  }

  /** A merge group's state, if diffward follows it. @throws {StoredRecordError} when it is not one. */
  async getGroup(key: string): Promise<GroupState | undefined> {
    return this.#getJson("mg", key, GroupState);
  }

  /** Stores a merge group's state; kept 30 days (a group lives minutes to hours). */
  async setGroup(key: string, state: GroupState): Promise<void> {
    await this.#putJson("mg", key, state, 60 * 60 * 24 * 30);
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

  /**
   * Every pull request's (`pr`) or merge group's (`mg`) state, with its key (`owner/repo#number`,
   * `owner/repo@headSha`), by Redis `SCAN` (a state that expires or appears meanwhile may be missed or seen).
   * @throws {StoredRecordError} at the first state that is not one.
   */
  async *allStates<K extends "pr" | "mg">(
    kind: K,
  ): AsyncGenerator<[string, K extends "pr" ? PullState : GroupState]> {
    const head = this.#k(kind, "");
    const schema = kind === "pr" ? PullState : GroupState;
    for await (const key of scanKeys(this.redis, `${head}*`)) {
      const raw = await this.redis.get(key);
      if (raw)
        yield [
          key.slice(head.length),
          parseStored(schema, key, raw) as K extends "pr" ? PullState : GroupState,
        ];
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

  /** Stores a JSON document under `kind:key`, kept `ttlSeconds`. */
  async #putJson(kind: string, key: string, value: unknown, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.#k(kind, key), JSON.stringify(value), "EX", ttlSeconds);
  }

  /**
   * The JSON document under `kind:key` parsed with `schema`, or `undefined` when there is none.
   * @throws {StoredRecordError} when it is not JSON or does not fit `schema`.
   */
  async #getJson<S extends z.ZodType>(
    kind: string,
    key: string,
    schema: S,
  ): Promise<z.output<S> | undefined> {
    const k = this.#k(kind, key);
    const raw = await this.redis.get(k);
    return raw ? parseStored(schema, k, raw) : undefined;
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
    await this.#putJson("checkrun", `${owner}/${repo}/${checkRunId}`, value, PULL_TTL_SECONDS);
  }

  async getCheckRunOwner(
    owner: string,
    repo: string,
    checkRunId: number,
  ): Promise<CheckRunOwner | undefined> {
    return this.#getJson("checkrun", `${owner}/${repo}/${checkRunId}`, CheckRunOwner);
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
   * Marks an installation removed (`installation.deleted`) at `at` (ms since the epoch) or back
   * (`installation.created`): a launch still waiting in its debounce window for a removed installation is
   * dropped before it spends anything.
   */
  async setInstallationRemoved(installationId: number, removed: boolean, at = Date.now()): Promise<void> {
    const k = this.#k("uninstalled", installationId);
    if (removed) await this.redis.set(k, String(at), "EX", 60 * 60 * 24 * 30);
    else await this.redis.del(k);
  }

  async isInstallationRemoved(installationId: number): Promise<boolean> {
    return (await this.removedAt(installationId)) !== undefined;
  }

  /** When the installation was removed (ms since the epoch; a mark written before the time was kept reads 1). */
  async removedAt(installationId: number): Promise<number | undefined> {
    const at = await this.redis.get(this.#k("uninstalled", installationId));
    return at === null ? undefined : Number(at);
  }

  /**
   * Notes that an event of the pull request `key` (`owner/repo#number`), delivered to the removed installation
   * `installationId`, was accepted but not decided: its job ran after the uninstall (GitHub refuses a removed
   * installation's token), so the reinstall decides the pull request's newest head. Kept 30 days, as the
   * removal's mark.
   */
  async noteUndecided(key: string, installationId: number): Promise<void> {
    await this.redis.set(this.#k("undecided", key), String(installationId), "EX", 60 * 60 * 24 * 30);
  }

  /** The removed installation whose event of the pull request `key` was left undecided ({@link noteUndecided}). */
  async undecidedBy(key: string): Promise<number | undefined> {
    const id = await this.redis.get(this.#k("undecided", key));
    return id === null ? undefined : Number(id);
  }

  /**
   * Records the account's installation after a reinstall (`installation.created`: GitHub gives a new id) at
   * `at` (ms since the epoch), so an event job of an installation removed before it that runs after the
   * reinstall's walk hands its pull request over to it. Kept 30 days, as the removal's mark.
   */
  async noteInstalled(accountLogin: string, installationId: number, at: number): Promise<void> {
    const value = JSON.stringify({ installationId, at });
    await this.redis.set(this.#k("installed", accountLogin), value, "EX", 60 * 60 * 24 * 30);
  }

  /** The account's installation recorded by the last reinstall ({@link noteInstalled}) and when, if any. */
  async installedAs(accountLogin: string): Promise<{ installationId: number; at: number } | undefined> {
    const value = await this.redis.get(this.#k("installed", accountLogin));
    if (value === null) return undefined;
    const parsed = InstalledAs.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  }

  /** Forgets {@link noteUndecided}'s mark once the reinstall has asked for the decision. */
  async clearUndecided(key: string): Promise<void> {
    await this.redis.del(this.#k("undecided", key));
  }

  /**
   * Notes a `pull_request.closed` delivery when the webhook arrives, before its job runs (that job waits for
   * the pull request's lock, which the job of an earlier event may hold): the close's `updated_at`, the latest
   * of them kept, for 7 days. A launch of an earlier event reads it before it spends ({@link closedSince}).
   */
  async noteClose(key: string, updatedAt: string): Promise<void> {
    const at = Date.parse(updatedAt);
    if (Number.isNaN(at)) return;
    // the latest close wins: deliveries are not ordered
    await this.redis.eval(
      "local cur = redis.call('GET', KEYS[1]) " +
        "if (not cur) or tonumber(cur) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) " +
        "else redis.call('EXPIRE', KEYS[1], ARGV[2]) end return 1",
      1,
      this.#k("closed-at", key),
      String(at),
      String(CLOSE_NOTE_TTL_SECONDS),
    );
  }

  /** The `updated_at` of the latest close noted ({@link noteClose}), ISO 8601, if any. */
  async closeNotedAt(key: string): Promise<string | undefined> {
    const noted = await this.redis.get(this.#k("closed-at", key));
    return noted === null ? undefined : new Date(Number(noted)).toISOString();
  }

  /**
   * Whether a close of the pull request was received after `updatedAt` (the `updated_at` of the event whose
   * head the state follows, ISO 8601): GitHub counts whole seconds, so a close in the same second is not after.
   */
  async closedSince(key: string, updatedAt: string | undefined): Promise<boolean> {
    return closedAfter(await this.closeNotedAt(key), updatedAt);
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
