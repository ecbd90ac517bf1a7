import { Redis } from "ioredis";

/**
 * Deletes every Redis key under a harness prefix (diffward's state and BullMQ's queues alike): the way the
 * tests simulate losing Redis (a flush, a new Redis) while scans are in flight.
 * @returns how many keys were deleted.
 */
export async function flushPrefix(prefix: string, url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379") {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    let cursor = "0";
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) deleted += await r.del(...keys);
    } while (cursor !== "0");
  } finally {
    r.disconnect();
  }
  return deleted;
}
