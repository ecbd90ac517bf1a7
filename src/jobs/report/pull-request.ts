import type { Logger } from "pino";
import { annotationsDigest, reportAnnotations } from "../../report/verdict.js";
import type { CheckAnnotation } from "../../github/checks.js";
import { listPullFiles } from "../../github/pulls.js";
import { listReviewComments } from "../../github/reviews.js";
import type { ReportFinding } from "../../domain/types.js";
import { fingerprint, identityOf } from "../../domain/identity.js";
import { renderFindingComment } from "../../render/inline-comment.js";
import { findingLabel } from "../../scanner/labels.js";
import type { Note, ScanDetail } from "../../scanner/schemas.js";
import { carryApprovals, requestFor } from "../../triage/approvals.js";
import { findingCommentOptions } from "../../report/finding-comment.js";
import type { ScannerTenant } from "../../tenants/index.js";
import { planReport } from "../../report/plan.js";
import { postedFindingComments } from "../../report/posted.js";
import { applyPullDecisions } from "../../triage/decisions.js";
import { collectReportExtras } from "../../report/extras.js";
import { keepDetails, withKeptDetails } from "../../report/details.js";
import type { ReportState } from "../../report/state.js";
import { enqueueSettle } from "../settle.js";
import { capLedgerOf } from "../../runtime/cap-ledger.js";
import { closingCoverage, syncNotReported } from "../../report/not-reported.js";
import { pullKey } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { WritesWithdrawnError, applyWrites, writeBudget } from "../../runtime/writes.js";
import {
  ANNOTATIONS_PER_REQUEST,
  decideDegrade,
  decideReportWrites,
  degradeNotice,
} from "./decide.js";
import type { PollJobData } from "../types.js";
import { completedOutput, concludeUnfinished, readScanFindings, uploadReport } from "./steps.js";

/**
 * Reports a terminal scan (issue "Reporting"): `FAILED` and `CANCELLED` conclude the check with a clear
 * message; `COMPLETED` pages through every finding (limit 100), plans the report ({@link planReport}),
 * completes the check run with the summary and the annotations in batches of 50 (GitHub "Update a check
 * run": at most 50 annotations per request; they accumulate), then refreshes existing comments of the same
 * finding identity and posts ONE review (event `COMMENT`) with the new inline comments (issue 15, item 2:
 * complete first, review after). A crash in between is retried: a Redis marker per scan keeps the retry
 * from completing twice, and the comment markers already on the pull request from posting twice.
 */
