/**
 * A pull request's report, written: the check run completed, the finding comments refreshed and the one
 * review posted, then the report remembered (the report state, the threads of findings no longer reported,
 * the spend, the report log) and the scan no longer in flight.
 */
import type { Logger } from "pino";
import { listReviewComments } from "../../github/reviews.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import type { PollJobData } from "../../job-catalogue/index.js";
import { pullKey } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { WritesWithdrawnError, applyWrites, writesOf } from "../../runtime/apply-writes.js";
import type { ScanDetail } from "../../scanner/schemas.js";
import { closingCoverage } from "../decide/closing.js";
import { annotationsDigest } from "../decide/current-verdict.js";
import { reportPolicyParts, type PullReportDecision, type PullReportFacts } from "../decide/decide-report.js";
import { postedFindingComments } from "../decide/posted.js";
import { buildReportState } from "../decide/report-state.js";
import type { PullReportRead } from "../read/scan-facts.js";
import { auditThreadWrites, syncNotReported } from "./closing-threads.js";
import { completeOnce, logReport, settleReportedSpend } from "./scan-writes.js";

/**
 * Writes a decided report. Complete first, review after: the completing write (conclusion, summary, first
 * 50 annotations) ends the wait people watch, and it goes first in the installation's write lane. A retry
 * after a crash between the two does not complete again (GitHub would append the annotations twice).
 * @returns finding id → diffward's review comment of it (refreshed ones, and the new ones read back).
 */
export async function writePullReport(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: PollJobData,
  facts: Pick<PullReportRead, "plan" | "botLogin">,
  decision: PullReportDecision,
): Promise<Map<string, number>> {
  const { writes } = decision;
  await completeOnce(rt, d, writes.completion);
  const commentIds = new Map<string, number>(
    facts.plan.update.map((u) => [u.finding.id, u.existingCommentId!]),
  );
  await applyWrites(rt, d.installationId, writes.commentUpdates);
  if (writes.review) {
    await applyWrites(rt, d.installationId, [writes.review]);
    // Read back the new comments' ids (one GET) so triage replies can be tied to their finding.
    const pull = { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber };
    for (const p of postedFindingComments(await listReviewComments(octokit, pull), facts.botLogin))
      if (!commentIds.has(p.findingId)) commentIds.set(p.findingId, p.commentId);
  }
  return commentIds;
}

/**
 * Remembers the report: the report state ({@link buildReportState}) with the scopes reported so far;
 * findings that close themselves are decided from the previous report's scopes before it is replaced
 * ({@link closingCoverage}; a coverage still waiting on the settlement closes once it lands). Then the
 * threads of findings no longer reported, the spend in the cap ledger, and the scan no longer in flight.
 */
export async function saveReport(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: PollJobData,
  scan: ScanDetail,
  done: {
    facts: PullReportFacts & PullReportRead;
    decision: PullReportDecision;
    commentIds: Map<string, number>;
  },
  log: Logger,
): Promise<void> {
  const { facts, decision } = done;
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  const reportedAt = rt.now();
  const closing = closingCoverage(await rt.stores.reports.get(key), {
    scope: { presetRef: d.presetRef, auditAreas: d.config.auditAreas ?? [] },
    ranShort: facts.extras.credits?.ranShort,
  });
  const state = buildReportState({
    scan: {
      ...d,
      creditBudget: scan.creditBudget ?? d.creditBudget,
      presetName: scan.presetName,
      baseCommit: scan.baseCommit,
    },
    // the policy's parts as the check run named them, so a recompute names them again
    extras: d.policySources ? { ...facts.extras, policyParts: reportPolicyParts(d) } : facts.extras,
    warnings: decision.warnings,
    codeScanning: facts.codeScanning,
    annotationsDigest: annotationsDigest(decision.annotations),
    findings: facts.findings,
    commentIds: done.commentIds,
    details: decision.kept,
    labelPrefix: rt.settings.labelPrefix,
    reportedAt,
    closing: {
      scopes: closing.scopes,
      closeWhenSettled: !closing.coverage.complete && closing.coverage.why === "not-settled",
    },
  });
  // The report state is stored in one step with the check that the scan was not stopped: a superseded
  // head's report never replaces the pull request's (`/fp` recomputes and merge-queue reuse read it).
  if (!(await rt.stores.reports.putUnlessStopped(key, d.scanId, state)))
    throw new WritesWithdrawnError(`scan ${d.scanId} was stopped: its report state is not stored`);
  await rt.writeGuard?.();
  const pull = { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber };
  const reported = { id: d.scanId, headSha: d.headSha };
  const closed = await syncNotReported(
    octokit,
    writesOf(rt, d.installationId),
    pull,
    {
      findings: state.findings,
      coverage: closing.coverage,
      scan: reported,
      comments: facts.comments,
      botLogin: facts.botLogin,
    },
    log,
  );
  await auditThreadWrites(
    rt,
    { installationId: d.installationId, pull, botLogin: facts.botLogin, scan: reported },
    closed.applied,
  );
  await settleReportedSpend(rt, d, facts.extras.credits);
  await logReport(rt, d, decision.writes.conclusion, facts.findings, reportedAt);
  await rt.stores.scans.finishScan(d.installationId, d.scanId);
}
