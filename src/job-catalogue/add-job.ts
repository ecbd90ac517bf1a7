import type { Job, JobsOptions, RepeatOptions } from "bullmq";
import type { z } from "zod";
import type { RedisConnection } from "../runtime/connection.js";
import { fairJobOptions } from "../runtime/fairness.js";
import type { Runtime } from "../runtime/runtime.js";
import { JOBS, type JobData, type JobKind } from "./catalogue.js";

/** Job data its kind's schema refuses: the job is not added (or, taken by a worker, fails for good). */
export class InvalidJobDataError extends Error {
  override readonly name = "InvalidJobDataError";
  constructor(
    readonly kind: JobKind,
    /** what does not match, `path: message` each (never the values: a comment's text, say) */
    readonly problems: string[],
  ) {
    super(`job ${JOBS[kind].name}: its data does not match its schema (${problems.join("; ")})`);
  }
}

/** The problems of a failed parse, `path: message` each ("(data)" for the whole data). */
function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(data)"}: ${i.message}`);
}

/**
 * `data` parsed by the schema of `kind` ({@link JOBS}): what the job carries, unknown fields left out.
 * @throws InvalidJobDataError when the data does not match.
 */
export function parseJobData<K extends JobKind>(kind: K, data: unknown): JobData<K> {
  const parsed = JOBS[kind].data.safeParse(data);
  if (!parsed.success) throw new InvalidJobDataError(kind, problemsOf(parsed.error));
  return parsed.data as JobData<K>;
}

/** Where jobs are added: the queues and, for fair adds, the Redis of the per-installation pending sets. */
export interface JobTarget {
  queues: Runtime["queues"];
  /** without it a fair add is a plain one (FIFO) */
  redis?: RedisConnection | undefined;
}

/** What a caller gives beside the catalogue's options. */
export interface AddOptions extends Pick<
  JobsOptions,
  "jobId" | "delay" | "attempts" | "backoff" | "priority"
> {
  /**
   * BullMQ job id: built with `jobId` (`src/runtime/names.ts`); the same id added twice is one job (BullMQ
   * ignores the second add)
   */
  jobId?: string;
  /**
   * add with a priority that keeps installations fair (`fairJobOptions`, `src/runtime/fairness.ts`); needs
   * `JobTarget.redis` and an `installationId` in the data, else the job is added as is
   */
  fair?: boolean;
}

/**
 * Adds one job of `kind`: its data parsed by the kind's schema first, then added to the kind's queue under its
 * name with the catalogue's options and the caller's (`opts` wins).
 * @throws InvalidJobDataError when the data does not match the schema (nothing is added); an Error for a job id
 *   containing `:` (BullMQ refuses one); Redis errors as they come.
 */
export async function addJob<K extends JobKind>(
  to: JobTarget,
  kind: K,
  data: JobData<K>,
  opts: AddOptions = {},
): Promise<Job<JobData<K>>> {
  const spec = JOBS[kind];
  const checked = parseJobData(kind, data);
  if (opts.jobId?.includes(":"))
    throw new Error(`job ${spec.name}: job id ${opts.jobId} contains ":", which BullMQ refuses`);
  const queue = to.queues[spec.queue];
  const { fair, ...given } = opts;
  const options: JobsOptions = { ...spec.options, ...given };
  const installationId = (checked as { installationId?: unknown }).installationId;
  const placed =
    fair && to.redis && typeof installationId === "number"
      ? await fairJobOptions(to.redis, queue, installationId, options)
      : options;
  return (await queue.add(spec.name, checked, placed)) as Job<JobData<K>>;
}

/**
 * Creates or replaces the BullMQ job scheduler `schedulerId` on the queue of `kind`: it adds a job of `kind`
 * with `data` (parsed by the kind's schema first) and the catalogue's options each time `repeat` comes due
 * (BullMQ "Job Schedulers": the scheduler lives in Redis; upserting the same id keeps one).
 * @returns the scheduler's next job (BullMQ gives `undefined` for a pattern that never comes due).
 * @throws InvalidJobDataError when the data does not match the schema; BullMQ's errors (a pattern it cannot
 *   parse).
 */
export async function scheduleJob<K extends JobKind>(
  to: Pick<JobTarget, "queues">,
  kind: K,
  schedulerId: string,
  repeat: Omit<RepeatOptions, "key">,
  data: JobData<K>,
): Promise<Job | undefined> {
  const spec = JOBS[kind];
  const checked = parseJobData(kind, data);
  return to.queues[spec.queue].upsertJobScheduler(schedulerId, repeat, {
    name: spec.name,
    data: checked,
    opts: spec.options,
  });
}
