import { randomUUID } from "node:crypto";
import type { Job, JobsOptions, Queue, Worker } from "bullmq";
import { DEFAULT_QUEUE_PREFIX, type RedisConnection } from "./connection.js";

/** BullMQ's largest priority (2^21 − 1). */
export const MAX_PRIORITY = 2_097_151;

/**
 * The priority of the work a recovery walk adds (the reconciliation after a start, its resumed launches,
 * polls and baselines): BullMQ's lowest. BullMQ takes a queue's jobs without a priority first, then the
 * prioritized ones by ascending number (BullMQ docs, "Prioritized"); a webhook's job has none or a fair one
 * ({@link fairJobOptions}: its place among its installation's pending jobs, far below this), so every
 * webhook's job waiting in a queue is taken before the walk's, and a new pull request's first feedback does
 * not wait behind a walk of thousands of repositories.
 */
export const WALK_PRIORITY = MAX_PRIORITY;

/** How long (ms) a pending job id is trusted without its BullMQ job existing (the add is in flight). */
export const FAIR_GRACE_MS = 60_000;

/** How long (s) an installation's pending set outlives its last add. */
const FAIR_TTL_SECONDS = 24 * 3600;

type QueueRef = Pick<Queue, "name" | "opts">;

/**
 * The installation's set of pending job ids (a sorted set scored by when each was added, ms). It sits under
 * the queue's prefix, like the job hashes the add script reads (`jobKeyPrefix`): with a hash-tagged prefix
 * (`{diffward}`, required on a Redis Cluster) the script's keys are all in the queue's slot.
 */
function pendingKey(queue: QueueRef, installationId: number): string {
  return `${queue.opts.prefix ?? DEFAULT_QUEUE_PREFIX}:${queue.name}:fairq:${installationId}`;
}

/** BullMQ's key of a job's hash is this prefix plus the job id (`<prefix>:<queue>:<jobId>`). */
function jobKeyPrefix(queue: QueueRef): string {
  return `${queue.opts.prefix ?? DEFAULT_QUEUE_PREFIX}:${queue.name}:`;
}

// Drops ids whose job is gone (removed, evicted) or finished (`finishedOn` set by BullMQ when a job
// completes or fails for good), once older than the grace period (only those are read: an add costs the
// old ids, not every pending one); adds this id (NX: a de-duplicated add counts once); returns this id's
// place (1-based rank by time added).
// KEYS[1] pending set; ARGV: job key prefix, job id, now (ms), grace (ms), ttl (s).
const ADD_SCRIPT = `
local oldest = tonumber(ARGV[3]) - tonumber(ARGV[4])
local old = redis.call('zrangebyscore', KEYS[1], '-inf', oldest)
for i = 1, #old do
  local id = old[i]
  if id ~= ARGV[2] then
    local k = ARGV[1] .. id
    if redis.call('exists', k) == 0 or redis.call('hexists', k, 'finishedOn') == 1 then
      redis.call('zrem', KEYS[1], id)
    end
  end
end
redis.call('zadd', KEYS[1], 'NX', ARGV[3], ARGV[2])
redis.call('expire', KEYS[1], tonumber(ARGV[5]))
return redis.call('zrank', KEYS[1], ARGV[2]) + 1
`;

/**
 * The options that add a job with a priority that keeps installations fair (BullMQ's open-source edition has
 * no group rate limits): the priority is the job's place among this installation's jobs pending in the queue
 * (1 for the first), and BullMQ serves lower numbers first. So one organization opening 500 pull requests at
 * once takes priorities 1 to 500, and another organization's single pull request, priority 1, is served next
 * instead of after all 500. The job is counted as pending from this call: the caller adds it with these
 * options at once (`addJob` in `src/job-catalogue/add-job.ts`).
 *
 * The pending jobs are a set of job ids, not a counter, so nothing leaks: a de-duplicated add (same
 * `jobId`, which BullMQ ignores) counts once; a job that completed or failed for good leaves the set
 * through {@link releaseFairOnFinish}, and one that was removed (a superseded debounce launch) or missed
 * its release (a crash) is dropped by the next add once {@link FAIR_GRACE_MS} has passed. A job without
 * a `jobId` gets a random one so it can be tracked.
 * @param fair.graceMs overrides {@link FAIR_GRACE_MS} (tests).
 * @returns `opts` with the job id and the priority.
 */
export async function fairJobOptions(
  redis: RedisConnection,
  queue: QueueRef,
  installationId: number,
  opts: JobsOptions,
  fair: { graceMs?: number } = {},
): Promise<JobsOptions & { jobId: string; priority: number }> {
  const id = opts.jobId ?? randomUUID();
  const place = Number(
    await redis.eval(
      ADD_SCRIPT,
      1,
      pendingKey(queue, installationId),
      jobKeyPrefix(queue),
      id,
      Date.now(),
      fair.graceMs ?? FAIR_GRACE_MS,
      FAIR_TTL_SECONDS,
    ),
  );
  return { ...opts, jobId: id, priority: Math.min(Math.max(1, place), MAX_PRIORITY) };
}

/** How many of an installation's jobs are counted as pending in a queue (what the next add ranks behind). */
export async function fairPending(
  redis: RedisConnection,
  queue: QueueRef,
  installationId: number,
): Promise<number> {
  return redis.zcard(pendingKey(queue, installationId));
}

/**
 * Releases a job's place in its installation's pending set when it is done for good (completed, or
 * failed on its last attempt).
 */
export function releaseFairOnFinish(redis: RedisConnection, worker: Worker, queue: QueueRef): void {
  const release = async (job: Job | undefined) => {
    const id = (job?.data as { installationId?: unknown } | undefined)?.installationId;
    if (typeof id !== "number" || job?.id === undefined) return;
    await redis.zrem(pendingKey(queue, id), job.id);
  };
  worker.on("completed", (job) => void release(job).catch(() => undefined));
  worker.on("failed", (job) => {
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) void release(job).catch(() => undefined);
  });
}
