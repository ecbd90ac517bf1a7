/**
 * The writes every kind of report makes (a pull request's `../pull-report.ts`, a merge group's
 * `../group-report.ts`, a baseline's `src/baseline/baseline-report.ts`): the end of a scan that did not complete, the
 * completing writes once per scan, the one SARIF upload, the spend counted in the cap ledger, and the
 * report log of the organization's page. Each report keeps what is its own (review, report state, the
 * baseline's fingerprints).
 */
import type { Logger } from "pino";
import { planScanEnded } from "../../checks/endings.js";
import { applyPolicy, policyRule } from "../../domain/policy.js";
import { applyCodeScanningUpload, planCodeScanningUpload } from "../../code-scanning/index.js";
import type { ReportFinding } from "../../domain/finding-types.js";
import type { GitHubWrite } from "../../github/writes.js";
import { enqueueSettle, recordScanSpend } from "../../scan/index.js";
import type { PollJobData } from "../../job-catalogue/index.js";
import type { CodeScanningInfo } from "../../render/code-scanning-section.js";
import { pullKey } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { applyWrites } from "../../runtime/apply-writes.js";
import type { ScanDetail } from "../../scanner/schemas.js";
import type { ReportExtras } from "../decide/report-state.js";
import type { ReportRun } from "../report-run.js";

/**
 * Applies a report's completing writes (conclusion, summary, annotations) once per scan and check run: a retry after a
 * crash past them does not complete again, since GitHub appends a check run's annotations on every update.
 * The mark is Redis `completed:<scanId>`, naming the check run, kept 7 days.
 */
export async function completeOnce(
  rt: Runtime,
  d: Pick<PollJobData, "installationId" | "scanId" | "checkRunId">,
  completion: GitHubWrite[],
): Promise<void> {
  if (!(await rt.stores.scans.completedAt(d.scanId, d.checkRunId))) {
    await applyWrites(rt, d.installationId, completion);
    await rt.stores.scans.markCompleted(d.scanId, d.checkRunId, rt.now());
  }
}

/**
 * What a report without a review (a merge group's, a baseline's) writes before it decides: the spend counted
 * in `creditCap.monthly`'s ledger once settled (a later look when not yet: a `settle` job), then the one
 * SARIF upload, whose outcome its check run shows.
 * @returns what the check run says about code scanning, or `undefined` when the feature is off.
 */
export async function settleAndUpload(
  run: ReportRun,
  findings: readonly ReportFinding[],
  credits: ReportExtras["credits"],
): Promise<CodeScanningInfo | undefined> {
  await settleReportedSpend(run.rt, run.d, credits);
  return uploadReport(run.rt, run.d, findings, run.log);
}

/**
 * Concludes the check run of a scan that ended `FAILED` or `CANCELLED` (spec "Scan status": terminal
 * states) with the message of `planScanEnded`, and marks the scan finished.
 * @param message - the log line (fixed text) saying which kind of report ended without findings.
 * @returns `true` when the scan did not complete (nothing more to report), `false` for `COMPLETED`.
 */
export async function concludeUnfinished(
  rt: Runtime,
  d: PollJobData,
  scan: ScanDetail,
  log: Logger,
  message: string,
): Promise<boolean> {
  if (scan.status === "COMPLETED") return false;
  // a cancel diffward made (`/diffward cancel`) is told in diffward's words: who cancelled it
  const { cancelledBy } = await rt.stores.scans.getScanEnd(d.scanId);
  await applyWrites(
    rt,
    d.installationId,
    planScanEnded(d, scan.status === "CANCELLED" ? "CANCELLED" : "FAILED", cancelledBy),
  );
  if ((d.target?.kind ?? "pull") === "pull")
    await logReport(rt, d, scan.status === "CANCELLED" ? "cancelled" : "failure", [], rt.now());
  await rt.stores.scans.finishScan(d.installationId, d.scanId);
  log.info({ status: scan.status }, message);
  return true;
}

