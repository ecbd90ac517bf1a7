/**
 * The command comments' claims and sends: which job claimed a command comment
 * (`<prefix>:cmd:<owner>/<repo>:<form>:<commentId>`, `SET NX`), so a redelivered webhook or a second delivery
 * of the same comment runs nothing, and the service writes that command already sent, with their results
 * (`<prefix>:cmdsent:…`, a hash: field the step, value `{"v": result}` as JSON), so a retried job sends none
 * twice. Both kept 7 days.
 */
import { z } from "zod";
import type { RedisConnection } from "../runtime/connection.js";
import { parseStored } from "./stored-record.js";

/** How long a command comment's claim and its sent writes are kept, in seconds (7 days). */
export const COMMAND_CLAIM_TTL_SECONDS = 7 * 24 * 3600;

/** A command comment: where it was written and its id (`form`: the conversation, a review, a review comment). */
export interface CommandComment {
  owner: string;
  repo: string;
  form: string;
  commentId: number;
}

/** A write's result as kept (`{"v": result}`; `{}` for a write that returned nothing). */
const SentResult = z.object({ v: z.unknown().optional() });

/** The command comments' claims and sent writes under diffward's state prefix. */
export class CommandClaims {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
  ) {}

  #k(kind: "cmd" | "cmdsent", c: CommandComment): string {
    return `${this.prefix}:${kind}:${c.owner}/${c.repo}:${c.form}:${c.commentId}`;
  }

  /**
   * Claims the comment for the job `jobId`: true for the first job, and again for that job (its retries),
   * false for any other.
   */
  async claim(comment: CommandComment, jobId: string): Promise<boolean> {
    const k = this.#k("cmd", comment);
    if ((await this.redis.set(k, jobId, "EX", COMMAND_CLAIM_TTL_SECONDS, "NX")) === "OK") return true;
    return (await this.redis.get(k)) === jobId;
  }

  /**
   * The result of the comment's write `step` when it was sent (`{ v }`), else `undefined`.
   * @throws {StoredRecordError} when the record is not one.
   */
  async sent(comment: CommandComment, step: string): Promise<{ v?: unknown } | undefined> {
    const k = this.#k("cmdsent", comment);
    const raw = await this.redis.hget(k, step);
    return raw === null ? undefined : parseStored(SentResult, `${k} ${step}`, raw);
  }

  /** Records that the comment's write `step` was sent, with its result. */
  async recordSent(comment: CommandComment, step: string, result: unknown): Promise<void> {
    const k = this.#k("cmdsent", comment);
    await this.redis
      .multi()
      .hset(k, step, JSON.stringify({ v: result }))
      .expire(k, COMMAND_CLAIM_TTL_SECONDS)
      .exec();
  }
}
