import { DelayedError, Worker, type Job } from "bullmq";
import { DEFAULT_QUEUE_PREFIX } from "../runtime/connection.js";
import { releaseFairOnFinish } from "../runtime/fairness.js";
import { JOB, QUEUE_NAMES } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { LockBusyError } from "../runtime/state.js";
import type { QueueOptions } from "../runtime/queues.js";
import { processLaunch } from "./launch.js";
import { processPoll } from "./poll.js";
import { processReport } from "./report/job.js";
import { processPullClosed, processUninstall } from "./lifecycle.js";
import { processPullRequest } from "./pull-request.js";
import { processMergeGroup, processMergeGroupDestroyed } from "./merge-group.js";
import { processCommand } from "./command.js";
import { processApprove } from "./approve.js";
import { processCancel } from "./cancel-scan.js";
import { processSettle } from "./settle.js";
import { processBaseline } from "./baseline.js";
import { processAcceptanceExpiry } from "./acceptance-expiry.js";

/**
 * Extra processors for job names the process adds (reconciliation, tests). `signal` is BullMQ's: aborted when
 * the process shuts down (`Worker.cancelAllJobs`), for a long job that can stop early and keep its progress.
 */
export type ExtraProcessors = Record<
  string,
  (rt: Runtime, job: Job, token?: string, signal?: AbortSignal) => Promise<unknown>
>;

/**
 * BullMQ worker timing (BullMQ docs "Stalled Jobs"): a job whose worker died is moved back to waiting once
 * its lock (`lockDuration`, ms) has expired and a stalled check (`stalledInterval`, ms) ran. Defaults
 * 30,000 / 30,000; tests shorten both so a killed worker's job resumes within seconds.
 */
export interface WorkerTiming {
  lockDuration?: number;
  stalledInterval?: number;
  maxStalledCount?: number;
}

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

/** The processor of each of diffward's own jobs, by job name (`extra` processors serve the rest). */
const PROCESSORS: ExtraProcessors = {
  [JOB.pullRequest]: (rt, job) => processPullRequest(rt, job),
  [JOB.rerequest]: (rt, job) => processPullRequest(rt, job),
  [JOB.pullClosed]: (rt, job) => processPullClosed(rt, job),
  [JOB.uninstall]: (rt, job) => processUninstall(rt, job),
  [JOB.mergeGroup]: (rt, job) => processMergeGroup(rt, job),
  [JOB.mergeGroupDestroyed]: (rt, job) => processMergeGroupDestroyed(rt, job),
  [JOB.launch]: (rt, job, token) => processLaunch(rt, job, token),
  [JOB.poll]: (rt, job, token) => processPoll(rt, job, token),
  [JOB.report]: (rt, job, token) => processReport(rt, job, token),
  [JOB.command]: (rt, job, token) => processCommand(rt, job, token),
  [JOB.approve]: (rt, job) => processApprove(rt, job),
  [JOB.settle]: (rt, job) => processSettle(rt, job),
  [JOB.baselinePush]: (rt, job) => processBaseline(rt, job),
  [JOB.baselineSchedule]: (rt, job) => processBaseline(rt, job),
  [JOB.cancel]: (rt, job, token) => processCancel(rt, job, token),
  [JOB.acceptanceExpiry]: (rt, job) => processAcceptanceExpiry(rt, job),
};

/**
 * Starts one BullMQ worker per queue. Any number of processes on any number of machines may run these
 * against one Redis: BullMQ hands each job to one worker at a time and moves a stalled job (its worker
 * died) back to waiting, so no scan is lost.
 */
export function startWorkers(
  rt: Runtime,
  opts: QueueOptions & {
    concurrency?: Partial<WorkerConcurrency>;
    extra?: ExtraProcessors;
    timing?: WorkerTiming;
  },
): Worker[] {
  const prefix = opts.prefix ?? DEFAULT_QUEUE_PREFIX;
  const common = { connection: opts.connection, prefix, ...opts.timing };
  const conc: WorkerConcurrency = {
    events: 20,
    launch: 10,
    scans: 50,
    reports: DEFAULT_REPORT_CONCURRENCY,
    ...opts.concurrency,
  };
  const extra = opts.extra ?? {};
  // Three parameters: BullMQ hands a processor that declares `signal` an AbortSignal per job.
  const dispatch = async (job: Job, token?: string, signal?: AbortSignal): Promise<unknown> => {
    const fn = Object.hasOwn(PROCESSORS, job.name) ? PROCESSORS[job.name] : extra[job.name];
    if (!fn) throw new Error(`no processor for job ${job.name}`);
    return fn(rt, job, token, signal);
  };
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
