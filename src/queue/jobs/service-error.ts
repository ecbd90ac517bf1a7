import type { Job } from "bullmq";
import { ScannerError } from "../../scanner/errors.js";
import type { Runtime } from "../runtime.js";
import { applyWrites } from "../writes.js";
import { planScanUnreadable } from "./decide-report.js";
import type { PollJobData } from "./types.js";

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
  await rt.state.finishScan(d.installationId, d.scanId);
  log.error({ err: error.name, retryable: error.retryable }, "scan result unreadable: check run concluded");
  return true;
}