export async function reportScan(
  rt: Runtime,
  d: PollJobData,
  tenant: ScannerTenant,
  scan: ScanDetail,
  log: Logger,
): Promise<void> {
  const octokit = await rt.octokit(d.installationId);
  const pull = { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber };
  if (await concludeUnfinished(rt, d, scan, log, "scan ended without findings report")) return;

  // Decisions survive pushes: the PR's last decisions apply to matching findings of this scan (issue 4).
  const findings: ReportFinding[] = await applyPullDecisions(
    rt,
    tenant,
    d,
    await readScanFindings(tenant, d),
    log,
  );
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  // Pending two-person dismissals follow their finding; a severity raise above one invalidates it (issue 12).
  const pending = await carryApprovals(rt, key, findings, log);

  const [files, comments] = await Promise.all([
    listPullFiles(octokit, pull),
    listReviewComments(octokit, pull),
  ]);
  // Markers are trusted only in diffward's own comments (issue 10 item 13): a copied one is someone's text.
  const botLogin = await rt.botLogin();
  const posted = postedFindingComments(comments, botLogin);

  const cfg = d.config;
  const plan = planReport({
    findings,
    files,
    posted,
    config: {
      failOn: cfg.failOn,
      disclosure: cfg.disclosure ?? "full",
      maxInline: cfg.comments.maxInline,
      minSeverity: cfg.comments.minSeverity,
    },
  });

  // Details (description, recommended fix) only for the findings shown inline.
  const shown = [...plan.post, ...plan.update];
  const details = new Map<string, ReportFinding>();
  const notes = new Map<string, Note[]>();
  await Promise.all(
    shown.map(async (p) => {
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
  // The check run's details show what was fetched, bounded; the report state keeps the same for recomputes.
  const kept = (cfg.disclosure ?? "full") === "full" ? keepDetails(details) : {};
  const bodyOf = (f: ReportFinding) => {
    const waiting = requestFor(pending, { id: f.id, fingerprint: fingerprint(f) });
    return renderFindingComment(
      details.get(f.id) ?? f,
      findingCommentOptions({
        labelPrefix: rt.settings.labelPrefix,
        publicUrl: rt.settings.publicUrl,
        disclosure: cfg.disclosure ?? "full",
        ...(notes.has(f.id) ? { notes: notes.get(f.id)! } : {}),
        ...(waiting ? { pending: waiting } : {}),
      }),
    );
  };

  const reserved = scan.creditBudget ?? d.creditBudget;
  const extras = await collectReportExtras(rt, octokit, tenant, d, reserved ?? undefined, log);
  const warnings = [
    ...(d.configProblemsInPull?.length
      ? [`This pull request's \`.github/diffward.yml\` is invalid: ${d.configProblemsInPull.join("; ")}`]
      : []),
    ...extras.warnings,
  ];
  // One SARIF upload per completed report, before the check run links to it (issue 14).
  const codeScanning = await uploadReport(rt, d, findings, log);
  const annotations: CheckAnnotation[] = reportAnnotations(
    findings,
    { config: cfg, extras: { warnings, guidanceAnnotation: extras.guidanceAnnotation } },
    rt.settings.labelPrefix,
  );
  // GitHub's hourly write budget (issue 15, item 3): progress off first, then the review folded into the
  // check run, said in the check run.
  const budget = await writeBudget(rt, d.installationId);
  const degrade = decideDegrade(budget, Math.max(1, Math.ceil(annotations.length / ANNOTATIONS_PER_REQUEST)));
  const wantsReview = plan.post.length + plan.update.length > 0;
  const shownPlan = degrade.review ? plan : { ...plan, post: [], update: [] };
  const notices =
    budget && degrade.level > 0 && (degrade.level === 1 || wantsReview)
      ? [degradeNotice(degrade.level === 2 ? 2 : 1, budget)]
      : [];
  const output = completedOutput(rt, d, scan, withKeptDetails(findings, kept), {
    // the findings that have a review comment once the review below is posted (new and refreshed ones)
    inlineIds: [...shownPlan.post, ...shownPlan.update].map((p) => p.finding.id),
    extras,
    warnings: [...warnings, ...notices],
    codeScanning,
  });
  const writes = decideReportWrites({ d, plan: shownPlan, comments, bodyOf, output, annotations });
  const conclusion = writes.conclusion;

  // Complete first, review after (issue 15, item 2): the completing write (conclusion, summary, first 50
  // annotations) ends the wait people watch, and it goes first in the installation's write lane. A retry
  // after a crash between the two does not complete again (GitHub would append the annotations twice).
  if (!(await rt.state.getJson<{ at: number }>("completed", d.scanId))) {
    await applyWrites(rt, d.installationId, writes.completion);
    await rt.state.putJson("completed", d.scanId, { at: rt.now() }, 60 * 60 * 24 * 7);
  }
  const commentIds = new Map<string, number>(plan.update.map((u) => [u.finding.id, u.existingCommentId!]));
  await applyWrites(rt, d.installationId, writes.commentUpdates);
  if (writes.review) {
    await applyWrites(rt, d.installationId, [writes.review]);
    // Read back the new comments' ids (one GET) so triage replies can be tied to their finding.
    for (const p of postedFindingComments(await listReviewComments(octokit, pull), botLogin))
      if (!commentIds.has(p.findingId)) commentIds.set(p.findingId, p.commentId);
  }

  const state: ReportState = {
    scanId: d.scanId,
    projectId: d.projectId,
    checkRunId: d.checkRunId,
    headSha: d.headSha,
    installationId: d.installationId,
    accountLogin: d.accountLogin,
    config: cfg,
    ...(reserved != null ? { creditBudget: reserved } : {}),
    presetRef: d.presetRef,
    ...(scan.presetName ? { presetName: scan.presetName } : {}),
    ...(scan.baseCommit ? { baseCommit: scan.baseCommit } : {}),
    extras: {
      ...(extras.guidance ? { guidance: extras.guidance } : {}),
      ...(extras.credits ? { credits: extras.credits } : {}),
      ...(extras.guidanceAnnotation ? { guidanceAnnotation: extras.guidanceAnnotation } : {}),
      warnings,
      ...(codeScanning ? { codeScanning } : {}),
    },
    annotationsDigest: annotationsDigest(annotations),
    ...(d.configProblemsInPull?.length ? { configInvalidInPull: true } : {}),
    findings: findings.map((f) => ({
      id: f.id,
      label: findingLabel(f.id, rt.settings.labelPrefix),
      ...identityOf(f),
      severity: f.severity,
      title: f.title,
      location: f.location,
      category: f.category,
      triageStatus: f.triageStatus,
      resolutionStatus: f.resolutionStatus,
      ...(commentIds.has(f.id) ? { commentId: commentIds.get(f.id)! } : {}),
    })),
    ...(Object.keys(kept).length > 0 ? { details: kept } : {}),
    reportedAt: rt.now(),
  };
  // Findings that close themselves (issue 12): decided from the previous report's scopes, before it is replaced.
  const closing = closingCoverage(await rt.state.getJson<ReportState>("report", key), {
    scope: { presetRef: d.presetRef, auditAreas: cfg.auditAreas ?? [] },
    ranShort: extras.credits?.ranShort,
  });
  state.scopes = closing.scopes;
  if (!closing.coverage.complete && closing.coverage.why === "not-settled") state.closeWhenSettled = true;
  // The report state is stored in one step with the check that the scan was not stopped: a superseded
  // head's report never replaces the pull request's (`/fp` recomputes and merge-queue reuse read it).
  if (!(await rt.state.putReportUnlessStopped(key, d.scanId, state)))
    throw new WritesWithdrawnError(`scan ${d.scanId} was stopped: its report state is not stored`);
  await rt.writeGuard?.();
  await syncNotReported(
    octokit,
    pull,
    {
      findings: state.findings,
      coverage: closing.coverage,
      scan: { id: d.scanId, headSha: d.headSha },
      comments,
      botLogin,
    },
    log,
  );
  if (extras.credits && !extras.credits.settled) await enqueueSettle(rt, d, 0);
  else if (extras.credits?.spent !== undefined) {
    rt.metrics?.creditsSpent.inc(extras.credits.spent);
    await capLedgerOf(rt.redis, rt.state.prefix).settle(d.scanId, extras.credits.spent); // creditCap.monthly
  }
  await rt.state.finishScan(d.installationId, d.scanId);
  log.info(
    {
      conclusion,
      findings: findings.length,
      inline: shownPlan.post.length,
      updated: shownPlan.update.length,
      degrade: degrade.level,
      annotations: annotations.length,
    },
    "scan reported",
  );
}
