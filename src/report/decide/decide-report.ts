import type { CheckAnnotation, CheckConclusion, CheckRunOutput } from "../../github/check-runs.js";
import { renderReviewBody } from "../../render/review-body.js";
import type { ExistingReviewComment } from "../../github/reviews.js";
import { updateCheck, type GitHubWrite } from "../../github/writes.js";
import { batches, toAnnotations } from "../../render/annotations.js";
import { sections } from "../../render/markdown.js";
import { ANNOTATIONS_PER_REQUEST, CHECK_RUN_SUMMARY_MAX_BYTES } from "../../render/limits.js";
import { renderCheckRunOutput } from "../../render/check-run.js";
import { policyParts, type PolicyPart } from "../../domain/policy.js";
import type { ReportFinding } from "../../domain/finding-types.js";
import { planReport, type ReportPlan } from "./plan.js";
import type { PollJobData } from "../../job-catalogue/index.js";
import type { ApprovalRequest } from "../../domain/dismissal-approval.js";
import { requestFor } from "../../domain/dismissal-approval.js";
import { fingerprint } from "../../domain/identity.js";
import { renderFindingComment } from "../../render/inline-comment.js";
import { keepDetails, withKeptDetails } from "./details.js";
import type { KeptDetail } from "../../stores/stored-report.js";
import type { ReportExtras } from "./report-state.js";
import { findingCommentOptions } from "./finding-comment.js";
import { reportAnnotations, reportRule } from "./current-verdict.js";
import type { CodeScanningInfo } from "../../render/code-scanning-section.js";
import type { Note, ScanDetail } from "../../scanner/schemas.js";
import type { Settings } from "../../config/settings.js";

/** The GitHub writes of a completed scan's report, by kind (the apply step decides their order). */
export interface ReportWrites {
  /** refreshed bodies of existing finding comments whose text changed (same finding identity) */
  commentUpdates: GitHubWrite[];
  /** ONE review (event `COMMENT`) with the new inline comments; absent when there are none */
  review?: GitHubWrite;
  /** the completing update (conclusion, summary, first 50 annotations), then one per further 50 */
  completion: GitHubWrite[];
}

/** What {@link decideReportWrites} needs: the report plan and what was rendered from it. */
export interface ReportWritesInput {
  d: Pick<PollJobData, "owner" | "repo" | "pullNumber" | "headSha" | "checkRunId" | "configProblemsInPull"> &
    Partial<Pick<PollJobData, "scanId">>;
  plan: ReportPlan;
  /** the pull request's review comments as read before the report */
  comments: readonly ExistingReviewComment[];
  /** the inline comment body of a finding */
  bodyOf: (f: ReportFinding) => string;
  output: CheckRunOutput;
  annotations: readonly CheckAnnotation[];
}

/**
 * Decides, without I/O, a completed scan's GitHub writes: the conclusion (`failure`
 * whatever the findings when the pull request's own `.github/diffward.yml` is invalid, else the plan's
 * verdict); an update of each existing finding comment whose body changed (none when it is the same);
 * one review with the new inline comments; the completing check-run update with the first 50
 * annotations and one more update per further 50 (GitHub appends annotations, never replaces them).
 */
export function decideReportWrites(input: ReportWritesInput): ReportWrites & { conclusion: CheckConclusion } {
  const { d, plan, output } = input;
  const commentUpdates: GitHubWrite[] = [];
  for (const u of plan.update) {
    const existing = input.comments.find((c) => c.id === u.existingCommentId);
    const body = input.bodyOf(u.finding);
    if (existing && existing.body !== body)
      commentUpdates.push({
        kind: "update-review-comment",
        repo: { owner: d.owner, repo: d.repo },
        commentId: u.existingCommentId!,
        body,
        purpose: "review",
      });
  }
  const review: GitHubWrite | undefined =
    plan.post.length > 0
      ? {
          kind: "create-review",
          pull: { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber },
          commitId: d.headSha,
          body: renderReviewBody(plan.verdict, plan.post.length),
          comments: plan.post.map((p) => ({ path: p.path, line: p.line, body: input.bodyOf(p.finding) })),
          purpose: "review",
        }
      : undefined;
  const [first = [], ...rest] = batches([...input.annotations], ANNOTATIONS_PER_REQUEST);
  const conclusion: CheckConclusion = d.configProblemsInPull?.length ? "failure" : plan.verdict.conclusion;
  const completion: GitHubWrite[] = [
    // the scan id rides on the completing write too: the progress write that carried it may have been
    // skipped or taken over under load
    updateCheck(d, d.checkRunId, {
      conclusion,
      ...(d.scanId ? { externalId: d.scanId } : {}),
      output: { ...output, annotations: first },
    }),
    ...rest.map((batch) =>
      updateCheck(
        d,
        d.checkRunId,
        // the whole output again: a PATCH must not leave `text` behind (src/triage/check.ts `inPlaceOutput`)
        { output: { ...output, annotations: batch } },
        "complete",
      ),
    ),
  ];
  return { commentUpdates, ...(review ? { review } : {}), completion, conclusion };
}

