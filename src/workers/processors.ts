/**
 * The processor of each kind of job in the catalogue (`src/job-catalogue/catalogue.ts`), keyed by the same
 * kinds: a kind without a processor does not compile. The workers (`workers.ts`) check a job's data against
 * its kind's schema before they hand it over, so each processor receives data of its kind's shape.
 */
import type { Job } from "bullmq";
import type { JobData, JobKind } from "../job-catalogue/index.js";
import type { Runtime } from "../runtime/runtime.js";
import { processAcceptanceExpiry } from "../triage/job/acceptance-expiry.js";
import { processApprove } from "../scan/scan-anyway.js";
import { processBaseline } from "../baseline/index.js";
import { processCancel } from "../scan/cancel-scan.js";
import { processAlertEvent } from "../code-scanning/index.js";
import { processCommand } from "../commands/job/command-job.js";
import { processLaunch } from "../scan/launch.js";
import { processPullClosed, processUninstall } from "../scan/lifecycle.js";
import { processMergeGroup, processMergeGroupDestroyed } from "../merge-queue/index.js";
import { processPoll } from "../scan/poll.js";
import { processReinstall } from "../scan/reinstall.js";
import { processPullRequest } from "../scan/pull-request-job.js";
import { reconcile } from "../recovery/reconcile/index.js";
import { processRecoverDeliveries } from "../recovery/recover-deliveries.js";
import { processReport } from "../report/job.js";
import { processSettle } from "../scan/settle.js";

/**
 * Runs one job of kind `K`. `token` is the worker's lock token (for `moveToDelayed`); `signal` is BullMQ's,
 * aborted when the process shuts down (`Worker.cancelAllJobs`), for a long job that can stop early and keep
 * its progress. Its result is the job's return value.
 */
export type Processor<K extends JobKind> = (
  rt: Runtime,
  job: Job<JobData<K>>,
  token?: string,
  signal?: AbortSignal,
) => Promise<unknown>;

/** Every kind's processor. */
export const PROCESSORS = {
  pullRequest: (rt, job) => processPullRequest(rt, job),
  rerequest: (rt, job) => processPullRequest(rt, job),
  pullClosed: (rt, job) => processPullClosed(rt, job),
  uninstall: (rt, job) => processUninstall(rt, job),
  reinstall: (rt, job) => processReinstall(rt, job),
  command: (rt, job, token) => processCommand(rt, job, token),
  approve: (rt, job) => processApprove(rt, job),
  mergeGroup: (rt, job) => processMergeGroup(rt, job),
  mergeGroupDestroyed: (rt, job) => processMergeGroupDestroyed(rt, job),
  baselinePush: (rt, job) => processBaseline(rt, job),
  baselineSchedule: (rt, job) => processBaseline(rt, job),
  codeScanningAlert: (rt, job) => processAlertEvent(rt, job),
  acceptanceExpiry: (rt, job) => processAcceptanceExpiry(rt, job),
  reconcile: (rt) => reconcile(rt),
  recoverDeliveries: (rt, job, token, signal) => processRecoverDeliveries(rt, job, token, signal),
  launch: (rt, job, token) => processLaunch(rt, job, token),
  poll: (rt, job, token) => processPoll(rt, job, token),
  report: (rt, job, token) => processReport(rt, job, token),
  settle: (rt, job) => processSettle(rt, job),
  cancel: (rt, job, token) => processCancel(rt, job, token),
} satisfies { [K in JobKind]: Processor<K> };
