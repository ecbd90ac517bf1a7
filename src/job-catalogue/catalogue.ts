/**
 * The catalogue of diffward's jobs: for each kind its BullMQ job name, its queue, the zod schema of its data
 * and its options. It is the one table of jobs: {@link addJob} (`add-job.ts`) checks every job's data against
 * it before the job is added, the workers (`src/workers/workers.ts`) check it again when they take the job (the
 * data went through Redis, maybe written by another version) and run the kind's processor
 * (`src/workers/processors.ts`, a table keyed by the same kinds), and boot and reconciliation add their jobs
 * through it. A job's id is the caller's (`jobId` in `src/runtime/names.ts`: no `:`, never only digits).
 */
import type { JobsOptions } from "bullmq";
import type { z } from "zod";
import type { QUEUE_NAMES } from "../runtime/names.js";
import {
  AcceptanceExpiryJobData,
  AlertJobData,
  ApproveJobData,
  BaselineJobData,
  CommandJobData,
  MergeGroupJobData,
  ProcessRunJobData,
  PullClosedJobData,
  PullRequestJobData,
  UninstallJobData,
  ReinstallJobData,
} from "./event-data.js";
import { CancelJobData, LaunchJobData, PollJobData, ReportJobData, SettleJobData } from "./scan-data.js";

/** One kind of job: its name within its queue, the queue, the schema of its data, its options. */
export interface JobSpec<S extends z.ZodType = z.ZodType> {
  /** the BullMQ job name (`Job.name`), unique across the catalogue */
  name: string;
  /** the queue it is added to (`Runtime.queues`; names in `QUEUE_NAMES`) */
  queue: keyof typeof QUEUE_NAMES;
  /** its data, checked when the job is added and again when a worker takes it */
  data: S;
  /**
   * the BullMQ options every job of the kind is added with (attempts, backoff, retention); the caller adds
   * the job id and any delay ({@link AddOptions} in `add-job.ts`)
   */
  options: JobsOptions;
}

