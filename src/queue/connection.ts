import { Redis } from "ioredis";

/**
 * Opens an ioredis connection fit for BullMQ workers: `maxRetriesPerRequest: null` is required by
 * BullMQ for blocking connections (BullMQ docs, "Connections"), so a Redis outage pauses work instead of
 * failing it. `enableReadyCheck` is kept so a restarting Redis is waited for.
 */
export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}
