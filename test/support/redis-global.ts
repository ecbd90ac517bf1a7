/**
 * vitest global setup: the tests need a Redis (queue tests use a real one). When `REDIS_URL` (default
 * 127.0.0.1:6379) does not answer, a private `redis-server` is started for the run and `REDIS_URL` set for the
 * test processes, so `npm ci && npm test` works on a fresh machine with Debian's `redis-server` installed
 * (README quick start), as `npm run demo` does. Without either, it says so once and the run goes on: the
 * in-process tests (`npm run test:unit`) need no Redis, the others fail on their connection.
 */
import { ensureRedis } from "../../dev/harness/redis.js";

export default async function setup(): Promise<() => Promise<void> | void> {
  try {
    const redis = await ensureRedis();
    process.env.REDIS_URL = redis.url;
    return async () => {
      await redis.stop?.();
    };
  } catch (error) {
    console.warn(`vitest: ${(error as Error).message}`);
    return () => undefined;
  }
}
