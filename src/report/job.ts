/**
 * The report stage's job (`report`, queue `diffward-reports`): it takes a terminal scan from the poll job and
 * reports it on its check run. Each kind of scan (a pull request's `./pull-report.ts`, a merge group's
 * `./group-report.ts`, a default-branch baseline's `src/baseline/baseline-report.ts`, in its room) reads (`./read/`), decides without
 * I/O (`./decide/`) and writes (`./write/`); the endings of a scan with nothing to report are
 * `src/checks/endings.ts`, shared with every job that follows a scan.
 */
import { DelayedError, type Job } from "bullmq";
import { ScannerApiError, isServiceOutage } from "../scanner/errors.js";
import { ScanDetail } from "../scanner/schemas.js";
import { jobId } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { WritesWithdrawnError } from "../runtime/apply-writes.js";
import { reportScan } from "./pull-report.js";
import { reportGroupScan } from "./group-report.js";
import type { ReportRun } from "./report-run.js";
import { markBaselineReported, reportBaselineScan } from "../baseline/index.js";
import { concludeUnfinished } from "./write/scan-writes.js";
import {
  concludeOnLastAttempt,
  concludeOnScanReadError,
  concludeOnServiceError,
} from "../job-kit/service-error.js";
import { admitRequest, serviceAnswered, waitForBreaker, waitOutOutage } from "../job-kit/service-outage.js";
import { isBaselineScan, isGroupScan } from "../job-kit/target.js";
import { withFollowedTenant, type FollowedJob } from "../job-kit/token-wait.js";
import { addJob, type PollJobData, type ReportJobData } from "../job-catalogue/index.js";

/** What a report job did. */
export type ReportOutcome =
  "reported" | "superseded" | "no-token" | "lost" | "service-error" | "report-error";

/**
 * Hands a terminal scan's report to its own job (job `report`, queue `diffward-reports`, job id
 * `report-<scanId>`), added fairly across installations (`addJob` with `fair`). The poll job calls this before it
 * completes: a poll that dies after the add runs again and adds nothing (BullMQ ignores an add whose job id
 * exists), so the scan is reported once. Attempts and backoff: `Settings.reportAttempts` (10), exponential from `Settings.reportBackoffMs` (1 s).
 * @param scan the terminal scan the poll just read, carried so the report does not read it again.
 * @param id the job id when not `report-<scanId>` (a reinstall reports a scan whose first report was withdrawn).
 */
export async function enqueueReport(
  rt: Runtime,
  d: PollJobData & { terminalAt: number },
  scan: ScanDetail,
  id = jobId("report", d.scanId),
): Promise<void> {
  const data: ReportJobData = { ...d, terminalAt: d.terminalAt, scan };
  await addJob(rt, "report", data, {
    jobId: id,
    attempts: rt.settings.reportAttempts,
    backoff: { type: "exponential", delay: rt.settings.reportBackoffMs, jitter: 0.5 },
    fair: true,
  });
}

/**
 * Reports a terminal scan (job `report`): skipped when the target no longer follows this scan (a newer push,
 * a closed pull request, a destroyed merge group, as the poll checks), and that check
 * is made again right before each of its writes ({@link whileFollowed}): a head superseded while its report
 * runs or waits for the write lane gets no write after the stop (`superseded`). Else
 * {@link reportScan} or, for a merge group, {@link reportGroupScan}, for a baseline {@link reportBaselineScan}; a
 * missing scanner token is waited for ({@link tenantOrWait}). The scan is the one the poll carried
 * (validated with {@link ScanDetail}); only when it is absent or invalid is it read again (spec
 * `GET /projects/{projectId}/scans/{scanId}`; a 429 waits its `Retry-After` without spending an attempt, a
 * 404 concludes the check run as lost). A service error that retrying cannot fix concludes the check run
 * ({@link concludeOnServiceError}); other errors are retried by BullMQ, and on the last attempt any error
 * concludes it too ({@link concludeOnLastAttempt}), so no check run stays `in_progress`. Observes the report delay: the
 * service's `completedAt` (else `terminalAt`) → now, in seconds.
 */
