import { z } from "zod";
import type { RedisConnection } from "../runtime/connection.js";
import { takeLock, type HeldLock } from "../runtime/renewed-lock.js";
import { parseStored, parseStoredOrAbsent, type Stored } from "./stored-record.js";

/**
 * Where the listing of the App's webhook deliveries stands (`{prefix}:deliveries:scan`, a JSON string that
 * expires with the redelivery window):
 * - `head`: delivered_at (ms) of the newest delivery a finished pass has seen; the next pass lists back to it;
 * - `seenAt`: when the newest finished pass began listing (ms, diffward's clock): every delivery GitHub had
 *   recorded by then has been listed;
 * - `resume`: a pass cut short by the per-run page bound, begun at `startedAt`, to go on with from `cursor`
 *   (GitHub's `cursor` query parameter of the `Link` header's next page) down to `floor` (ms), then `head`
 *   becomes `top`.
 */
export const DeliveryScan = z.looseObject({
  head: z.number().optional(),
  seenAt: z.number().optional(),
  /** `startedAt` is absent from a pass an older diffward began */
  resume: z
    .object({ cursor: z.string(), floor: z.number(), top: z.number(), startedAt: z.number().optional() })
    .optional(),
});
export type DeliveryScan = Stored<typeof DeliveryScan>;

/**
 * A redelivery diffward asked for (`{prefix}:deliveries:pending:<guid>`, JSON): the failed delivery `id`
 * it redelivered and when it asked, `at` (ms, diffward's clock).
 */
export const PendingRedelivery = z.object({ id: z.number(), at: z.number() });
export type PendingRedelivery = z.infer<typeof PendingRedelivery>;

/** What {@link DeliveryLedger.claimRedelivery} found. */
export type Claim = "claimed" | "taken" | "lock-lost";

/** A GUID whose deliveries all failed so far, followed until a delivery of it succeeds or diffward gives up. */
export const TrackedDelivery = z.object({
  /** the newest failed delivery of the GUID (the id `POST /app/hook/deliveries/{delivery_id}/attempts` takes) */
  id: z.number(),
  /** delivered_at of its oldest failed delivery seen, ms: past GitHub's redelivery window it cannot be redelivered */
  at: z.number(),
  /** redeliveries diffward asked for so far */
  attempts: z.number(),
});
export type TrackedDelivery = z.infer<typeof TrackedDelivery>;

/** Why a GUID is no longer followed: a delivery of it succeeded, or diffward gave up on it. */
export type Settled = "ok" | "given-up";

/**
 * diffward's Redis records of the App's webhook deliveries (`{prefix}:deliveries:*`): the run lock (one
 * recovery run at a time across every process), the listing's progress ({@link DeliveryScan}), the GUIDs
 * followed ({@link TrackedDelivery}, a hash), a GUID's settlement (`settled:<guid>`: a delivery of it
 * succeeded, or diffward gave up), the redelivery asked for (`pending:<guid>`, {@link PendingRedelivery}) and
 * a delivery diffward's webhook path accepted (`accepted:<guid>`).
 * Every key expires: the records only matter within GitHub's redelivery window (`ttlMs`). Reads parse with zod:
 * the listing's progress or a followed GUID that is not one throws `StoredRecordError` (`./stored-record.ts`).
 */
