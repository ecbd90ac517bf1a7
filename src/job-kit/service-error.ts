import type { Job } from "bullmq";
import { ScannerApiError, ScannerError } from "../scanner/errors.js";
import type { Runtime } from "../runtime/runtime.js";
import { applyWrites } from "../runtime/apply-writes.js";
import { planReportFailed, planScanLost, planScanUnreadable } from "../checks/endings.js";
import type { PollJobData } from "../job-catalogue/index.js";

/**
 * A scanning-service error that retrying cannot fix (an answer that does not fit the spec's schema, a 4xx),
 * or any service error on the job's last attempt (BullMQ `attempts`), concludes the check run `failure` with a
 * readable explanation instead of leaving it `in_progress` forever, and finishes the scan. Used by the poll
 * and report jobs.
 * @returns true when the check run was concluded; false for errors that are not the service's
 * ({@link ScannerError}) and for retryable ones with attempts left (BullMQ retries with backoff).
 */
export async function concludeOnServiceError(
  rt: Runtime,
  job: Job<PollJobData>,
  error: unknown,
  log: Runtime["log"],
): Promise<boolean> {
  if (!(error instanceof ScannerError)) return false;
  const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  if (error.retryable && !last) return false;
  const d = job.data;
  await applyWrites(rt, d.installationId, planScanUnreadable(d, error, job.attemptsMade + 1));
  await rt.stores.scans.finishScan(d.installationId, d.scanId);
  log.error({ err: error.name, retryable: error.retryable }, "scan result unreadable: check run concluded");
  return true;
}

/**
 * Handles an error reading the job's scan (spec `GET /projects/{projectId}/scans/{scanId}`), other than a 429,
 * the same way for the poll and report jobs (each waits out a 429's `Retry-After` its own way before calling
 * this). A 404 (`not_found`: the service no longer knows the scan) concludes the check run `failure`
 * ({@link planScanLost}) and finishes the scan; a service error that retrying cannot fix, or any on the last
 * attempt, concludes it through {@link concludeOnServiceError}.
 * @returns `lost` after a 404, `service-error` when {@link concludeOnServiceError} concluded the check run.
 * @throws `error` itself otherwise (not the service's, or retryable with attempts left): BullMQ retries the
 *   job with backoff.
 */
export async function concludeOnScanReadError(
  rt: Runtime,
  job: Job<PollJobData>,
  error: unknown,
  log: Runtime["log"],
): Promise<"lost" | "service-error"> {
  if (error instanceof ScannerApiError && error.code === "not_found") {
    const d = job.data;
    await applyWrites(rt, d.installationId, planScanLost(d, error.message));
    await rt.stores.scans.finishScan(d.installationId, d.scanId);
    return "lost";
  }
  if (await concludeOnServiceError(rt, job, error, log)) return "service-error";
  throw error;
}

/**
 * Any error on the job's last attempt (BullMQ `attempts`) that {@link concludeOnServiceError} did not take:
 * concludes the check run `failure` ({@link planReportFailed}) and finishes the scan, so a check run never
 * stays `in_progress` because its report threw. Earlier attempts are left to BullMQ's retries.
 * @returns true when the check run was concluded.
 * @throws when the concluding write itself fails (GitHub unreachable): the job then fails for good and
 *   reconcile resumes the scan from its unfinished check run.
 */
export async function concludeOnLastAttempt(
  rt: Runtime,
  job: Job<PollJobData>,
  error: unknown,
  log: Runtime["log"],
): Promise<boolean> {
  if (job.attemptsMade + 1 < (job.opts.attempts ?? 1)) return false;
  const d = job.data;
  log.error(
    { err: error, attempts: job.attemptsMade + 1 },
    "report failed on its last attempt: check run concluded",
  );
  await applyWrites(rt, d.installationId, planReportFailed(d, error, job.attemptsMade + 1));
  await rt.stores.scans.finishScan(d.installationId, d.scanId);
  return true;
}
