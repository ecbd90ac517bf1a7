/**
 * What diffward remembers of each scan beside the pull request, merge group or baseline that follows it
 * (`./pull-state.ts`, `./baseline-state.ts`): the launch record that guards against paying twice, where the
 * scan is reported, the installation's scans in flight, why and how the scan ended, that its check run was
 * completed, and the outcome of its upload to GitHub code scanning. Reads parse with zod: a record that is
 * not one throws `StoredRecordError` (`./stored-record.ts`).
 */
import { z } from "zod";
import { CodeScanningInfo } from "../render/code-scanning-section.js";
import { DEFAULT_STATE_PREFIX, type RedisConnection } from "../runtime/connection.js";
import { checkStored, parseStored, scanKeys } from "./stored-record.js";

/**
 * Why diffward stopped following a scan: a newer head (`bySha`; `sameHead` for an explicit request of the
 * same commit, Re-run, Scan anyway or rescan, which replaces the scan), the pull request closed, or the app
 * uninstalled.
 */
export const ScanStop = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("superseded"), bySha: z.string(), sameHead: z.boolean().optional() }),
  z.object({ kind: z.literal("closed") }),
  z.object({ kind: z.literal("uninstalled") }),
]);
export type ScanStop = z.infer<typeof ScanStop>;

/** A scan status that never changes again (spec §Scan status: `COMPLETED`, `FAILED` and `CANCELLED`). */
export const EndedScanStatus = z.enum(["COMPLETED", "FAILED", "CANCELLED"]);
export type EndedScanStatus = z.infer<typeof EndedScanStatus>;

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
 * The key of a scan's end record under a state prefix (`<prefix>:scanend:<scanId>`): the report store checks
 * it in the step that stores a report (`./stored-report.ts`).
 */
export function scanEndKey(prefix: string, scanId: string): string {
  return `${prefix}:scanend:${scanId}`;
}

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
export const ScanLink = z.object({
  scanId: z.string(),
  projectId: z.string(),
  installationId: z.number(),
  accountLogin: z.string(),
  owner: z.string(),
  repo: z.string(),
  pullNumber: z.number(),
  headSha: z.string(),
  checkRunId: z.number(),
  /** set when the scan is a merge group's (its `headSha` is the group's): no pull request state to touch */
  mergeGroup: z.boolean().optional(),
  /** set when the scan is a default-branch baseline (`pullNumber` 0): no pull request state to touch */
  baseline: z.boolean().optional(),
});
export type ScanLink = z.infer<typeof ScanLink>;

/**
 * When a scan's check run was completed (`completed:<scanId>`), so a retried report does not complete it twice;
 * the check run is named since a completed scan may be reported again in a new check run (a head that comes
 * back), whose completion is its own.
 */
const Completed = z.object({
  /** ms since the epoch */
  at: z.number(),
  /** the check run completed; absent in marks written before it (they count for any check run) */
  checkRunId: z.number().optional(),
});

/**
 * How long a scan counts as in flight at most after it was linked, in ms (26 hours): its longest run
 * (`scanTimeoutMinutes` is at most 1,440; the poll cancels it then) and two hours for its report. Every path
 * that stops following a scan finishes it ({@link ScanStateStore.finishScan}); the deadline ends the ones a
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

/** How long a launch record and a scan link are kept, in seconds (30 days). */
const LAUNCH_TTL_SECONDS = 60 * 60 * 24 * 30;
/** How long a completion mark and a code scanning upload's outcome are kept, in seconds (7 days). */
const SCAN_STEP_TTL_SECONDS = 60 * 60 * 24 * 7;

/**
 * The scans' records under diffward's state prefix. The default prefix is a cluster hash tag (`{dw}`), so the
 * multi-key steps (the MULTI of {@link linkScan}; a report stored unless its scan was stopped, in
 * `./stored-report.ts`) run in one Redis Cluster slot.
 */
