import { randomUUID } from "node:crypto";
import type { RedisConnection } from "./connection.js";

// Sets the key's expiry only while it still holds this holder's token (1), else 0.
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;
// Deletes the key only while it still holds this holder's token.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/** A Redis lock this process holds: renewed while held, released once. */
export interface HeldLock {
  /**
   * false once a renewal found the key gone or another holder's (this holder stalled longer than the lock's
   * TTL, and someone else may hold it now): whatever it guards should stop.
   */
  held(): boolean;
  /** Stops the renewals and deletes the key while it is still this holder's. */
  release(): Promise<void>;
}

/**
 * Takes the lock `key` for `ttlMs` (Redis `SET NX PX` with a random token, the single-instance pattern of
 * the Redis docs "Distributed Locks with Redis"), then renews it every third of `ttlMs` while it is still
 * this holder's: a live holder keeps it however long it works, a dead one's lock is free `ttlMs` after its
 * last renewal.
 * @param ttlMs how long the lock outlives a dead holder, in ms.
 * @returns the held lock, or `undefined` when another holder has it.
 */
export async function takeLock(
  redis: RedisConnection,
  key: string,
  ttlMs: number,
): Promise<HeldLock | undefined> {
  const token = randomUUID();
  if ((await redis.set(key, token, "PX", ttlMs, "NX")) !== "OK") return undefined;
  let held = true;
  const renew = setInterval(
    () => {
      redis
        .eval(RENEW, 1, key, token, String(ttlMs))
        .then((ok) => {
          if (ok !== 1) held = false;
        })
        .catch(() => undefined); // a Redis hiccup: the next renewal tries again
    },
    Math.max(10, Math.floor(ttlMs / 3)),
  );
  renew.unref();
  return {
    held: () => held,
    async release() {
      clearInterval(renew);
      held = false;
      await redis.eval(RELEASE, 1, key, token);
    },
  };
}
