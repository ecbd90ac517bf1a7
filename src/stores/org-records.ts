/**
 * What the organization's page reads that no other flow keeps: each scan's spend by installation and month,
 * the installation's last reports, the repositories whose `.github/diffward.yml` is invalid, and which pull
 * requests hold dismissals awaiting approval. Each record is written where the fact happens (report, settle,
 * pull-request and approval flows), in bounded Redis keys with a TTL, so the page never asks the service or
 * GitHub once per row (docs/architecture.md "Redis keys"). Reads parse with zod; an entry that is not one (a
 * manual edit, a newer version's shape) is left out of what the page shows, as if it were not there.
 */
import { z } from "zod";
import type { RedisConnection } from "../runtime/connection.js";
import { capMonth } from "./cap-ledger.js";
import { parseStoredOrAbsent } from "./stored-record.js";

/** How long a month's spend hash lives after its last write, in seconds (215 days: six months and a margin). */
export const SPEND_TTL_SECONDS = 215 * 24 * 3600;
/** How long the report log, the config problems and the held approvals index live after a write, in seconds (90 days). */
export const RECORD_TTL_SECONDS = 90 * 24 * 3600;
/** Reports kept per installation, newest first (the page shows 50 of those a viewer may see). */
export const REPORT_LOG_SIZE = 500;

/** One scan's spend as the page counts it (`spend:<installationId>:<YYYY-MM>`, field `s:<scanId>`). */
export const ScanSpendRecord = z.object({
  scanId: z.string(),
  /** `owner/name` */
  repository: z.string(),
  /** the pull request; 0 for a default-branch baseline or a merge group without one */
  pullNumber: z.number(),
  /** credits: the settled spend (deductions less refunds) when `settled`, else the scan's budget */
  credits: z.number(),
  settled: z.boolean(),
});
export type ScanSpendRecord = z.infer<typeof ScanSpendRecord>;

/** One report as the page lists it (`reportlog:<installationId>`). */
export const ReportLogEntry = z.object({
  scanId: z.string(),
  repository: z.string(),
  pullNumber: z.number(),
  headSha: z.string(),
  /** the check run's conclusion (`success`, `failure`, `neutral`, …) */
  conclusion: z.string(),
  /** findings reported, by severity (`CRITICAL` … `INFO`) */
  severities: z.record(z.string(), z.number()),
  /**
   * ms since the epoch: when diffward received the request that set the head (`PullState.receivedAt`: the
   * delivery of its `pull_request` event, a re-run), else when it launched the scan. Never a payload's
   * timestamp: a commit's or a pull request's date says when someone wrote it, not when it reached diffward.
   * Absent from entries written before it was recorded.
   */
  receivedAt: z.number().optional(),
  /** ms since the epoch */
  reportedAt: z.number(),
});
export type ReportLogEntry = z.infer<typeof ReportLogEntry>;

/** A repository whose `.github/diffward.yml` is invalid (`configproblems:<installationId>`, field `owner/name`). */
export const ConfigProblemRecord = z.object({
  repository: z.string(),
  /** the first problem, as the check run shows it */
  problem: z.string(),
  /** ms since the epoch when it was last seen */
  seenAt: z.number(),
});
export type ConfigProblemRecord = z.infer<typeof ConfigProblemRecord>;

/**
 * A repository's effective policy as last read (`policies:<installationId>`, field `owner/name`): the
 * evaluation `mode`, the top-level `failOn` and the keys the organization floor raised (empty: not raised).
 */
export interface PolicyRecord {
  repository: string;
  /** `enforce` or `evaluate` */
  mode: string;
  /** e.g. `high (only: new)` */
  failOn: string;
  /** the keys the organization floor raised, e.g. `failOn.severity`; empty when none */
  raised: string[];
  /** ms since the epoch when it was last read */
  seenAt: number;
}