export class ScanStateStore {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix = DEFAULT_STATE_PREFIX,
    /** how long a linked scan counts as in flight at most, in ms ({@link INFLIGHT_LEASE_MS}; tests shorten it) */
    readonly inflightLeaseMs = INFLIGHT_LEASE_MS,
  ) {}

  #k(...parts: Array<string | number>): string {
    return [this.prefix, ...parts].join(":");
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
    await this.redis.multi().hsetnx(k, "attemptStartedAt", String(at)).expire(k, LAUNCH_TTL_SECONDS).exec();
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
      .expire(k, LAUNCH_TTL_SECONDS)
      .exec();
  }

  /**
   * Records where a scan is reported (the scan link, kept 30 days) and adds it to the installation's scans in
   * flight, until {@link finishScan} or its deadline ({@link INFLIGHT_LEASE_MS} from now), in one MULTI.
   */
  async linkScan(link: ScanLink): Promise<void> {
    await this.redis
      .multi()
      .set(this.#k("scan", link.scanId), JSON.stringify(link), "EX", LAUNCH_TTL_SECONDS)
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

  /** Where a scan is reported, if it was linked. @throws {StoredRecordError} when the link is not one. */
  async getScanLink(scanId: string): Promise<ScanLink | undefined> {
    const key = this.#k("scan", scanId);
    const raw = await this.redis.get(key);
    return raw ? parseStored(ScanLink, key, raw) : undefined;
  }

  /**
   * Forgets a scan in flight (reported, cancelled, superseded, lost, no longer followed): removes it from the
   * installation's scans in flight.
   */
  async finishScan(installationId: number, scanId: string): Promise<void> {
    await this.#inflight(installationId, "remove", scanId);
  }

  /**
   * The installation's scans in flight (every process): linked and neither finished nor past their deadline.
   * The uninstall job cancels them; their number ({@link inflightCount}) sizes the hourly write budget
   * (`src/runtime/apply-writes.ts`).
   */
  async inflightScans(installationId: number): Promise<string[]> {
    return (await this.#inflight(installationId, "list")) as string[];
  }

  /** How many scans the installation has in flight ({@link inflightScans} without reading them). */
  async inflightCount(installationId: number): Promise<number> {
    return Number(await this.#inflight(installationId, "count"));
  }

  #inflight(installationId: number, op: "remove" | "list" | "count", ...scanId: string[]): Promise<unknown> {
    const key = this.#k("inflight", installationId);
    return this.redis.eval(INFLIGHT_SCRIPT, 1, key, op, this.inflightLeaseMs, ...scanId);
  }

  /**
   * The installations with a key of scans in flight (`{prefix}:inflight:<installationId>`, Redis `SCAN`; on a
   * cluster, every master's keys: the prefix's hash tag puts them on one).
   */
  async inflightInstallations(): Promise<number[]> {
    const head = this.#k("inflight", "");
    const ids: number[] = [];
    for await (const key of scanKeys(this.redis, `${head}*`)) {
      const id = Number(key.slice(head.length));
      if (Number.isInteger(id)) ids.push(id);
    }
    return ids.sort((a, b) => a - b);
  }

  /**
   * Records that diffward stopped following a scan, and why ({@link ScanEnd}): from then on its poll and
   * report jobs write nothing (`src/job-kit/target.ts` `stillFollowed`). Recorded before anything else of the
   * stop, so a report running meanwhile sees it before its next write.
   */
  async recordScanStop(scanId: string, stop: ScanStop): Promise<void> {
    await this.#recordEnd(scanId, "stop", JSON.stringify(stop));
  }

  /**
   * Forgets diffward's stop of a scan ({@link recordScanStop}), so a report job follows it again: only for a
   * scan that finished while its installation was removed, reported after the app is installed again.
   */
  async clearScanStop(scanId: string): Promise<void> {
    await this.redis.hdel(scanEndKey(this.prefix, scanId), "stop");
  }

  /** Records the terminal status diffward read for a scan (spec §Scan status): it is never cancelled again. */
  async recordScanEnded(scanId: string, status: EndedScanStatus): Promise<void> {
    await this.#recordEnd(scanId, "status", status);
  }

  /**
   * Records that `/diffward cancel` of `login` cancels the scan (before the cancel is sent), so its check run
   * says who cancelled it.
   */
  async recordScanCancelledBy(scanId: string, login: string): Promise<void> {
    await this.#recordEnd(scanId, "cancelledBy", login);
  }

  async #recordEnd(scanId: string, field: keyof ScanEnd, value: string): Promise<void> {
    const k = scanEndKey(this.prefix, scanId);
    await this.redis.multi().hset(k, field, value).expire(k, SCAN_END_TTL_SECONDS).exec();
  }

  /**
   * What diffward knows of a scan's end ({@link ScanEnd}); `{}` when nothing is known.
   * @throws {StoredRecordError} when its status or stop is not one diffward writes.
   */
  async getScanEnd(scanId: string): Promise<ScanEnd> {
    const key = scanEndKey(this.prefix, scanId);
    const h = await this.redis.hgetall(key);
    return {
      ...(h.status ? { status: checkStored(EndedScanStatus, `${key} status`, h.status) } : {}),
      ...(h.stop ? { stop: parseStored(ScanStop, `${key} stop`, h.stop) } : {}),
      ...(h.cancelledBy ? { cancelledBy: h.cancelledBy } : {}),
    };
  }

  /**
   * When the scan's report completed check run `checkRunId` (ms since the epoch), if it was within the last 7
   * days; `undefined` too when the mark is of another check run (the scan reported again in a new one).
   * @throws {StoredRecordError} when the mark is not one.
   */
  async completedAt(scanId: string, checkRunId: number): Promise<number | undefined> {
    const key = this.#k("completed", scanId);
    const raw = await this.redis.get(key);
    if (!raw) return undefined;
    const mark = parseStored(Completed, key, raw);
    return mark.checkRunId === undefined || mark.checkRunId === checkRunId ? mark.at : undefined;
  }

  /** Marks that the scan's report completed check run `checkRunId` at `at` (ms since the epoch), kept 7 days. */
  async markCompleted(scanId: string, checkRunId: number, at: number): Promise<void> {
    const key = this.#k("completed", scanId);
    await this.redis.set(key, JSON.stringify({ at, checkRunId }), "EX", SCAN_STEP_TTL_SECONDS);
  }

  /**
   * The outcome of the scan's upload to GitHub code scanning (`sarif:<owner/repo@scanId>`), when it was
   * uploaded within the last 7 days.
   * @throws {StoredRecordError} when the outcome is not one.
   */
  async codeScanningUpload(key: string): Promise<CodeScanningInfo | undefined> {
    const k = this.#k("sarif", key);
    const raw = await this.redis.get(k);
    return raw ? parseStored(CodeScanningInfo, k, raw) : undefined;
  }

  /** Records the outcome of the scan's upload to code scanning (`owner/repo@scanId`), kept 7 days. */
  async recordCodeScanningUpload(key: string, info: CodeScanningInfo): Promise<void> {
    await this.redis.set(this.#k("sarif", key), JSON.stringify(info), "EX", SCAN_STEP_TTL_SECONDS);
  }
}