/** The installation's hourly write budget as the report sees it (`WriteBudget` of `src/runtime/apply-writes.ts`). */
export interface HourlyBudget {
  /** GitHub's content-creating requests per hour per installation (500) */
  perHour: number;
  /** writes sent in the last hour plus writes waiting in the lane now */
  used: number;
  /** scans of the installation launched and not reported yet, this one included */
  inFlight: number;
}

/**
 * How far a report degrades to stay within GitHub's hourly budget (GitHub "Rate limits
 * for the REST API": at most 500 content-creating requests an hour), in this stated order:
 * 1. progress off: when the writes left could not give every scan in flight its completion and its review;
 * 2. the review folded into the check run: when, after this report's completion, the writes left could not
 *    give every other scan in flight its completion plus this review.
 * Pure. `completionWrites` is this report's completing writes (1 per 50 annotations).
 */
export function decideDegrade(
  budget: HourlyBudget | undefined,
  completionWrites: number,
): { progress: boolean; review: boolean; level: 0 | 1 | 2 } {
  if (!budget) return { progress: true, review: true, level: 0 };
  const left = budget.perHour - budget.used;
  const others = Math.max(0, budget.inFlight - 1);
  const review = left - completionWrites - 1 >= others;
  const progress = left >= 2 * budget.inFlight;
  return { progress, review, level: !review ? 2 : !progress ? 1 : 0 };
}

/** What the check run says about a degraded report (see {@link decideDegrade}). Plain text, no user input. */
export function degradeNotice(level: 1 | 2, budget: HourlyBudget): string {
  const why =
    `GitHub allows an app ${budget.perHour} content-creating requests an hour per installation; ` +
    `${budget.used} were used in the last hour with ${budget.inFlight} scan(s) still to report, so diffward keeps ` +
    `the rest for completing check runs.`;
  return level === 2
    ? `${why} Progress updates are off, and this report's inline comments were not posted as a review: the findings are in this check run's summary and annotations.`
    : `${why} Progress updates are off.`;
}

/** What a pull request's report read before deciding ({@link decidePullReport}). */
export interface PullReportFacts {
  /** every finding of the scan, the pull request's decisions applied */
  findings: ReportFinding[];
  /** the pending two-person dismissals, carried to this scan's findings */
  pending: readonly ApprovalRequest[];
  /** the pull request's review comments before the report */
  comments: readonly ExistingReviewComment[];
  plan: ReportPlan;
  /** finding id → the finding with its description and fix, for the findings shown inline */
  details: ReadonlyMap<string, ReportFinding>;
  /** finding id → the service's notes, for the findings shown inline */
  notes: ReadonlyMap<string, readonly Note[]>;
  extras: ReportExtras;
  /** the report's upload to GitHub code scanning (`undefined`: the feature is off) */
  codeScanning: CodeScanningInfo | undefined;
  /** the installation's hourly write budget (`undefined`: no write lane) */
  budget: HourlyBudget | undefined;
}

/** What a pull request's report writes and keeps, decided by {@link decidePullReport}. */
export interface PullReportDecision {
  writes: ReportWrites & { conclusion: CheckConclusion };
  /** the plan as shown: without inline comments when the review is folded into the check run */
  shownPlan: ReportPlan;
  annotations: CheckAnnotation[];
  /** the warnings the check run shows and the report state keeps (the budget notice aside) */
  warnings: string[];
  /** the details kept for recomputes (full disclosure only) */
  kept: Record<string, KeptDetail>;
  /** how far the report degraded under the hourly budget (0: not at all) */
  degradeLevel: 0 | 1 | 2;
}

