/**
 * Each installation's jobs per queue, so the organization's page counts one installation's queued work
 * without reading any other's. BullMQ keeps its states as lists and sorted sets of job ids
 * (`wait`, `active`, `delayed`, `prioritized`, `failed`, `completed`) and has no index by job data; counting
 * one installation's jobs from them would read every tenant's job hashes, a cost that grows with the whole
 * deployment. Instead every job added with a numeric `installationId` in its data is also recorded in its
 * installation's index (a sorted set of job ids beside the queue's keys), and a count reads only that index:
 * its cost is the installation's own jobs (those not finished, and those failed and kept), whatever the
 * other tenants queue.
 *
 * Jobs BullMQ's job schedulers create (a repository's baseline schedule, the delivery recovery) are not
 * added through {@link InstallationQueue.add} and are not counted; nor is a job whose process died between
 * BullMQ's add and the index write.
 */
import { Queue, type Job, type JobsOptions } from "bullmq";

/**
 * How long an index outlives its last add beyond the longest delay added to it, in ms (8 days): a failed
 * job is kept 7 days (`removeOnFail`, `src/runtime/names.ts`) and counted until BullMQ removes it.
 */
export const INDEX_RETENTION_MS = 8 * 24 * 3600_000;
/** Members of the index each add checks (oldest first) and drops when their job is gone or completed. */
export const PRUNE_PER_ADD = 8;
/** Members one count script reads (so a large installation never holds Redis for long). */
export const COUNT_CHUNK = 1_000;

/** The installation's index in a queue: `<prefix>:<queue>:jobsof:<installationId>` (sorted set of job ids). */
export function installationJobsKey(queue: Pick<Queue, "toKey">, installationId: number): string {
  return queue.toKey(`jobsof:${installationId}`);
}

// Checks the oldest members: a job gone (removed, or past its retention) or completed leaves the index, a
// live one is re-scored so the next adds check others; then adds this job and keeps the key at least `ttl`.
// KEYS: index, completed. ARGV: job key prefix, job id, now (ms), ttl (ms), members to check.
const INDEX_SCRIPT = `
local oldest = redis.call('zrange', KEYS[1], 0, tonumber(ARGV[5]) - 1)
for _, id in ipairs(oldest) do
  if id ~= ARGV[2] then
    if redis.call('exists', ARGV[1] .. id) == 0 or redis.call('zscore', KEYS[2], id) then
      redis.call('zrem', KEYS[1], id)
    else
      redis.call('zadd', KEYS[1], 'XX', ARGV[3], id)
    end
  end
end
redis.call('zadd', KEYS[1], ARGV[3], ARGV[2])
if redis.call('pttl', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('pexpire', KEYS[1], ARGV[4])
end
return 1
`;

// Counts the members ranked start..stop by state, as BullMQ's getState reads it (sorted sets first, then the
// active list, which holds only the jobs being processed); a member not in any of them is waiting (`wait`,
// `paused`, `waiting-children`). Gone and completed members leave the index; the next chunk starts at
// start + read - removed.
// KEYS: index, completed, failed, delayed, prioritized, active. ARGV: job key prefix, start, stop.
const COUNT_SCRIPT = `
local ids = redis.call('zrange', KEYS[1], ARGV[2], ARGV[3])
local waiting, active, delayed, failed, removed = 0, 0, 0, 0, 0
for _, id in ipairs(ids) do
  if redis.call('exists', ARGV[1] .. id) == 0 or redis.call('zscore', KEYS[2], id) then
    redis.call('zrem', KEYS[1], id)
    removed = removed + 1
  elseif redis.call('zscore', KEYS[3], id) then
    failed = failed + 1
  elseif redis.call('zscore', KEYS[4], id) then
    delayed = delayed + 1
  elseif redis.call('zscore', KEYS[5], id) then
    waiting = waiting + 1
  elseif redis.call('lpos', KEYS[6], id) then
    active = active + 1
  else
    waiting = waiting + 1
  end
end
return {#ids, removed, waiting, active, delayed, failed}
`;