/**
 * The report's ONE upload to GitHub code scanning (README "GitHub code scanning"; `planCodeScanningUpload`, at most one
 * per scan by `applyCodeScanningUpload`): `ref` = `refs/pull/<number>/head` for a pull request, the group's
 * `head_ref` for a merge group, `refs/heads/<default branch>` for a baseline; `commit_sha` = the scanned head. Off unless `codeScanning.upload`; withheld
 * under an effective `disclosure: summary`; findings a path rule in mode `off` hides are left out.
 * @returns what the check run says about code scanning, or `undefined` when the feature is off.
 */
export async function uploadReport(
  rt: Runtime,
  d: PollJobData,
  findings: readonly ReportFinding[],
  log: Logger,
): Promise<CodeScanningInfo | undefined> {
  const cfg = d.config;
  return applyCodeScanningUpload(
    rt,
    d.installationId,
    { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber },
    d.scanId,
    planCodeScanningUpload({
      enabled: cfg.codeScanning?.upload === true, // jobs queued before the option existed lack it
      disclosure: cfg.disclosure ?? "full",
      pullNumber: d.pullNumber,
      ...(d.target?.kind === "merge-group" ? { mergeGroupHeadRef: d.target.headRef } : {}),
      ...(d.target?.kind === "baseline" ? { baselineBranch: d.target.branch } : {}),
      headSha: d.headSha,
      scanId: d.scanId,
      // a finding under a `policies` rule in mode `off` is not shown anywhere, code scanning included
      findings: findings.filter((f) => applyPolicy(f, policyRule(cfg)).outcome !== "off"),
      labelPrefix: rt.settings.labelPrefix,
      ...(d.repoHtmlUrl ? { repoHtmlUrl: d.repoHtmlUrl } : {}),
    }),
    log,
  );
}

/**
 * Counts a reported scan's spend in `creditCap.monthly`'s ledger: once settled, the scan counts what it
 * spent instead of its budget; a spend not settled yet gets a `settle` job that looks again later
 * (`src/scan/settle.ts`).
 */
export async function settleReportedSpend(
  rt: Runtime,
  d: PollJobData,
  credits: ReportExtras["credits"],
): Promise<void> {
  const counted = credits?.settled ? credits.spent : (credits?.reserved ?? d.creditBudget);
  if (counted !== undefined) await recordScanSpend(rt, d, counted, credits?.settled === true);
  if (credits && !credits.settled) await enqueueSettle(rt, d, 0);
  else if (credits?.spent !== undefined) {
    rt.metrics?.creditsSpent.inc(credits.spent);
    await rt.stores.capLedger.settle(d.scanId, credits.spent);
  }
}

/**
 * Adds a pull request's report to the installation's report log for the organization's page
 * (`src/stores/org-records.ts`): conclusion, findings by severity, and when diffward received the request
 * that set its head (`PullState.receivedAt`; the scan's launch time when the state follows another head or
 * does not know it, e.g. a merge group, a baseline, a reconciled scan).
 */
export async function logReport(
  rt: Runtime,
  d: PollJobData,
  conclusion: string,
  findings: readonly ReportFinding[],
  reportedAt: number,
): Promise<void> {
  const pull = await rt.stores.pulls.getPull(pullKey(d.owner, d.repo, d.pullNumber));
  const received = pull?.headSha === d.headSha ? pull.receivedAt : undefined;
  const severities: Record<string, number> = {};
  for (const f of findings) severities[f.severity] = (severities[f.severity] ?? 0) + 1;
  await rt.stores.orgRecords.recordReport(d.installationId, {
    scanId: d.scanId,
    repository: `${d.owner}/${d.repo}`,
    pullNumber: d.pullNumber,
    headSha: d.headSha,
    conclusion,
    severities,
    receivedAt: received ?? d.launchedAt,
    reportedAt,
  });
}
