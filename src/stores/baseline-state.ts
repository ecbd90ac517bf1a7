/**
 * What diffward remembers of a repository's default-branch baseline (Redis, JSON, beside the pull request
 * and merge group states of `./pull-state.ts`): the commit followed now, its check run, launch and scan, and
 * the last completed baseline, which pull request reports compare with.
 */
import type { RedisConnection } from "../runtime/connection.js";

/** The baseline diffward follows now for a repository (`<prefix>:bl:<owner/repo^baseline>`). */
export interface BaselineState {
  installationId: number;
  owner: string;
  repo: string;
  /** the default branch the commit is on */
  branch: string;
  /** the commit scanned */
  headSha: string;
  checkRunId?: number;
  launchKey?: string;
  launchJobId?: string;
  scanId?: string;
  projectId?: string;
  /** the check run was concluded without a scan (refused before launching): nothing runs */
  concluded?: boolean;
  /** the scan was reported (the check run completed) */
  reported?: boolean;
}

/** A completed baseline (`<prefix>:baseline-report:<owner/repo>`): what pull requests on the branch compare with. */
export interface BaselineReport {
  branch: string;
  headSha: string;
  scanId: string;
  /** ms since epoch */
  reportedAt: number;
  /** fingerprints (src/domain/identity.ts) of the findings open at that commit */
  openFingerprints: string[];
}

/** Kept 90 days, like a pull request's state: a weekly schedule always renews it. */
const TTL_SECONDS = 90 * 24 * 3600;

/** The baselines' records under diffward's state prefix. */
export class BaselineStore {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
  ) {}

  #k(kind: "bl" | "baseline-report", key: string): string {
    return `${this.prefix}:${kind}:${key}`;
  }

  /** The baseline followed now under `key` (`owner/repo^baseline`, `baselineKey`), if any. */
  async get(key: string): Promise<BaselineState | undefined> {
    const raw = await this.redis.get(this.#k("bl", key));
    return raw ? (JSON.parse(raw) as BaselineState) : undefined;
  }

  async set(key: string, value: BaselineState): Promise<void> {
    await this.redis.set(this.#k("bl", key), JSON.stringify(value), "EX", TTL_SECONDS);
  }

  /** The last completed baseline of `owner/repo`, if any. */
  async getReport(owner: string, repo: string): Promise<BaselineReport | undefined> {
    const raw = await this.redis.get(this.#k("baseline-report", `${owner}/${repo}`));
    return raw ? (JSON.parse(raw) as BaselineReport) : undefined;
  }

  async setReport(owner: string, repo: string, value: BaselineReport): Promise<void> {
    await this.redis.set(
      this.#k("baseline-report", `${owner}/${repo}`),
      JSON.stringify(value),
      "EX",
      TTL_SECONDS,
    );
  }
}
