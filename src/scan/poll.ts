import { DelayedError, type Job } from "bullmq";
import { ScannerApiError, isServiceOutage } from "../scanner/errors.js";
import { isTerminalScanStatus } from "../scanner/catalog.js";
import type { ScanDetail } from "../scanner/schemas.js";

import type { Runtime } from "../runtime/runtime.js";
import type { ScannerTenant } from "../tenants/index.js";
import { applyWrites } from "../runtime/apply-writes.js";
import type { EndedScanStatus } from "../stores/scan-state.js";
import { planScanTimedOut } from "../checks/endings.js";
import { planProgress } from "../checks/progress.js";
import { enqueueReport } from "../report/job.js";
import { concludeOnScanReadError } from "../job-kit/service-error.js";
import { admitRequest, serviceAnswered, waitForBreaker, waitOutOutage } from "../job-kit/service-outage.js";
import { withFollowedTenant, type FollowedJob } from "../job-kit/token-wait.js";
import type { PollProgress } from "../job-kit/types.js";
import type { PollJobData } from "../job-catalogue/index.js";

/** What a poll job did when it stopped rescheduling itself. */
export type PollOutcome =
  "report-queued" | "superseded" | "timed-out" | "no-token" | "lost" | "service-error";

/** Progress writes of this process still in flight, per scan id and per installation. */
const pendingProgress = new Map<string, Promise<unknown>>();
const pendingByInstallation = new Map<number, number>();
const pendingProgressOf = (installationId: number) => pendingByInstallation.get(installationId) ?? 0;

/**
 * Progress updates waiting in one installation's write lane (GitHub asks for one content write per second
 * per installation; Octokit's throttling plugin queues them) beyond which new ones are skipped: under a
 * burst of pull requests, the lane is kept for check runs, reports and reviews.
 */
export const MAX_PENDING_PROGRESS_PER_INSTALLATION = 3;

/** The most progress updates one scan writes to its check run (GitHub's write budget goes to completions). */
export const MAX_PROGRESS_UPDATES = 5;

/**
 * Follows one scan (job id `poll-<scanId>`: one job per scan, whatever the deliveries): reads it
 * (spec `GET /projects/{projectId}/scans/{scanId}`), and while it is not terminal waits exactly its
 * `Retry-After` plus `pollMarginMs` (at least `pollFloorMs`, 1 s, when the header is absent or `0`) before the next read, using
 * `job.moveToDelayed`, so the wait survives process death and costs no attempt. A 429 waits its own
 * `Retry-After`; a missing scanner token is waited for ({@link tenantOrWait}). Shows percent and phases on
 * the check run at most once per `progressIntervalMs` and at most {@link MAX_PROGRESS_UPDATES} times. A scan still running after `scanTimeoutMinutes` is cancelled and its
 * check concluded `timed_out`. A terminal scan's report is handed to its own job ({@link enqueueReport}, queue
 * `diffward-reports`) with the scan just read, and the poll completes: a report waits for the installation's
 * write lane (GitHub: one write per second), and the poll slots must stay free for running scans.
 */
export async function processPoll(rt: Runtime, job: Job<PollJobData>, token?: string): Promise<PollOutcome> {
  return withFollowedTenant(rt, job, token, "", pollFollowed);
}

