import type { Job } from "bullmq";
import { QUEUE_NAMES } from "./names.js";
import type { Runtime } from "./runtime.js";

/** A queue's short name ({@link QUEUE_NAMES}' keys: `events`, `launch`, `scans`, `reports`). */
export type QueueKey = keyof typeof QUEUE_NAMES;

/** The short names, in the order a scan flows through them. */
export const QUEUE_KEYS = Object.keys(QUEUE_NAMES) as QueueKey[];

/** One queue's state for an operator. */
export interface QueueStatus {
  queue: string;
  paused: boolean;
  waiting: number;
  active: number;
  delayed: number;
  prioritized: number;
  failed: number;
  completed: number;
}

/** A failed job as an operator inspects it. */
export interface FailedJob {
  id: string;
  name: string;
  attemptsMade: number;
  failedReason: string;
  /** ms since the epoch */
  finishedOn?: number;
}

/**
 * @returns the queue keys named by `names` (all four when empty).
 * @throws {Error} naming the unknown one and the known ones.
 */
export function queueKeys(names: readonly string[]): QueueKey[] {
  if (names.length === 0) return QUEUE_KEYS;
  return names.map((n) => {
    const k = n.replace(/^diffward-/, "") as QueueKey;
    if (!QUEUE_KEYS.includes(k)) throw new Error(`unknown queue ${n}: one of ${QUEUE_KEYS.join(", ")}`);
    return k;
  });
}

/** Each queue's paused flag and job counts by state (BullMQ `Queue.getJobCounts`, `isPaused`). */
export async function queueStatus(queues: Runtime["queues"]): Promise<QueueStatus[]> {
  return Promise.all(
    QUEUE_KEYS.map(async (k) => {
      const q = queues[k];
      const c = await q.getJobCounts("waiting", "active", "delayed", "prioritized", "failed", "completed");
      return {
        queue: q.name,
        paused: await q.isPaused(),
        waiting: c.waiting ?? 0,
        active: c.active ?? 0,
        delayed: c.delayed ?? 0,
        prioritized: c.prioritized ?? 0,
        failed: c.failed ?? 0,
        completed: c.completed ?? 0,
      };
    }),
  );
}

/**
 * Pauses (or resumes) queues for every process (BullMQ `Queue.pause`: workers take no new job, running jobs
 * finish, new jobs are still added and wait; a delayed job that comes due waits too).
 */
export async function setPaused(queues: Runtime["queues"], keys: readonly QueueKey[], paused: boolean) {
  for (const k of keys) await (paused ? queues[k].pause() : queues[k].resume());
}

/** The newest `limit` failed jobs of a queue, newest first. */
export async function failedJobs(queues: Runtime["queues"], key: QueueKey, limit = 20): Promise<FailedJob[]> {
  const jobs = await queues[key].getJobs(["failed"], 0, Math.max(0, limit - 1), false);
  return jobs
    .filter((j): j is Job => Boolean(j))
    .map((j) => ({
      id: j.id ?? "",
      name: j.name,
      attemptsMade: j.attemptsMade,
      failedReason: j.failedReason,
      ...(j.finishedOn ? { finishedOn: j.finishedOn } : {}),
    }));
}

/** Failed jobs read per page by {@link retryFailed} `"all"`. */
export const RETRY_PAGE_SIZE = 100;

/**
 * Moves failed jobs of a queue back to waiting (BullMQ `Job.retry("failed")`, a fresh set of attempts): the
 * ones named by `ids`, or every failed one when `ids` is `"all"`, read `pageSize` at a time (never all at once).
 * @returns the ids retried; an id that is not a failed job of the queue is left out.
 */
export async function retryFailed(
  queues: Runtime["queues"],
  key: QueueKey,
  ids: readonly string[] | "all",
  pageSize = RETRY_PAGE_SIZE,
): Promise<string[]> {
  const q = queues[key];
  if (ids === "all") return retryAllFailed(q, pageSize);
  const done: string[] = [];
  for (const j of await Promise.all(ids.map((id) => q.getJob(id))))
    if (j && (await retryIfFailed(j))) done.push(j.id ?? "");
  return done;
}

async function retryIfFailed(j: Job): Promise<boolean> {
  if ((await j.getState()) !== "failed") return false;
  await j.retry("failed");
  return true;
}

/**
 * Every failed job of `q`, page by page, oldest first (the failed set is ordered by when each job failed): a
 * retried job leaves the set and one that fails meanwhile joins at its end, so the next page starts after the
 * jobs left in place (`offset`), and no more jobs are looked at than had failed at the start, so a job that
 * fails again at once is not retried in a loop.
 */
async function retryAllFailed(q: Runtime["queues"][QueueKey], pageSize: number): Promise<string[]> {
  let left = await q.getFailedCount();
  let offset = 0;
  const done: string[] = [];
  while (left > 0) {
    const page = await q.getJobs(["failed"], offset, offset + Math.min(pageSize, left) - 1, true);
    if (page.length === 0) break;
    for (const j of page) {
      left -= 1;
      if (!j)
        offset += 1; // its id is in the set without its data: left in place
      else if (await retryIfFailed(j)) done.push(j.id ?? "");
      // a job no longer failed when read has left the set by itself: nothing stays in place
    }
  }
  return done;
}
