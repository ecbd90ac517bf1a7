import type { RedisConnection } from "./connection.js";
import { takeLock, type HeldLock } from "./renewed-lock.js";
import type { Runtime } from "./runtime.js";

/**
 * Where the listing of the App's webhook deliveries stands (`{prefix}:deliveries:scan`, a JSON string that
 * expires with the redelivery window):
 * - `head`: delivered_at (ms) of the newest delivery a finished pass has seen; the next pass lists back to it;
 * - `resume`: a pass cut short by the per-run page bound, to go on with from `cursor` (GitHub's `cursor`
 *   query parameter of the `Link` header's next page) down to `floor` (ms), then `head` becomes `top`.
 */
export interface DeliveryScan {
  head?: number;
  resume?: { cursor: string; floor: number; top: number };
}

/** A GUID whose deliveries all failed so far, followed until a delivery of it succeeds or diffward gives up. */
export interface TrackedDelivery {
  /** the newest failed delivery of the GUID (the id `POST /app/hook/deliveries/{delivery_id}/attempts` takes) */
  id: number;
  /** delivered_at of its oldest failed delivery seen, ms: past GitHub's redelivery window it cannot be redelivered */
  at: number;
  /** redeliveries diffward asked for so far */
  attempts: number;
}

/** Why a GUID is no longer followed: a delivery of it succeeded, or diffward gave up on it. */
export type Settled = "ok" | "given-up";

/**
 * diffward's Redis records of the App's webhook deliveries (`{prefix}:deliveries:*`): the run lock (one
 * recovery run at a time across every process), the listing's progress ({@link DeliveryScan}), the GUIDs
 * followed ({@link TrackedDelivery}, a hash), a GUID's settlement (`settled:<guid>`: a delivery of it
 * succeeded, or diffward gave up) and a redelivery pending (`pending:<guid>`). Every key expires: the
 * records only matter within GitHub's redelivery window (`ttlMs`).
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

  async scan(): Promise<DeliveryScan> {
    const raw = await this.redis.get(this.#k("deliveries", "scan"));
    return raw ? (JSON.parse(raw) as DeliveryScan) : {};
  }

  async saveScan(scan: DeliveryScan): Promise<void> {
    await this.redis.set(this.#k("deliveries", "scan"), JSON.stringify(scan), "PX", this.ttlMs);
  }

  /** Every GUID followed, by GUID. */
  async tracked(): Promise<Map<string, TrackedDelivery>> {
    const all = await this.redis.hgetall(this.#k("deliveries", "tracked"));
    return new Map(Object.entries(all).map(([guid, v]) => [guid, JSON.parse(v) as TrackedDelivery]));
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

  /** The settlement of each GUID (`undefined` when unsettled), in the order asked. */
  async settled(guids: readonly string[]): Promise<Array<Settled | undefined>> {
    if (guids.length === 0) return [];
    const values = await this.redis.mget(...guids.map((g) => this.#k("deliveries", "settled", g)));
    return values.map((v) => (v === "ok" || v === "given-up" ? v : undefined));
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

  /** Which GUIDs have a redelivery pending, in the order asked. */
  async pending(guids: readonly string[]): Promise<boolean[]> {
    if (guids.length === 0) return [];
    const values = await this.redis.mget(...guids.map((g) => this.#k("deliveries", "pending", g)));
    return values.map((v) => v !== null);
  }

  /** Marks a redelivery of `guid` pending for `ttlMs`. */
  async markPending(guid: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.#k("deliveries", "pending", guid), "1", "PX", ttlMs);
  }
}

/**
 * The ledger of `rt`'s deployment: its records kept for the redelivery window plus an hour (a record only
 * matters while GitHub can still redeliver its event).
 */
export function deliveryLedger(rt: Pick<Runtime, "redis" | "state" | "settings">): DeliveryLedger {
  return new DeliveryLedger(rt.redis, rt.state.prefix, rt.settings.redeliveryWindowMs + 3_600_000);
}