/** How long finished jobs are kept: a day and 10,000 completed ones, failed ones a week. */
const RETENTION = {
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const satisfies JobsOptions;

/** Event jobs (enqueued by handlers and by commands): retried with backoff (lock contention, GitHub 5xx). */
const EVENT = {
  attempts: 10,
  backoff: { type: "exponential", delay: 500, jitter: 0.5 },
  ...RETENTION,
} as const satisfies JobsOptions;

/**
 * Every kind of job diffward runs. Events first (`diffward-events`), then the scan's jobs: a launch
 * (`diffward-launch`: up to 8 attempts from 2 s, each looks the scan up before sending again), its poll
 * (`diffward-scans`: up to 10 attempts from 1 s; each later read is scheduled by the job itself from the
 * scan's `Retry-After`, spec §Scans `GET /projects/{projectId}/scans/{scanId}`), its report
 * (`diffward-reports`: attempts and backoff from `Settings.reportAttempts` and `Settings.reportBackoffMs`,
 * given when it is added), its settlement and a cancel waiting for a token.
 */
export const JOBS = {
  pullRequest: { name: "pull-request", queue: "events", data: PullRequestJobData, options: EVENT },
  /** a "Re-run" or a `/diffward rescan`: a pull request event that launches anew */
  rerequest: { name: "rerequest", queue: "events", data: PullRequestJobData, options: EVENT },
  pullClosed: { name: "pull-closed", queue: "events", data: PullClosedJobData, options: EVENT },
  uninstall: { name: "uninstall", queue: "events", data: UninstallJobData, options: EVENT },
  reinstall: { name: "reinstall", queue: "events", data: ReinstallJobData, options: EVENT },
  command: { name: "command", queue: "events", data: CommandJobData, options: EVENT },
  approve: { name: "approve", queue: "events", data: ApproveJobData, options: EVENT },
  mergeGroup: { name: "merge-group", queue: "events", data: MergeGroupJobData, options: EVENT },
  mergeGroupDestroyed: {
    name: "merge-group-destroyed",
    queue: "events",
    data: MergeGroupJobData,
    options: EVENT,
  },
  /** a push to the default branch (`push` webhook) */
  baselinePush: { name: "baseline-push", queue: "events", data: BaselineJobData, options: EVENT },
  /**
   * a baseline due by `baseline.schedule`, added by the repository's job scheduler (one per due time; the id
   * BullMQ gives names the run)
   */
  baselineSchedule: {
    name: "baseline-schedule",
    queue: "events",
    data: BaselineJobData,
    options: {
      attempts: 5,
      backoff: { type: "exponential", delay: 5_000, jitter: 0.5 },
      removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    },
  },
  /** a person's change of a diffward alert in GitHub code scanning */
  codeScanningAlert: { name: "code-scanning-alert", queue: "events", data: AlertJobData, options: EVENT },
  /**
   * an acceptance's expiry (`/wontfix … until …`), delayed until its moment (`src/triage/expiry.ts`); it must
   * not be lost to an outage of the service: 16 attempts from 5 s, doubling (about 4 days)
   */
  acceptanceExpiry: {
    name: "acceptance-expiry",
    queue: "events",
    data: AcceptanceExpiryJobData,
    options: { ...EVENT, attempts: 16, backoff: { type: "exponential", delay: 5_000, jitter: 0.5 } },
  },
  /** a reconciliation (`src/recovery/reconcile/`); its result, the summary, is kept an hour */
  reconcile: {
    name: "reconcile",
    queue: "events",
    data: ProcessRunJobData,
    options: {
      attempts: 3,
      backoff: { type: "exponential", delay: 5_000 },
      removeOnComplete: { age: 3600 },
      removeOnFail: { age: 24 * 3600 },
    },
  },
  /** a run of the recovery of missed webhook deliveries (`src/recovery/recover-deliveries.ts`) */
  recoverDeliveries: {
    name: "recover-deliveries",
    queue: "events",
    data: ProcessRunJobData,
    options: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  },
  launch: {
    name: "launch",
    queue: "launch",
    data: LaunchJobData,
    options: { attempts: 8, backoff: { type: "exponential", delay: 2_000, jitter: 0.5 }, ...RETENTION },
  },
  poll: {
    name: "poll",
    queue: "scans",
    data: PollJobData,
    options: { attempts: 10, backoff: { type: "exponential", delay: 1_000, jitter: 0.5 }, ...RETENTION },
  },
  report: { name: "report", queue: "reports", data: ReportJobData, options: RETENTION },
  settle: {
    name: "settle",
    queue: "scans",
    data: SettleJobData,
    options: { attempts: 3, backoff: { type: "exponential", delay: 5_000 }, ...RETENTION },
  },
  cancel: {
    name: "cancel",
    queue: "scans",
    data: CancelJobData,
    options: {
      attempts: 8,
      backoff: { type: "exponential", delay: 2_000, jitter: 0.5 },
      removeOnComplete: { age: 24 * 3600 },
      removeOnFail: { age: 7 * 24 * 3600 },
    },
  },
} as const satisfies Record<string, JobSpec>;

/** A kind of job: a key of {@link JOBS}. */
export type JobKind = keyof typeof JOBS;

/** The data of a job of kind `K`, as its schema gives it. */
export type JobData<K extends JobKind> = z.infer<(typeof JOBS)[K]["data"]>;

/** Every kind, in the catalogue's order. */
export const JOB_KINDS = Object.keys(JOBS) as JobKind[];

const KIND_OF_NAME = new Map<string, JobKind>(JOB_KINDS.map((k) => [JOBS[k].name, k]));

/** The kind of a BullMQ job by its name, or `undefined` for a name the catalogue does not have. */
export function kindOfJobName(name: string): JobKind | undefined {
  return KIND_OF_NAME.get(name);
}