/** {@link processPoll} for a scan still followed, with its tenant. */
async function pollFollowed({ rt, job, token, tenant, log }: FollowedJob<PollJobData>): Promise<PollOutcome> {
  const d = job.data;
  // While the service is unavailable, the scan is read only by the tenant breaker's one probe, until
  // DIFFWARD_SERVICE_OUTAGE_MAX_WAIT; past it, reads go out and fail as before (BullMQ's attempts).
  const pastLimit =
    d.outageSince !== undefined && rt.now() - d.outageSince >= rt.settings.serviceOutageMaxWaitMs;
  const gate = pastLimit
    ? ({ kind: "go", probe: false } as const)
    : await admitRequest(rt, d.accountLogin, `${job.id ?? ""}@${rt.now()}`);
  if (gate.kind === "wait") await waitForBreaker(rt, job, token, gate.untilMs, log);
  let scan: ScanDetail;
  let retryAfterSeconds: number | undefined;
  try {
    ({ scan, retryAfterSeconds } = await tenant.client.getScan(d.projectId, d.scanId));
  } catch (error) {
    const probe = gate.kind === "go" && gate.probe;
    if (!pastLimit) await waitOutOutage(rt, job, token, error, probe, log);
    if (probe && !isServiceOutage(error)) await serviceAnswered(rt, d.accountLogin, undefined);
    if (error instanceof ScannerApiError && error.code === "rate_limited") {
      log.warn({ retryAfterSeconds: error.retryAfterSeconds }, "poll answered 429: waiting its Retry-After");
      return delay(rt, job, token, (error.retryAfterSeconds ?? 1) * 1000 + rt.settings.pollMarginMs);
    }
    return concludeOnScanReadError(rt, job, error, log);
  }
  if (gate.kind === "go" && gate.probe) await serviceAnswered(rt, d.accountLogin, undefined);
  if (d.outageSince !== undefined) {
    const { outageSince: _over, ...rest } = job.data;
    await job.updateData(rest);
  }

  if (!isTerminalScanStatus(scan.status))
    return pollRunning(rt, job, token, { tenant, scan, retryAfterSeconds }, log);

  // Known ended: a later stop (a push, a close) never cancels it (spec §Scan status: cancel of a terminal
  // scan answers 400).
  await rt.stores.scans.recordScanEnded(d.scanId, scan.status as EndedScanStatus);
  // A progress write still waiting in the installation's write lane is taken over by the completing write
  // (the lane coalesces updates of one check run, whatever process queued them), so the report does not wait
  // for it. Without a lane, a progress write still queued in this process lands before the report is handed
  // over, so it never overwrites the completed check run.
  if (!rt.lane) await pendingProgress.get(d.scanId);
  const terminalAt = d.terminalAt ?? rt.now();
  if (!d.terminalAt) await job.updateData({ ...job.data, terminalAt });
  // Added before this job completes: a crash in between runs the poll again, and the job id dedupes the add.
  await enqueueReport(rt, { ...job.data, terminalAt }, scan);
  return "report-queued";
}

/**
 * A scan still running: cancelled and concluded `timed_out` past `scanTimeoutMinutes`; else its progress
 * written (at most {@link MAX_PROGRESS_UPDATES} a scan, throttled, never awaited) and the next read scheduled
 * after the service's `Retry-After` (at least `pollFloorMs`).
 */
async function pollRunning(
  rt: Runtime,
  job: Job<PollJobData>,
  token: string | undefined,
  read: { tenant: ScannerTenant; scan: ScanDetail; retryAfterSeconds: number | undefined },
  log: Runtime["log"],
): Promise<PollOutcome> {
  const d = job.data;
  const { tenant, scan, retryAfterSeconds } = read;
  if (rt.now() - d.launchedAt > d.config.scanTimeoutMinutes * 60_000) {
    await tenant.client
      .cancelScan(d.projectId, d.scanId)
      .catch((e: Error) => log.warn({ err: e }, "cancel failed"));
    await applyWrites(rt, d.installationId, planScanTimedOut(d, rt.now()));
    await rt.stores.scans.finishScan(d.installationId, d.scanId);
    log.warn("scan exceeded scanTimeoutMinutes: cancelled");
    return "timed-out";
  }
  const percent = scan.progress?.percent ?? 0;
  const updates = d.progressUpdates ?? 0;
  if (
    percent !== (d.lastPercent ?? 0) &&
    updates < MAX_PROGRESS_UPDATES &&
    // progress is a courtesy: under a burst, the installation's write lane is kept for what matters
    pendingProgressOf(d.installationId) < MAX_PENDING_PROGRESS_PER_INSTALLATION &&
    (await rt.stores.pulls.throttle(`progress:${d.scanId}`, rt.settings.progressIntervalMs))
  ) {
    // Not awaited: a progress write waits its turn in the installation's write queue (GitHub asks for
    // one content write per second), and the next poll must not wait with it. The report awaits it.
    const write = applyWrites(rt, d.installationId, planProgress(d, scan)).catch((e: Error) =>
      log.warn({ err: e }, "progress update failed"),
    );
    pendingProgress.set(d.scanId, write);
    pendingByInstallation.set(d.installationId, pendingProgressOf(d.installationId) + 1);
    void write.finally(() => {
      if (pendingProgress.get(d.scanId) === write) pendingProgress.delete(d.scanId);
      pendingByInstallation.set(d.installationId, Math.max(0, pendingProgressOf(d.installationId) - 1));
    });
    await job.updateData({ ...job.data, lastPercent: percent, progressUpdates: updates + 1 });
  }
  const waitMs =
    Math.max(rt.settings.pollFloorMs, (retryAfterSeconds ?? 0) * 1000) + rt.settings.pollMarginMs;
  // The scan as last read, on the job itself (BullMQ job progress): the organization's page shows it.
  const progress: PollProgress = {
    status: scan.status,
    percent,
    readAt: rt.now(),
    nextReadAt: rt.now() + waitMs,
  };
  await job.updateProgress(progress);
  return delay(rt, job, token, waitMs);
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
