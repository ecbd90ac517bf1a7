import type { Logger } from "pino";
import { getPull, listPullFiles } from "../../github/pulls.js";
import { againstBaseline } from "../../report/baseline.js";
import { policyRule, readsBaseline } from "../../domain/policy.js";
import { comparisonOf, type BaselineInfo } from "../../render/baseline.js";
import { listReviewComments } from "../../github/reviews.js";
import type { InstallationOctokit } from "../../github/types.js";
import type { ReportFinding } from "../../domain/types.js";
import type { Note, ScanDetail } from "../../scanner/schemas.js";
import { carryApprovals } from "../../triage/approvals.js";
import type { ScannerTenant } from "../../tenants/index.js";
import { planReport, type ReportPlan } from "../../report/plan.js";
import { postedFindingComments } from "../../report/posted.js";
import { applyPullDecisions } from "../../triage/decisions.js";
import { REPORT_KIND, buildReportState, type ReportState } from "../../report/state.js";
import { auditThreadWrites, closingCoverage, syncNotReported } from "../../report/not-reported.js";
import { annotationsDigest } from "../../report/verdict.js";
import { pullKey } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { WritesWithdrawnError, applyWrites, writeBudget, writesOf } from "../../runtime/writes.js";
import { decidePullReport, type PullReportDecision, type PullReportFacts } from "./decide.js";
import type { PollJobData } from "../../job-catalogue/index.js";
import {
  logReport,
  readExtras,
  readScanFindings,
  settleReportedSpend,
  uploadReport,
  type ReportRun,
} from "./steps.js";

/**
 * Reports a `COMPLETED` scan on its pull request, in the pull-request job's shape (`FAILED` and `CANCELLED`
 * are concluded by the report job with a clear message):
 * 1. read ({@link readPullReport}): every finding (pages of 100) with the pull request's decisions, the
 *    pending approvals, files and review comments, the plan ({@link planReport}), the details of the
 *    findings shown inline, the extras, the one SARIF upload and the hourly write budget;
 * 2. decided ({@link decidePullReport}, pure): output, annotations, degrade, writes;
 * 3. written ({@link writePullReport}): the check run completed with the summary and the annotations in
 *    batches of 50 (GitHub "Update a check run": at most 50 annotations per request; they accumulate),
 *    then existing comments of the same finding identity refreshed and ONE review (event `COMMENT`) with
 *    the new inline comments (complete first, review after);
 * 4. remembered ({@link saveReport}): the report state, threads of findings no longer reported, the spend.
 * A crash in between is retried: a Redis marker per scan keeps the retry from completing twice, and the
 * comment markers already on the pull request from posting twice.
 */
export async function reportScan(run: ReportRun): Promise<void> {
  const { rt, octokit, d, scan, log } = run;
  const facts = await readPullReport(run);
  const decision = decidePullReport(facts, d, scan, rt.settings);
  const commentIds = await writePullReport(rt, octokit, d, facts, decision);
  await saveReport(rt, octokit, d, scan, { facts, decision, commentIds }, log);
  log.info(
    {
      conclusion: decision.writes.conclusion,
      findings: facts.findings.length,
      inline: decision.shownPlan.post.length,
      updated: decision.shownPlan.update.length,
      degrade: decision.degradeLevel,
      annotations: decision.annotations.length,
    },
    "scan reported",
  );
}

/**
 * Reads what a completed scan's report decides on. Decisions survive pushes: the pull request's last
 * decisions apply to matching findings of this scan; pending two-person dismissals follow their finding
 * (a severity raise above one invalidates it). Finding markers are trusted only in diffward's own
 * comments: a copied one is someone's text. The one SARIF upload goes out here, before the check run
 * links to it.
 */