export class DeliveryLedger {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    /** how long the records are kept, in ms: the redelivery window, plus an hour */
    private readonly ttlMs: number,
  ) {}

  #k(kind: "deliveries", ...parts: string[]): string {
    return [this.prefix, kind, ...parts].join(":");
  }

  /**
   * Takes the run lock, renewed while the run lives ({@link takeLock}): a run that died frees it `ttlMs` after
   * its last renewal.
   * @returns the held lock, or `undefined` when another run holds it.
   */
  lock(ttlMs: number): Promise<HeldLock | undefined> {
    return takeLock(this.redis, this.#k("deliveries", "run"), ttlMs);
  }

  /** How long the run lock is held still, in ms (0 when free): when a run that found it taken tries again. */
  async lockedFor(): Promise<number> {
    return Math.max(0, await this.redis.pttl(this.#k("deliveries", "run")));
  }

  /** Where the listing stands (`{}`: no pass finished within the TTL). @throws {StoredRecordError} when it is not one. */
  async scan(): Promise<DeliveryScan> {
    const key = this.#k("deliveries", "scan");
    const raw = await this.redis.get(key);
    return raw ? parseStored(DeliveryScan, key, raw) : {};
  }

  async saveScan(scan: DeliveryScan): Promise<void> {
    await this.redis.set(this.#k("deliveries", "scan"), JSON.stringify(scan), "PX", this.ttlMs);
  }

  /** Every GUID followed, by GUID. @throws {StoredRecordError} when one is not a followed GUID's record. */
  async tracked(): Promise<Map<string, TrackedDelivery>> {
    const key = this.#k("deliveries", "tracked");
    const all = await this.redis.hgetall(key);
    return new Map(
      Object.entries(all).map(([guid, v]) => [guid, parseStored(TrackedDelivery, `${key} ${guid}`, v)]),
    );
  }

  /** Writes (or replaces) followed GUIDs and removes others, in one transaction. */
  async updateTracked(put: ReadonlyMap<string, TrackedDelivery>, remove: readonly string[]): Promise<void> {
    const key = this.#k("deliveries", "tracked");
    const m = this.redis.multi();
    if (put.size > 0) m.hset(key, Object.fromEntries([...put].map(([guid, t]) => [guid, JSON.stringify(t)])));
    if (remove.length > 0) m.hdel(key, ...remove);
    m.pexpire(key, this.ttlMs);
    await m.exec();
  }

  /**
   * The settlement of each GUID (`undefined` when unsettled), in the order asked: `ok` too for a GUID
   * diffward's webhook path accepted ({@link accept}), whatever GitHub recorded for its delivery.
   */
  async settled(guids: readonly string[]): Promise<Array<Settled | undefined>> {
    if (guids.length === 0) return [];
    const keys = guids.flatMap((g) => [
      this.#k("deliveries", "settled", g),
      this.#k("deliveries", "accepted", g),
    ]);
    const values = await this.redis.mget(...keys);
    return guids.map((_, i) => {
      const v = values[2 * i];
      if (v === "ok" || values[2 * i + 1] !== null) return "ok";
      return v === "given-up" ? v : undefined;
    });
  }

  /**
   * Records that diffward's webhook path accepted a delivery of `guid` (its handler ran to the end: the job
   * is enqueued), for as long as the ledger's records live (the redelivery window plus an hour): a later
   * delivery of the same event (a redelivery, by diffward's recovery or by hand) is then not handled again,
   * and the recovery never redelivers it, even when GitHub recorded the accepted delivery as failed (an
   * answer later than its 10 s: docs, "Troubleshooting webhooks", "Timed out").
   */
  async accept(guid: string): Promise<void> {
    await this.redis.set(this.#k("deliveries", "accepted", guid), "1", "PX", this.ttlMs);
  }

  /** Whether a delivery of `guid` was accepted ({@link accept}) within the ledger's TTL. */
  async isAccepted(guid: string): Promise<boolean> {
    return (await this.redis.exists(this.#k("deliveries", "accepted", guid))) === 1;
  }

  /** Settles GUIDs; `ok` always wins over `given-up` (a success seen later still counts). */
  async settle(guids: readonly string[], how: Settled): Promise<void> {
    if (guids.length === 0) return;
    const m = this.redis.multi();
    for (const g of guids) {
      if (how === "ok") m.set(this.#k("deliveries", "settled", g), how, "PX", this.ttlMs);
      else m.set(this.#k("deliveries", "settled", g), how, "PX", this.ttlMs, "NX");
    }
    await m.exec();
  }

  /**
   * The redelivery recorded for each GUID (`undefined`: none), in the order asked. A record that is not one
   * (written by an older diffward) reads as a redelivery of delivery 0 asked for at 0.
   */
  async pending(guids: readonly string[]): Promise<Array<PendingRedelivery | undefined>> {
    if (guids.length === 0) return [];
    const values = await this.redis.mget(...guids.map((g) => this.#k("deliveries", "pending", g)));
    return values.map((v) => (v === null ? undefined : parsePending(v)));
  }

  /**
   * Records `next` as `guid`'s redelivery, in one script, only while the run `lock` still holds the run lock
   * and the GUID's record is still `seen` (what the run read; `undefined`: none): of two runs that decided
   * to redeliver the same GUID (one outlived its lock), one claims it. Kept for the ledger's TTL.
   * @returns `claimed`; `taken` when the record changed since it was read; `lock-lost` when the run lock is
   *   no longer the run's.
   */
  async claimRedelivery(
    lock: Pick<HeldLock, "key" | "token">,
    guid: string,
    seen: PendingRedelivery | undefined,
    next: PendingRedelivery,
  ): Promise<Claim> {
    const key = this.#k("deliveries", "pending", guid);
    const args = [pendingText(seen), pendingText(next), String(this.ttlMs), lock.token];
    const r = await this.redis.eval(CLAIM, 2, key, lock.key, ...args);
    return r === 1 ? "claimed" : r === -1 ? "lock-lost" : "taken";
  }

  /** Puts back `guid`'s record `seen` in place of `claimed` (a redelivery claimed that GitHub did not take). */
  async unclaimRedelivery(
    guid: string,
    claimed: PendingRedelivery,
    seen: PendingRedelivery | undefined,
  ): Promise<void> {
    const key = this.#k("deliveries", "pending", guid);
    await this.redis.eval(SWAP, 1, key, pendingText(claimed), pendingText(seen), String(this.ttlMs));
  }
}

// KEYS[1] a GUID's pending record, KEYS[2] the run lock; ARGV: the record read ('' none), the record to
// write, its TTL (ms), the run's lock token. -1: the lock is not the run's; 0: the record changed; 1: written.
const CLAIM = `if redis.call('get', KEYS[2]) ~= ARGV[4] then return -1 end
if (redis.call('get', KEYS[1]) or '') ~= ARGV[1] then return 0 end
redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

// KEYS[1] a GUID's pending record; ARGV: the record expected, the record to put back ('' deletes), its TTL.
const SWAP = `if (redis.call('get', KEYS[1]) or '') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then return redis.call('del', KEYS[1]) end
redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

/** A pending record as stored: JSON with `id` then `at` ('' for none). */
function pendingText(p: PendingRedelivery | undefined): string {
  return p === undefined ? "" : JSON.stringify({ id: p.id, at: p.at });
}

/** A pending record as read; one that is not one (an older diffward's) reads as delivery 0 asked for at 0. */
function parsePending(text: string): PendingRedelivery {
  return parseStoredOrAbsent(PendingRedelivery, text) ?? { id: 0, at: 0 };
}
