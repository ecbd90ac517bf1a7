import { DelayedError, UnrecoverableError, Worker, type Job } from "bullmq";
import {
  JOBS,
  kindOfJobName,
  parseJobData,
  InvalidJobDataError,
  type JobKind,
} from "../job-catalogue/index.js";
import { DEFAULT_QUEUE_PREFIX } from "../runtime/connection.js";
import { releaseFairOnFinish } from "../runtime/fairness.js";
import { QUEUE_NAMES } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { LockBusyError } from "../stores/pull-state.js";
import type { QueueOptions } from "../runtime/queues.js";
import { annotateActiveSpan, queueTelemetry } from "../runtime/trace-context.js";
import { PROCESSORS, type Processor } from "./processors.js";

/**
 * BullMQ worker timing (BullMQ docs "Stalled Jobs"): a job whose worker died is moved back to waiting once
 * its lock (`lockDuration`, ms) has expired and a stalled check (`stalledInterval`, ms) ran; a job found
 * stalled more than `maxStalledCount` times fails for good. Defaults 30,000 / 30,000 / {@link MAX_STALLED_COUNT};
 * tests shorten the first two so a killed worker's job resumes within seconds.
 */
export interface WorkerTiming {
  lockDuration?: number;
  stalledInterval?: number;
  maxStalledCount?: number;
}

/**
 * How many times a job may be found stalled (its worker died while running it) and still be taken again: 5,
 * where BullMQ's default is 1. Every job of diffward's can run again (launches by their launch key, commands
 * by their claim, reports by the check run they complete), and a job waiting on its installation's write lane
 * runs for tens of seconds: with one, two worker restarts during one command (a rolling deploy, an evicted
 * pod) failed it for good and its answer was never written. A job that itself kills its worker still stops
 * after five.
 */
export const MAX_STALLED_COUNT = 5;

/** Concurrency per queue in one process. */
export interface WorkerConcurrency {
  events: number;
  launch: number;
  /** polls of running scans (and `settle` looks); default 50 (`WORKER_CONCURRENCY`) */
  scans: number;
  /**
   * reports of terminal scans; default {@link DEFAULT_REPORT_CONCURRENCY}. A waiting report is cheap: it
   * mostly awaits its installation's write lane (a Redis-backed queue, GitHub: one write per second), so
   * many run at once without CPU cost, and more of them keep every installation's lane busy.
   */
  reports: number;
}

/**
 * Reports one process runs at once (100). Reports mostly wait on their installation's write lane; 100 in
 * flight lets up to 100 installations write in parallel per process, while the reads a report makes (findings
 * pages, pull request files) stay within what one process and the service's per-token limits absorb.
 */
export const DEFAULT_REPORT_CONCURRENCY = 100;

/**
 * Runs one job taken by a worker: its kind found by name in the catalogue, its data checked against the kind's
 * schema (it went through Redis, maybe written by another version) and the kind's processor run on the parsed
 * data. Data that does not match fails the job for good (`UnrecoverableError`: retrying cannot fix it) with a
 * log naming what does not match; the worker goes on with its next job.
 * @throws Error for a job name the catalogue does not have; the processor's errors as they come.
 */
async function runJob(rt: Runtime, job: Job, token?: string, signal?: AbortSignal): Promise<unknown> {
  const kind = kindOfJobName(job.name);
  if (!kind) throw new Error(`no processor for job ${job.name}`);
  try {
    job.data = parseJobData(kind, job.data);
  } catch (error) {
    if (!(error instanceof InvalidJobDataError)) throw error;
    rt.log.error(
      { job: job.id, name: job.name, queue: JOBS[kind].queue, problems: error.problems },
      "job data does not match its schema: the job fails for good",
    );
    throw new UnrecoverableError(error.message);
  }
  annotateActiveSpan(job.data);
  return (PROCESSORS[kind] as Processor<JobKind>)(rt, job, token, signal);
}

/**
 * Starts one BullMQ worker per queue. Any number of processes on any number of machines may run these
 * against one Redis: BullMQ hands each job to one worker at a time and moves a stalled job (its worker
 * died) back to waiting, so no scan is lost.
 */
export function startWorkers(
  rt: Runtime,
  opts: QueueOptions & { concurrency?: Partial<WorkerConcurrency>; timing?: WorkerTiming },
): Worker[] {
  const prefix = opts.prefix ?? DEFAULT_QUEUE_PREFIX;
  // with tracing on, a job's span continues the trace of whoever added it (src/runtime/trace-context.ts)
  const common = {
    connection: opts.connection,
    prefix,
    maxStalledCount: MAX_STALLED_COUNT,
    ...opts.timing,
    ...queueTelemetry(),
  };
  const conc: WorkerConcurrency = {
    events: 20,
    launch: 10,
    scans: 50,
    reports: DEFAULT_REPORT_CONCURRENCY,
    ...opts.concurrency,
  };
  // Three parameters: BullMQ hands a processor that declares `signal` an AbortSignal per job.
  const dispatch = (job: Job, token?: string, signal?: AbortSignal): Promise<unknown> =>
    runJob(rt, job, token, signal);
  // An event job that finds its pull request's lock busy waits and tries again without spending one of
  // its attempts (BullMQ `moveToDelayed` + `DelayedError`): a busy lock is contention, not failure, and a
  // close event must never be dropped after its attempts ran out on it.
  const dispatchEvent = async (job: Job, token?: string, signal?: AbortSignal): Promise<unknown> => {
    try {
      return await dispatch(job, token, signal);
    } catch (error) {
      if (!(error instanceof LockBusyError) || !token) throw error;
      await job.moveToDelayed(rt.now() + (error.retryInMs ?? 250) + Math.floor(Math.random() * 750), token);
      throw new DelayedError();
    }
  };
  const workers = [
    new Worker(QUEUE_NAMES.events, dispatchEvent, { ...common, concurrency: conc.events }),
    new Worker(QUEUE_NAMES.launch, dispatch, { ...common, concurrency: conc.launch }),
    new Worker(QUEUE_NAMES.scans, dispatch, { ...common, concurrency: conc.scans }),
    new Worker(QUEUE_NAMES.reports, dispatch, { ...common, concurrency: conc.reports }),
  ];
  for (const w of workers)
    releaseFairOnFinish(rt.redis, w, {
      name: w.name,
      opts: { connection: opts.connection, prefix },
    });
  for (const w of workers) {
    w.on("failed", (job, err) => {
      rt.log.error({ job: job?.id, name: job?.name, attempts: job?.attemptsMade, err }, "job failed");
    });
    w.on("error", (err) => rt.log.error({ err }, "worker error"));
  }
  return workers;
}