export async function processReport(
  rt: Runtime,
  job: Job<ReportJobData>,
  token?: string,
): Promise<ReportOutcome> {
  return withFollowedTenant(rt, job, token, "not reported", reportFollowed);
}

/** {@link processReport} for a scan still followed, with its tenant. */
async function reportFollowed({
  rt,
  job,
  token,
  tenant,
  log,
}: FollowedJob<ReportJobData>): Promise<ReportOutcome> {
  const d = job.data;
  const carried = ScanDetail.safeParse(d.scan);
  let scan: ScanDetail;
  if (carried.success) scan = carried.data;
  else {
    log.warn("report job without a readable scan: reading it again");
    try {
      ({ scan } = await tenant.client.getScan(d.projectId, d.scanId));
    } catch (error) {
      if (error instanceof ScannerApiError && error.code === "rate_limited") {
        const ms = (error.retryAfterSeconds ?? 1) * 1000 + rt.settings.pollMarginMs;
        await job.moveToDelayed(rt.now() + ms, token);
        throw new DelayedError();
      }
      return concludeOnScanReadError(rt, job, error, log);
    }
  }

  const { scan: _carried, outageSince: _outage, ...pollData } = job.data;
  // While the service is unavailable only the tenant breaker's probe reads; the others wait for it.
  const gate = await admitRequest(rt, d.accountLogin, `${job.id ?? ""}@${rt.now()}`);
  if (gate.kind === "wait") await waitForBreaker(rt, job, token, gate.untilMs, log);
  try {
    await reportTerminal({ rt, octokit: await rt.octokit(d.installationId), tenant, d: pollData, scan, log });
    if (gate.kind === "go" && gate.probe) await serviceAnswered(rt, d.accountLogin, undefined);
  } catch (error) {
    if (error instanceof WritesWithdrawnError) throw error;
    await waitOutOutage(rt, job, token, error, gate.kind === "go" && gate.probe, log);
    if (gate.kind === "go" && gate.probe && !isServiceOutage(error))
      await serviceAnswered(rt, d.accountLogin, undefined);
    if (await concludeOnServiceError(rt, job, error, log)) return "service-error";
    if (await concludeOnLastAttempt(rt, job, error, log)) return "report-error";
    throw error;
  }
  // Report delay: the service's `completedAt` (else when diffward saw the scan terminal) → check completed.
  const since = scan.completedAt ? Date.parse(scan.completedAt) : d.terminalAt;
  rt.metrics?.observeReportDelay((rt.now() - (Number.isFinite(since) ? since : d.terminalAt)) / 1000);
  return "reported";
}

/**
 * The report of one kind of scan: its steps for a `COMPLETED` scan, the log line (fixed text) of one that
 * ended `FAILED` or `CANCELLED` without a findings report, and what follows that end.
 */
interface ScanReport {
  report: (run: ReportRun) => Promise<void>;
  ended: string;
  afterEnded?: (rt: Runtime, d: PollJobData) => Promise<void>;
}

const REPORTS: Record<"pull" | "group" | "baseline", ScanReport> = {
  pull: { report: reportScan, ended: "scan ended without findings report" },
  group: { report: reportGroupScan, ended: "merge group scan ended without findings report" },
  baseline: {
    report: reportBaselineScan,
    ended: "baseline scan ended without findings report",
    afterEnded: markBaselineReported,
  },
};

/** Reports a terminal scan: one that did not complete is concluded ({@link concludeUnfinished}), else its kind reports it. */
async function reportTerminal(run: ReportRun): Promise<void> {
  const { rt, d, scan, log } = run;
  const target = REPORTS[isGroupScan(d) ? "group" : isBaselineScan(d) ? "baseline" : "pull"];
  if (await concludeUnfinished(rt, d, scan, log, target.ended)) {
    await target.afterEnded?.(rt, d);
    return;
  }
  await target.report(run);
}
