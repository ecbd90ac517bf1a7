/**
 * A pull request's decisions document (Redis `<prefix>:decisions:<owner/repo#n>`, JSON): the resolutions and
 * severity overrides its team took, carried to later scans (the rules: `src/triage/decisions.ts`). Reads parse
 * with {@link PullDecisions}: a document that does not fit throws `StoredRecordError` (`./stored-record.ts`),
 * which triage treats as no decisions, logged.
 */
import { PullDecisions } from "../domain/decision.js";
import type { RedisConnection } from "../runtime/connection.js";
import { parseStored } from "./stored-record.js";

/** The pull requests' decisions documents under diffward's state prefix. */
export class DecisionStore {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
  ) {}

  #k(key: string): string {
    return `${this.prefix}:decisions:${key}`;
  }

  /**
   * The decisions of the pull request `key` (`owner/repo#n`), if it has a document.
   * @throws {StoredRecordError} when the document does not fit {@link PullDecisions}.
   */
  async get(key: string): Promise<PullDecisions | undefined> {
    const k = this.#k(key);
    const raw = await this.redis.get(k);
    return raw ? parseStored(PullDecisions, k, raw) : undefined;
  }

  /** Replaces the pull request's decisions, kept `ttlSeconds` (`decisionsTtlSeconds`, src/triage/decisions.ts). */
  async put(key: string, doc: PullDecisions, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.#k(key), JSON.stringify(PullDecisions.parse(doc)), "EX", ttlSeconds);
  }
}