/** The page's records under diffward's state prefix. */
export class OrgRecords {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
  ) {}

  #k(...parts: Array<string | number>): string {
    return [this.prefix, ...parts].join(":");
  }

  /**
   * Counts a scan's spend in the month it was launched (UTC). A settled spend replaces whatever was
   * counted; a budget is written only when nothing is counted yet, so a late report never undoes a
   * settlement. The repository's `creditCap.monthly` is kept beside it for the page.
   * @param launchedAt ms since the epoch
   * @param cap the repository's cap in credits; `null`: it has none (a cap kept before is dropped);
   *   `undefined`: not known here (what is kept stays)
   */
  async recordSpend(
    installationId: number,
    launchedAt: number,
    spend: ScanSpendRecord,
    cap?: number | null,
  ): Promise<void> {
    const k = this.#k("spend", installationId, capMonth(launchedAt));
    const field = `s:${spend.scanId}`;
    const m = this.redis.multi();
    if (spend.settled) m.hset(k, field, JSON.stringify(spend));
    else m.hsetnx(k, field, JSON.stringify(spend));
    if (cap === null) m.hdel(k, `cap:${spend.repository}`);
    else if (cap !== undefined) m.hset(k, `cap:${spend.repository}`, String(cap));
    await m.expire(k, SPEND_TTL_SECONDS).exec();
  }

  /**
   * The installation's spend in each of `months` (`YYYY-MM`), one HGETALL each in one pipeline; a scan's entry
   * that is not one is left out.
   * @returns per month: the scans' spends and the caps last seen per repository (credits).
   */
  async monthSpend(
    installationId: number,
    months: readonly string[],
  ): Promise<Array<{ month: string; scans: ScanSpendRecord[]; caps: Map<string, number> }>> {
    const p = this.redis.pipeline();
    for (const month of months) p.hgetall(this.#k("spend", installationId, month));
    const out = (await p.exec()) ?? [];
    return months.map((month, i) => {
      const h = (out[i]?.[1] ?? {}) as Record<string, string>;
      const scans: ScanSpendRecord[] = [];
      const caps = new Map<string, number>();
      for (const [f, v] of Object.entries(h)) {
        if (f.startsWith("s:")) {
          const scan = parseStoredOrAbsent(ScanSpendRecord, v);
          if (scan) scans.push(scan);
        } else if (f.startsWith("cap:")) caps.set(f.slice(4), Number(v));
      }
      return { month, scans, caps };
    });
  }

  /** Adds a report to the installation's log, keeping the newest {@link REPORT_LOG_SIZE}. */
  async recordReport(installationId: number, entry: ReportLogEntry): Promise<void> {
    const k = this.#k("reportlog", installationId);
    await this.redis
      .multi()
      .zadd(k, entry.reportedAt, JSON.stringify(entry))
      .zremrangebyrank(k, 0, -(REPORT_LOG_SIZE + 1))
      .expire(k, RECORD_TTL_SECONDS)
      .exec();
  }

  /** The installation's logged reports, newest first; an entry that is not one is left out. */
  async reports(installationId: number): Promise<ReportLogEntry[]> {
    const raw = await this.redis.zrevrange(this.#k("reportlog", installationId), 0, REPORT_LOG_SIZE - 1);
    return raw.flatMap((r) => parseStoredOrAbsent(ReportLogEntry, r) ?? []);
  }

  /**
   * Records the repository's config state: its first problem when `.github/diffward.yml` is invalid, else
   * (valid or absent) forgets any problem recorded before.
   */
  async recordConfig(installationId: number, repository: string, problem: string | undefined, now: number) {
    const k = this.#k("configproblems", installationId);
    if (problem === undefined) {
      await this.redis.hdel(k, repository);
      return;
    }
    const rec: ConfigProblemRecord = { repository, problem, seenAt: now };
    await this.redis.multi().hset(k, repository, JSON.stringify(rec)).expire(k, RECORD_TTL_SECONDS).exec();
  }

  /**
   * Records a repository's effective policy ({@link PolicyRecord}) as a pull request event last read it;
   * `undefined` removes it (no valid configuration).
   */
  async recordPolicy(
    installationId: number,
    repository: string,
    policy: Omit<PolicyRecord, "repository" | "seenAt"> | undefined,
    now: number,
  ): Promise<void> {
    const k = this.#k("policies", installationId);
    if (policy === undefined) {
      await this.redis.hdel(k, repository);
      return;
    }
    const rec: PolicyRecord = { repository, ...policy, seenAt: now };
    await this.redis.multi().hset(k, repository, JSON.stringify(rec)).expire(k, RECORD_TTL_SECONDS).exec();
  }

  /** The installation's repositories' effective policies, as last read. */
  async policies(installationId: number): Promise<PolicyRecord[]> {
    const h = await this.redis.hgetall(this.#k("policies", installationId));
    return Object.values(h).map((v) => JSON.parse(v) as PolicyRecord);
  }

  /** The installation's repositories whose config was invalid when last read. */
  async configProblems(installationId: number): Promise<ConfigProblemRecord[]> {
    const h = await this.redis.hgetall(this.#k("configproblems", installationId));
    return Object.values(h).flatMap((v) => parseStoredOrAbsent(ConfigProblemRecord, v) ?? []);
  }

  /**
   * Records whether a pull request (`owner/repo#n`) holds dismissals awaiting approval, in its owner's index
   * (`approvals-held:<owner>`; the owner is the installation's account).
   */
  async recordHeldApprovals(pull: string, held: boolean): Promise<void> {
    const k = this.#k("approvals-held", pull.slice(0, pull.indexOf("/")).toLowerCase());
    if (held) await this.redis.multi().sadd(k, pull).expire(k, RECORD_TTL_SECONDS).exec();
    else await this.redis.srem(k, pull);
  }

  /** The pull requests (`owner/repo#n`) of `owner` that held approval requests when last changed. */
  async heldApprovals(owner: string): Promise<string[]> {
    return (await this.redis.smembers(this.#k("approvals-held", owner.toLowerCase()))).sort();
  }
}
