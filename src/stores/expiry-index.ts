/**
 * The acceptances that expire (`/wontfix … until …`), indexed per installation so that reconciliation can
 * resume their delayed jobs and the organization's page can list them without reading every pull request:
 * `<prefix>:expiries:<installationId>`, a sorted set of the expiry jobs' data (a JSON array) scored by the
 * moment (ms since the epoch); and each expiry job's steps already sent (`<prefix>:once:expiry:<expiryId>`, a
 * hash), so a retried job sends none twice. The rules are `src/triage/expiry.ts`'s.
 */
import { AcceptanceExpiryJobData, type ExpiryPull } from "../job-catalogue/event-data.js";
import type { RedisConnection } from "../runtime/connection.js";
import { scanKeys } from "./stored-record.js";

/** How long an expiry job's sent steps are kept, in seconds (7 days). */
const STEPS_TTL_SECONDS = 7 * 24 * 3600;

/** An index entry: the expiry's job data as a JSON array (what a rebuild of its job needs). */
function member(pull: ExpiryPull, expiryId: string): string {
  return JSON.stringify([
    pull.installationId,
    pull.accountLogin,
    pull.owner,
    pull.repo,
    pull.pullNumber,
    expiryId,
  ]);
}

/** The job data an index entry names, or `undefined` for an entry that does not parse. */
function entryOf(m: string): AcceptanceExpiryJobData | undefined {
  try {
    const [installationId, accountLogin, owner, repo, pullNumber, expiryId] = JSON.parse(m) as unknown[];
    const parsed = AcceptanceExpiryJobData.safeParse({
      installationId,
      accountLogin,
      owner,
      repo,
      pullNumber,
      expiryId,
    });
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The installations' expiries indexes and the expiry jobs' sent steps under diffward's state prefix. */
export class ExpiryIndex {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
  ) {}

  #k(installationId: number): string {
    return `${this.prefix}:expiries:${installationId}`;
  }

  /**
   * Adds an expiry to its installation's index, due at `atMs` (ms since the epoch); the index then lives at
   * least `ttlSeconds` more (never less than it did).
   */
  async add(pull: ExpiryPull, expiryId: string, atMs: number, ttlSeconds: number): Promise<void> {
    const key = this.#k(pull.installationId);
    await this.redis
      .multi()
      .zadd(key, atMs, member(pull, expiryId))
      .expire(key, ttlSeconds, "NX")
      .expire(key, ttlSeconds, "GT")
      .exec();
  }

  /** Drops an expiry from its installation's index (its job ended or was cancelled). */
  async remove(pull: ExpiryPull, expiryId: string): Promise<void> {
    await this.redis.zrem(this.#k(pull.installationId), member(pull, expiryId));
  }

  /**
   * The installation's expiries due by `untilMs` (ms since the epoch; all when unset), soonest first; an entry
   * that does not parse is left out.
   */
  async entries(installationId: number, untilMs?: number): Promise<AcceptanceExpiryJobData[]> {
    const members = await this.redis.zrangebyscore(this.#k(installationId), "-inf", untilMs ?? "+inf");
    return members.flatMap((m) => entryOf(m) ?? []);
  }

  /** The installations with an expiries index (Redis `SCAN`; on a cluster, every master's keys). */
  async installations(): Promise<number[]> {
    const head = `${this.prefix}:expiries:`;
    const ids: number[] = [];
    for await (const key of scanKeys(this.redis, `${head}*`)) {
      const id = Number(key.slice(head.length));
      if (Number.isInteger(id)) ids.push(id);
    }
    return ids.sort((a, b) => a - b);
  }

  /** The steps an expiry job already sent (step → its value), `{}` when none. */
  async sentSteps(expiryId: string): Promise<Record<string, string>> {
    return this.redis.hgetall(`${this.prefix}:once:expiry:${expiryId}`);
  }

  /** Records a step an expiry job sent, with its value, kept 7 days. */
  async markSent(expiryId: string, step: string, value: string): Promise<void> {
    const key = `${this.prefix}:once:expiry:${expiryId}`;
    await this.redis.multi().hset(key, step, value).expire(key, STEPS_TTL_SECONDS).exec();
  }
}
