import { DelayedError, type Job } from "bullmq";
import { updateCheckRun } from "../../github/checks.js";
import { renderLaunchError, renderProgress } from "../../render/check-run.js";
import { ScannerApiError } from "../../scanner/errors.js";
import { isTerminalScanStatus } from "../../scanner/catalog.js";
import type { ScanDetail } from "../../scanner/schemas.js";
import { pullKey } from "../names.js";
import type { Runtime } from "../runtime.js";
import { reportScan } from "./report.js";
import type { PollJobData } from "./types.js";

/** What a poll job did when it stopped rescheduling itself. */
export type PollOutcome = "reported" | "superseded" | "timed-out" | "no-token" | "lost";

/** The most progress updates one scan writes to its check run (issue 6: ≤ 5 per scan). */
export const MAX_PROGRESS_UPDATES = 5;

/**
 * Follows one scan (job id `poll-<scanId>`: one job per scan, whatever the deliveries): reads it
 * (spec `GET /projects/{projectId}/scans/{scanId}`), and while it is not terminal waits exactly its
 * `Retry-After` plus `pollMarginMs` (a floor of 1 s when the header is absent) before the next read, using
 * `job.moveToDelayed`, so the wait survives process death and costs no attempt. A 429 waits its own
 * `Retry-After`. Shows percent and phases on the check run at most once per `progressIntervalMs` and at most
 * {@link MAX_PROGRESS_UPDATES} times. A scan still running after `scanTimeoutMinutes` is cancelled and its
 * check concluded `timed_out`. A terminal scan is reported by {@link reportScan}.
 */
export async function processPoll(rt: Runtime, job: Job<PollJobData>, token?: string): Promise<PollOutcome> {
  const d = job.data;
  const log = rt.log.child({
    pull: pullKey(d.owner, d.repo, d.pullNumber),
    scanId: d.scanId,
    installation: d.installationId,
  });
  const pr = await rt.state.getPull(pullKey(d.owner, d.repo, d.pullNumber));
  if (pr && (pr.closed || (pr.scanId !== undefined && pr.scanId !== d.scanId))) {
    log.info("scan no longer followed (superseded)");
    return "superseded";
  }
  const tenant = await rt.scanner.forAccount(d.accountLogin);
  if (!tenant) return "no-token";

  let scan: ScanDetail;
  let retryAfterSeconds: number | undefined;
  try {
    ({ scan, retryAfterSeconds } = await tenant.client.getScan(d.projectId, d.scanId));
  } catch (error) {
    if (error instanceof ScannerApiError && error.code === "rate_limited") {
      log.warn({ retryAfterSeconds: error.retryAfterSeconds }, "poll answered 429: waiting its Retry-After");
      return delay(rt, job, token, (error.retryAfterSeconds ?? 1) * 1000 + rt.settings.pollMarginMs);
    }
    if (error instanceof ScannerApiError && error.code === "not_found") {
      const octokit = await rt.octokit(d.installationId);
      await updateCheckRun(octokit, d, d.checkRunId, {
        conclusion: "failure",
        output: renderLaunchError("scan_failed", {
          scanId: d.scanId,
          message: `The service no longer knows this scan: ${error.message}`,
        }),
      });
      await rt.state.finishScan(d.installationId, d.scanId);
      return "lost";
    }
    throw error;
  }

  if (!isTerminalScanStatus(scan.status)) {
    const octokit = await rt.octokit(d.installationId);
    if (rt.now() - d.launchedAt > d.config.scanTimeoutMinutes * 60_000) {
      await tenant.client
        .cancelScan(d.projectId, d.scanId)
        .catch((e: Error) => log.warn({ err: e.message }, "cancel failed"));
      await updateCheckRun(octokit, d, d.checkRunId, {
        conclusion: "timed_out",
        output: renderLaunchError("timed_out", {
          waitedSeconds: Math.round((rt.now() - d.launchedAt) / 1000),
          scanId: d.scanId,
          ...(d.lastPercent !== undefined ? { lastPercent: d.lastPercent } : {}),
        }),
      });
      await rt.state.finishScan(d.installationId, d.scanId);
      log.warn("scan exceeded scanTimeoutMinutes: cancelled");
      return "timed-out";
    }
    const percent = scan.progress?.percent ?? 0;
    const updates = d.progressUpdates ?? 0;
    if (
      percent !== (d.lastPercent ?? 0) &&
      updates < MAX_PROGRESS_UPDATES &&
      (await rt.state.throttle(`progress:${d.scanId}`, rt.settings.progressIntervalMs))
    ) {
      await updateCheckRun(octokit, d, d.checkRunId, {
        status: "in_progress",
        output: renderProgress(
          Math.max(0, Math.round(percent)),
          scan.progress?.phasesCompleted ?? 0,
          scan.progress?.phasesTotal ?? 0,
          scan.status,
        ),
      });
      await job.updateData({ ...d, lastPercent: percent, progressUpdates: updates + 1 });
    }
    const waitMs = Math.max(1, retryAfterSeconds ?? 1) * 1000 + rt.settings.pollMarginMs;
    return delay(rt, job, token, waitMs);
  }

  if (!d.terminalAt) await job.updateData({ ...job.data, terminalAt: rt.now() });
  await reportScan(rt, { ...job.data, terminalAt: d.terminalAt ?? rt.now() }, tenant, scan, log);
  return "reported";
}

async function delay(
  rt: Runtime,
  job: Job<PollJobData>,
  token: string | undefined,
  ms: number,
): Promise<never> {
  await job.moveToDelayed(rt.now() + ms, token);
  throw new DelayedError();
}
