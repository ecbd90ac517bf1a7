import { randomUUID } from "node:crypto";
import type { RedisConnection } from "./connection.js";

// Sets the key's expiry only while it still holds this holder's token (1), else 0.
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;
// Deletes the key only while it still holds this holder's token.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/** A Redis lock this process holds: renewed while held, released once. */
export interface HeldLock {
  key: string;
  /**
   * the holder's token, the key's value while the lock is this holder's: a write guarded by the lock checks
   * it in the same script (a holder that stalled past the TTL may have lost the lock to another)
   */
  token: string;
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
  const renew = setInterval(
    () => {
      // a Redis hiccup: the next renewal tries again
      redis.eval(RENEW, 1, key, token, String(ttlMs)).catch(() => undefined);
    },
    Math.max(10, Math.floor(ttlMs / 3)),
  );
  renew.unref();
  return {
    key,
    token,
    async release() {
      clearInterval(renew);
      await redis.eval(RELEASE, 1, key, token);
    },
  };
}
