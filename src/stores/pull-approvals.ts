/**
 * A pull request's dismissals awaiting a second person (Redis `<prefix>:approvals:<owner/repo#n>`, JSON; the
 * rules: `src/domain/dismissal-approval.ts`, changed under the pull request's lock by `src/triage/approvals.ts`). Reads
 * parse with {@link PullApprovals}: a document that does not fit throws `StoredRecordError`
 * (`./stored-record.ts`), which triage treats as no requests, logged.
 */
import { PullApprovals, type ApprovalRequest } from "../domain/dismissal-approval.js";
import type { RedisConnection } from "../runtime/connection.js";
import { parseStored } from "./stored-record.js";

/** How long a pull request's requests are kept after their last change, in seconds (90 days). */
const APPROVALS_TTL_SECONDS = 60 * 60 * 24 * 90;

/** The pull requests' approval requests under diffward's state prefix. */
export class ApprovalStore {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
  ) {}

  #k(key: string): string {
    return `${this.prefix}:approvals:${key}`;
  }

  /**
   * The pending requests of the pull request `key` (`owner/repo#n`); `undefined` when it has no document.
   * @throws {StoredRecordError} when the document does not fit {@link PullApprovals}.
   */
  async get(key: string): Promise<ApprovalRequest[] | undefined> {
    const k = this.#k(key);
    const raw = await this.redis.get(k);
    return raw ? parseStored(PullApprovals, k, raw).requests : undefined;
  }

  /** Replaces the pull request's requests, kept 90 days. */
  async put(key: string, requests: readonly ApprovalRequest[]): Promise<void> {
    const doc = PullApprovals.parse({ requests });
    await this.redis.set(this.#k(key), JSON.stringify(doc), "EX", APPROVALS_TTL_SECONDS);
  }
}