/**
 * Decides, without I/O, a completed scan's report on a pull request: the warnings (the pull request's own
 * invalid `.github/diffward.yml` first), the annotations, how far the hourly budget degrades it
 * ({@link decideDegrade}, said in the check run), the check run output, and the writes
 * ({@link decideReportWrites}) with each inline comment's body (details, notes, a pending approval).
 */
export function decidePullReport(
  f: PullReportFacts,
  d: PollJobData,
  scan: ScanDetail,
  settings: Pick<Settings, "labelPrefix" | "publicUrl">,
): PullReportDecision {
  const cfg = d.config;
  // The check run's details show what was fetched, bounded; the report state keeps the same for recomputes.
  const kept = (cfg.disclosure ?? "full") === "full" ? keepDetails(f.details) : {};
  const warnings = [
    ...(d.configProblemsInPull?.length
      ? [`This pull request's \`.github/diffward.yml\` is invalid: ${d.configProblemsInPull.join("; ")}`]
      : []),
    ...floorRaisedNotes(d.floorRaised),
    ...f.extras.warnings,
  ];
  const annotations = reportAnnotations(
    f.findings,
    // with the baseline comparison: `failOn: {only: new}` leaves pre-existing findings' annotations non-blocking
    {
      config: cfg,
      extras: {
        warnings,
        guidanceAnnotation: f.extras.guidanceAnnotation,
        ...(f.extras.baseline ? { baseline: f.extras.baseline } : {}),
      },
    },
    settings.labelPrefix,
  );
  // GitHub's hourly write budget: progress off first, then the review folded into the check run, said there.
  const degrade = decideDegrade(
    f.budget,
    Math.max(1, Math.ceil(annotations.length / ANNOTATIONS_PER_REQUEST)),
  );
  const wantsReview = f.plan.post.length + f.plan.update.length > 0;
  const shownPlan = degrade.review ? f.plan : { ...f.plan, post: [], update: [] };
  const notices =
    f.budget && degrade.level > 0 && (degrade.level === 1 || wantsReview)
      ? [degradeNotice(degrade.level === 2 ? 2 : 1, f.budget)]
      : [];
  const output = completedOutput(settings, d, scan, withKeptDetails(f.findings, kept), {
    // the findings that have a review comment once the review is posted (new and refreshed ones)
    inlineIds: [...shownPlan.post, ...shownPlan.update].map((p) => p.finding.id),
    extras: f.extras,
    warnings: [...warnings, ...notices],
    codeScanning: f.codeScanning,
  });
  const bodyOf = (finding: ReportFinding) => findingBody(f, finding, cfg.disclosure ?? "full", settings);
  const writes = decideReportWrites({
    d,
    plan: shownPlan,
    comments: f.comments,
    bodyOf,
    output,
    annotations,
  });
  return { writes, shownPlan, annotations, warnings, kept, degradeLevel: degrade.level };
}

/** The inline comment body of a finding: its details and notes when fetched, its pending approval. Pure. */
function findingBody(
  f: Pick<PullReportFacts, "pending" | "details" | "notes">,
  finding: ReportFinding,
  disclosure: "full" | "summary",
  settings: Pick<Settings, "labelPrefix" | "publicUrl">,
): string {
  const waiting = requestFor(f.pending, { id: finding.id, fingerprint: fingerprint(finding) });
  const notes = f.notes.get(finding.id);
  return renderFindingComment(
    f.details.get(finding.id) ?? finding,
    findingCommentOptions({
      labelPrefix: settings.labelPrefix,
      publicUrl: settings.publicUrl,
      disclosure,
      ...(notes ? { notes } : {}),
      ...(waiting ? { pending: waiting } : {}),
    }),
  );
}

/**
 * The check run output of a completed scan (`renderCheckRunOutput`): the footer from the scan (preset
 * name, the budget reserved in credits, commits), the repository's `failOn` and effective disclosure, links
 * to the service when `SCANNER_PUBLIC_URL` is set, and what the report adds.
 */
