/**
 * Inline suppressions' records: the marker lines of each file with findings, read once per head commit
 * (`<prefix>:supfile:<owner>/<repo>@<headSha>:<path>`, JSON {@link FileMarkers}), so a retried or repeated
 * report of the same commit asks GitHub for no file twice; and the findings a commit's markers already acted
 * on (`<prefix>:supsent:<owner>/<repo>@<headSha>`, a hash: field the finding id, value what was done), so a
 * suppression is written once per finding and commit, across retries and restarts. Both kept 7 days.
 */
import { z } from "zod";
import { FileMarkers } from "../domain/suppression.js";
import type { RedisConnection } from "../runtime/connection.js";
import { parseStored } from "./stored-record.js";

/** How long a commit's marker lines and acted-on findings are kept, in seconds (7 days). */
export const SUPPRESSION_RECORD_TTL_SECONDS = 7 * 24 * 3600;

/** A head commit of a repository. */
export interface CommitRef {
  owner: string;
  repo: string;
  headSha: string;
}

/** What a commit's marker did to a finding: `applied` (won't fix written) or `held` (an approval request stored). */
export const SuppressionAct = z.enum(["applied", "held"]);
export type SuppressionAct = z.infer<typeof SuppressionAct>;

/** The suppression records under diffward's state prefix. */
export class SuppressionStore {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
  ) {}

  #k(kind: "supfile" | "supsent", c: CommitRef): string {
    return `${this.prefix}:${kind}:${c.owner}/${c.repo}@${c.headSha}`;
  }

  /**
   * The marker lines of `path` at the commit, read with `read` the first time only (its result is kept).
   * @throws {StoredRecordError} when the kept record is not one; `read`'s errors.
   */
  async markers(c: CommitRef, path: string, read: () => Promise<FileMarkers>): Promise<FileMarkers> {
    const k = `${this.#k("supfile", c)}:${path}`;
    const raw = await this.redis.get(k);
    if (raw !== null) return parseStored(FileMarkers, k, raw);
    const markers = FileMarkers.parse(await read());
    await this.redis.set(k, JSON.stringify(markers), "EX", SUPPRESSION_RECORD_TTL_SECONDS);
    return markers;
  }

  /**
   * What the commit's marker already did to `findingId`, or `undefined`.
   * @throws {StoredRecordError} when the record is not one.
   */
  async acted(c: CommitRef, findingId: string): Promise<SuppressionAct | undefined> {
    const k = this.#k("supsent", c);
    const raw = await this.redis.hget(k, findingId);
    return raw === null ? undefined : parseStored(SuppressionAct, `${k} ${findingId}`, raw);
  }

  /** Records that the commit's marker did `act` to `findingId`. */
  async recordActed(c: CommitRef, findingId: string, act: SuppressionAct): Promise<void> {
    const k = this.#k("supsent", c);
    await this.redis
      .multi()
      .hset(k, findingId, JSON.stringify(act))
      .expire(k, SUPPRESSION_RECORD_TTL_SECONDS)
      .exec();
  }
}