async function readPullReport(run: ReportRun): Promise<PullReportFacts & { botLogin: string }> {
  const { rt, octokit, tenant, d, log } = run;
  const pull = { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber };
  const findings = await applyPullDecisions(rt, tenant, d, await readScanFindings(tenant, d), log);
  const pending = await carryApprovals(rt, pullKey(d.owner, d.repo, d.pullNumber), findings, log);
  const [files, comments] = await Promise.all([
    listPullFiles(octokit, pull),
    listReviewComments(octokit, pull),
  ]);
  const botLogin = await rt.botLogin();
  const cfg = d.config;
  const baseline = await readBaselineComparison(rt, octokit, d, findings);
  const plan = planReport({
    findings,
    files,
    posted: postedFindingComments(comments, botLogin),
    config: {
      failOn: policyRule(cfg, comparisonOf(baseline)),
      disclosure: cfg.disclosure ?? "full",
      maxInline: cfg.comments.maxInline,
      minSeverity: cfg.comments.minSeverity,
    },
  });
  const { details, notes } = await readDetails(tenant, d, plan);
  const extras = { ...(await readExtras(run)), ...(baseline ? { baseline } : {}) };
  const codeScanning = await uploadReport(rt, d, findings, log);
  const budget = await writeBudget(rt, d.installationId);
  return { findings, pending, comments, botLogin, plan, details, notes, extras, codeScanning, budget };
}

/**
 * The pull request's findings against its base branch's last completed baseline (`baseline:` in
 * `.github/diffward.yml`), when the repository has one: the base branch is read from GitHub ("Get a pull
 * request") only then, and must be the baseline's branch. With `only: new` in the policy and no completed
 * baseline of the base branch, that it has none (the summary says every finding counts); otherwise
 * `undefined`.
 */
async function readBaselineComparison(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: PollJobData,
  findings: readonly ReportFinding[],
): Promise<BaselineInfo | undefined> {
  const baseline = await rt.stores.baselines.getReport(d.owner, d.repo);
  if (!baseline && !readsBaseline(d.config)) return undefined;
  const pull = await getPull(octokit, { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber });
  return againstBaseline(baseline, pull.baseRef, findings, d.config);
}

/** Details (description, recommended fix, notes) only for the findings shown inline: one `GET` each. */
async function readDetails(
  tenant: ScannerTenant,
  d: PollJobData,
  plan: ReportPlan,
): Promise<{ details: Map<string, ReportFinding>; notes: Map<string, Note[]> }> {
  const details = new Map<string, ReportFinding>();
  const notes = new Map<string, Note[]>();
  await Promise.all(
    [...plan.post, ...plan.update].map(async (p) => {
      const detail = await tenant.client.getFinding(d.projectId, p.finding.id);
      details.set(p.finding.id, {
        ...p.finding,
        description: detail.description,
        recommendedFix: detail.recommendedFix ?? null,
        pocReport: detail.pocReport ?? null,
      });
      notes.set(p.finding.id, detail.notes);
    }),
  );
  return { details, notes };
}

/**
 * Writes a decided report. Complete first, review after: the completing write (conclusion, summary, first
 * 50 annotations) ends the wait people watch, and it goes first in the installation's write lane. A retry
 * after a crash between the two does not complete again (GitHub would append the annotations twice).
 * @returns finding id → diffward's review comment of it (refreshed ones, and the new ones read back).
 */
async function writePullReport(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: PollJobData,
  facts: Pick<PullReportFacts, "plan"> & { botLogin: string },
  decision: PullReportDecision,
): Promise<Map<string, number>> {
  const { writes } = decision;
  if (!(await rt.stores.pulls.getJson<{ at: number }>("completed", d.scanId))) {
    await applyWrites(rt, d.installationId, writes.completion);
    await rt.stores.pulls.putJson("completed", d.scanId, { at: rt.now() }, 60 * 60 * 24 * 7);
  }
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
async function saveReport(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: PollJobData,
  scan: ScanDetail,
  done: {
    facts: PullReportFacts & { botLogin: string };
    decision: PullReportDecision;
    commentIds: Map<string, number>;
  },
  log: Logger,
): Promise<void> {
  const { facts, decision } = done;
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  const reportedAt = rt.now();
  const closing = closingCoverage(await rt.stores.pulls.getJson<ReportState>(REPORT_KIND, key), {
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
    extras: facts.extras,
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
  if (!(await rt.stores.pulls.putReportUnlessStopped(key, d.scanId, state)))
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
  await rt.stores.pulls.finishScan(d.installationId, d.scanId);
}