/** The scripts, as commands defined on BullMQ's client of a queue (`IRedisClient.defineCommand`). */
const COMMANDS = {
  diffwardIndexJob: { numberOfKeys: 2, lua: INDEX_SCRIPT },
  diffwardCountJobs: { numberOfKeys: 6, lua: COUNT_SCRIPT },
} as const;
const defined = new WeakSet<object>();

/** One installation's jobs in one queue, by state (prioritized jobs count as waiting). */
export interface InstallationQueueCounts {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/**
 * Runs one of {@link COMMANDS} on the client BullMQ opened for `queue` (defined there on first use), with
 * `args` its keys then its arguments.
 */
async function run(
  queue: Queue,
  name: keyof typeof COMMANDS,
  args: Array<string | number>,
): Promise<unknown> {
  const client = await queue.getBackend().client;
  if (!defined.has(client)) {
    for (const [n, c] of Object.entries(COMMANDS)) client.defineCommand(n, { ...c });
    defined.add(client);
  }
  return client.runCommand(name, args);
}

/** Records `job` in its installation's index, when its data names one (a number `installationId`). */
async function indexJob(queue: Queue, job: Pick<Job, "id" | "data">, opts: JobsOptions | undefined) {
  const installationId = (job.data as { installationId?: unknown } | undefined)?.installationId;
  if (typeof installationId !== "number" || job.id === undefined) return;
  const ttl = Math.max(0, opts?.delay ?? 0) + INDEX_RETENTION_MS;
  await run(queue, "diffwardIndexJob", [
    installationJobsKey(queue, installationId),
    queue.keys.completed!,
    queue.keys[""]!,
    job.id,
    Date.now(),
    ttl,
    PRUNE_PER_ADD,
  ]);
}

/**
 * A BullMQ queue that also records each job it adds in its installation's index ({@link installationJobsKey}).
 * It hooks `addJob` (BullMQ's documented extension point under `add`) and `addBulk`, so every add (diffward's
 * go through the catalogue's `addJob`, `src/job-catalogue/add-job.ts`) is recorded once BullMQ has added it.
 */
export class InstallationQueue extends Queue {
  protected override async addJob(name: string, data: unknown, opts?: JobsOptions): Promise<Job> {
    const job = await super.addJob(name, data, opts);
    await indexJob(this, job, opts);
    return job;
  }

  override async addBulk(jobs: Parameters<Queue["addBulk"]>[0]): ReturnType<Queue["addBulk"]> {
    const added = await super.addBulk(jobs);
    await Promise.all(added.map((job, i) => indexJob(this, job, jobs[i]?.opts)));
    return added;
  }
}

/**
 * One installation's jobs in `queue` by state, read from its index {@link COUNT_CHUNK} members per script;
 * members whose job is gone or completed leave the index as they are found.
 * @throws Redis errors as they come
 */
export async function installationQueueCounts(
  queue: Queue,
  installationId: number,
): Promise<InstallationQueueCounts> {
  const k = queue.keys;
  const keys = [k.completed!, k.failed!, k.delayed!, k.prioritized!, k.active!];
  const index = installationJobsKey(queue, installationId);
  const counts = { queue: queue.name, waiting: 0, active: 0, delayed: 0, failed: 0 };
  for (let start = 0; ;) {
    const [read, removed, waiting, active, delayed, failed] = (await run(queue, "diffwardCountJobs", [
      index,
      ...keys,
      k[""]!,
      start,
      start + COUNT_CHUNK - 1,
    ])) as number[];
    counts.waiting += waiting!;
    counts.active += active!;
    counts.delayed += delayed!;
    counts.failed += failed!;
    if (read! < COUNT_CHUNK) return counts;
    start += read! - removed!;
  }
}
