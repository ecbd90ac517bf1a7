/**
 * What diffward remembers of a repository's default-branch baseline (Redis, JSON, beside the pull request
 * and merge group states of `./pull-state.ts`): the commit followed now, its check run, launch and scan, and
 * the last completed baseline, which pull request reports compare with. Reads parse with zod: a record that
 * is not one throws `StoredRecordError` (`./stored-record.ts`).
 */
import { z } from "zod";
import type { RedisConnection } from "../runtime/connection.js";
import { parseStored, type Stored } from "./stored-record.js";

/** The baseline diffward follows now for a repository (`<prefix>:bl:<owner/repo^baseline>`). */
export const BaselineState = z.looseObject({
  installationId: z.number(),
  owner: z.string(),
  repo: z.string(),
  /** the default branch the commit is on */
  branch: z.string(),
  /** the commit scanned */
  headSha: z.string(),
  checkRunId: z.number().optional(),
  launchKey: z.string().optional(),
  launchJobId: z.string().optional(),
  scanId: z.string().optional(),
  projectId: z.string().optional(),
  /** the check run was concluded without a scan (refused before launching): nothing runs */
  concluded: z.boolean().optional(),
  /** the scan was reported (the check run completed) */
  reported: z.boolean().optional(),
});
export type BaselineState = Stored<typeof BaselineState>;

/** A completed baseline (`<prefix>:baseline-report:<owner/repo>`): what pull requests on the branch compare with. */
export const BaselineReport = z.object({
  branch: z.string(),
  headSha: z.string(),
  scanId: z.string(),
  /** ms since epoch */
  reportedAt: z.number(),
  /** fingerprints (src/domain/identity.ts) of the findings open at that commit */
  openFingerprints: z.array(z.string()),
});
export type BaselineReport = z.infer<typeof BaselineReport>;

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

  /**
   * The baseline followed now under `key` (`owner/repo^baseline`, `baselineKey`), if any.
   * @throws {StoredRecordError} when it is not one.
   */
  async get(key: string): Promise<BaselineState | undefined> {
    const k = this.#k("bl", key);
    const raw = await this.redis.get(k);
    return raw ? parseStored(BaselineState, k, raw) : undefined;
  }

  async set(key: string, value: BaselineState): Promise<void> {
    await this.redis.set(this.#k("bl", key), JSON.stringify(value), "EX", TTL_SECONDS);
  }

  /** The last completed baseline of `owner/repo`, if any. @throws {StoredRecordError} when it is not one. */
  async getReport(owner: string, repo: string): Promise<BaselineReport | undefined> {
    const k = this.#k("baseline-report", `${owner}/${repo}`);
    const raw = await this.redis.get(k);
    return raw ? parseStored(BaselineReport, k, raw) : undefined;
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