export function completedOutput(
  settings: Pick<Settings, "labelPrefix" | "publicUrl">,
  d: PollJobData,
  scan: ScanDetail,
  findings: readonly ReportFinding[],
  shown: {
    /** ids of the findings with a diffward review comment */
    inlineIds: readonly string[];
    extras: Pick<ReportExtras, "guidance" | "credits" | "baseline">;
    warnings: readonly string[];
    codeScanning: CodeScanningInfo | undefined;
    /** what the findings block (default: a pull request) */
    subject?: "pull request" | "commit";
  },
): CheckRunOutput {
  const reserved = scan.creditBudget ?? d.creditBudget;
  return renderCheckRunOutput({
    scan: {
      id: d.scanId,
      status: scan.status,
      presetName: scan.presetName ?? d.presetRef,
      ...(reserved != null ? { creditBudget: reserved } : {}),
      ...(scan.commitHash ? { commitHash: scan.commitHash } : {}),
      ...(scan.baseCommit ? { baseCommit: scan.baseCommit } : {}),
    },
    findings: [...findings],
    failOn: d.config.failOn,
    policies: d.config.policies,
    mode: d.config.mode,
    ...(d.policySources ? { policyParts: reportPolicyParts(d) } : {}),
    disclosure: d.config.disclosure ?? "full",
    labelPrefix: settings.labelPrefix,
    ...(settings.publicUrl ? { publicUrl: settings.publicUrl, projectId: d.projectId } : {}),
    inlineIds: [...shown.inlineIds],
    ...(shown.extras.guidance ? { guidance: shown.extras.guidance } : {}),
    ...(shown.extras.credits ? { credits: shown.extras.credits } : {}),
    ...(shown.warnings.length ? { warnings: [...shown.warnings] } : {}),
    ...(shown.codeScanning ? { codeScanning: shown.codeScanning } : {}),
    ...(shown.subject ? { subject: shown.subject } : {}),
    ...(shown.extras.baseline ? { baseline: shown.extras.baseline } : {}),
  });
}

/**
 * Decides, without I/O, the report of a scan that has no pull request to review (a merge group, a
 * default-branch baseline): the verdict under `failOn` ({@link planReport} with nothing inline), the check
 * run output with `note` above the summary (dropped rather than overflow GitHub's 65,535 bytes), the
 * annotations, and the completing writes ({@link decideReportWrites}: no review, no comment updates).
 */
export function decideReviewlessReport(
  settings: Pick<Settings, "labelPrefix" | "publicUrl">,
  d: PollJobData,
  scan: ScanDetail,
  read: {
    findings: ReportFinding[];
    extras: ReportExtras;
    codeScanning: CodeScanningInfo | undefined;
    note: string;
    subject?: "commit";
  },
): { completion: GitHubWrite[]; conclusion: CheckConclusion; annotations: CheckAnnotation[] } {
  const { findings } = read;
  const cfg = d.config;
  const disclosure = cfg.disclosure ?? "full";
  // a merge group's comparison with its base branch's baseline (none for a baseline's own report)
  const rule = reportRule({ config: cfg, extras: read.extras });
  const plan = planReport({
    findings,
    files: [],
    posted: [],
    config: { failOn: rule, disclosure, maxInline: 0, minSeverity: cfg.comments.minSeverity },
  });
  const output = completedOutput(settings, d, scan, findings, {
    inlineIds: [],
    extras: read.extras,
    warnings: read.extras.warnings,
    codeScanning: read.codeScanning,
    ...(read.subject ? { subject: read.subject } : {}),
  });
  const withNote = sections(read.note, output.summary);
  const summary =
    Buffer.byteLength(withNote, "utf8") <= CHECK_RUN_SUMMARY_MAX_BYTES ? withNote : output.summary;
  const annotations = toAnnotations(findings, disclosure, {
    failOn: rule,
    labelPrefix: settings.labelPrefix,
  });
  const { completion, conclusion } = decideReportWrites({
    d,
    plan,
    comments: [],
    bodyOf: () => "",
    output: { ...output, summary },
    annotations,
  });
  return { completion, conclusion, annotations };
}

/**
 * The effective policy's parts of a scan's report ({@link policyParts}): each with the file it came from, or
 * the organization floor's when it raised it. A job queued before the sources were carried names the
 * repository's own file for each part.
 */
export function reportPolicyParts(
  d: Pick<PollJobData, "config" | "policySources" | "floorRaised">,
): PolicyPart[] {
  return policyParts(
    d.config,
    d.policySources ? { sources: d.policySources, raised: d.floorRaised ?? [] } : undefined,
  );
}

/**
 * One line per value the organization floor raised in the repository's configuration, naming the key, the
 * repository's value, the floor's and the file it came from (src/config/repo-config/floor.ts).
 */
export function floorRaisedNotes(raised: PollJobData["floorRaised"]): string[] {
  return (raised ?? []).map(
    (r) => `Organization floor: \`${r.key}\` raised from \`${r.from}\` to \`${r.to}\` by ${r.source}.`,
  );
}
