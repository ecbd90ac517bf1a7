import type { Job, JobsOptions, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";

/** BullMQ's largest priority (2^21 − 1). */
export const MAX_PRIORITY = 2_097_151;

function counterKey(queue: Pick<Queue, "name" | "opts">, installationId: number): string {
  return `${queue.opts.prefix ?? "bull"}:${queue.name}:fair:${installationId}`;
}

/**
 * Adds a job with a priority that keeps installations fair (BullMQ's open-source edition has no group
 * rate limits): the priority is the number of this installation's jobs already pending in the queue
 * (a Redis counter, 1 for its first), and BullMQ serves lower numbers first. So one organization opening
 * 500 pull requests at once takes priorities 1 to 500, and another organization's single pull request,
 * priority 1, is served next instead of after all 500. Jobs without an installation are added as is.
 */
export async function addFair<T extends { installationId?: number }>(
  redis: Redis | undefined,
  queue: Queue,
  name: string,
  data: T,
  opts: JobsOptions,
): Promise<Job<T>> {
  if (!redis || typeof data.installationId !== "number")
    return queue.add(name, data, opts) as Promise<Job<T>>;
  const client = redis;
  const key = counterKey(queue, data.installationId);
  const [[, count]] = (await client
    .multi()
    .incr(key)
    .expire(key, 24 * 3600)
    .exec()) as [[unknown, number]];
  return queue.add(name, data, { ...opts, priority: Math.min(Math.max(1, count), MAX_PRIORITY) }) as Promise<
    Job<T>
  >;
}

/**
 * Releases a job's place in its installation's fairness counter when it is done for good (completed, or
 * failed on its last attempt). The counter never goes below 0.
 */
export function releaseFairOnFinish(redis: Redis, worker: Worker, queue: Pick<Queue, "name" | "opts">): void {
  const release = async (job: Job | undefined) => {
    const id = (job?.data as { installationId?: unknown } | undefined)?.installationId;
    if (typeof id !== "number") return;
    await redis.eval(
      "local v = redis.call('decr', KEYS[1]) if v < 0 then redis.call('set', KEYS[1], 0) end return v",
      1,
      counterKey(queue, id),
    );
  };
  worker.on("completed", (job) => void release(job).catch(() => undefined));
  worker.on("failed", (job) => {
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) void release(job).catch(() => undefined);
  });
}
