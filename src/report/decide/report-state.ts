/**
 * The report a pull request's scan leaves (its shape and store: `src/stores/stored-report.ts`), built and
 * changed by pure functions: the report job builds it, settlement and the triage recompute change it.
 */
import type { CheckAnnotation } from "../../github/check-runs.js";
import type { CodeScanningInfo } from "../../render/code-scanning-section.js";
import type {
  KeptDetail,
  ReportedFinding,
  ReportScope,
  ReportState,
  ShownExtras,
} from "../../stores/stored-report.js";
import type { ReportFinding } from "../../domain/finding-types.js";
import { identityOf } from "../../domain/identity.js";
import { findingLabel } from "../../scanner/labels.js";

/** What a report shows beside the findings: guidance, credits and warnings (read by `src/report/read/extras.ts`). */
export interface ReportExtras extends ShownExtras {
  /** an annotation on the guidance file when the pull request changes it */
  guidanceAnnotation?: CheckAnnotation | undefined;
}

/** What {@link buildReportState} keeps of a completed scan's report. */
export interface ReportStateInput {
  /** the reported scan and its check run, as the poll job carried them */
  scan: Pick<
    ReportState,
    | "scanId"
    | "projectId"
    | "checkRunId"
    | "headSha"
    | "installationId"
    | "accountLogin"
    | "config"
    | "presetRef"
  > & {
    /** the budget reserved in credits (the service's, else the one asked at launch) */
    creditBudget: number | null | undefined;
    /** as the service reported them */
    presetName?: string | null | undefined;
    baseCommit?: string | null | undefined;
    /** problems of the pull request's own `.github/diffward.yml` */
    configProblemsInPull?: readonly string[] | undefined;
  };
  extras: Omit<ShownExtras, "warnings" | "codeScanning"> & {
    guidanceAnnotation?: CheckAnnotation | undefined;
  };
  warnings: string[];
  codeScanning: CodeScanningInfo | undefined;
  /** the annotations the completed check run carries */
  annotationsDigest: string;
  findings: readonly ReportFinding[];
  /** finding id → diffward's review comment of it */
  commentIds: ReadonlyMap<string, number>;
  /** the details fetched for the review comments, kept for recomputes */
  details: Record<string, KeptDetail>;
  labelPrefix: string;
  /** ms since epoch */
  reportedAt: number;
  /** the scopes to remember and whether closing waits for the settlement (`closingCoverage`) */
  closing: { scopes: ReportScope[]; closeWhenSettled: boolean };
}

/**
 * The report state of a completed scan (pure): the one place a {@link ReportState} is built; settlement and
 * the triage recompute change one built here ({@link withSettledCredits}, {@link withRecomputedCheck}).
 */
export function buildReportState(input: ReportStateInput): ReportState {
  const { scan, extras } = input;
  return {
    scanId: scan.scanId,
    projectId: scan.projectId,
    checkRunId: scan.checkRunId,
    headSha: scan.headSha,
    installationId: scan.installationId,
    accountLogin: scan.accountLogin,
    config: scan.config,
    ...(scan.creditBudget != null ? { creditBudget: scan.creditBudget } : {}),
    presetRef: scan.presetRef,
    ...(scan.presetName ? { presetName: scan.presetName } : {}),
    ...(scan.baseCommit ? { baseCommit: scan.baseCommit } : {}),
    extras: {
      ...(extras.guidance ? { guidance: extras.guidance } : {}),
      ...(extras.credits ? { credits: extras.credits } : {}),
      ...(extras.guidanceAnnotation ? { guidanceAnnotation: extras.guidanceAnnotation } : {}),
      ...(extras.baseline ? { baseline: extras.baseline } : {}),
      ...(extras.policyParts ? { policyParts: extras.policyParts } : {}),
      warnings: input.warnings,
      ...(input.codeScanning ? { codeScanning: input.codeScanning } : {}),
    },
    annotationsDigest: input.annotationsDigest,
    ...(scan.configProblemsInPull?.length ? { configInvalidInPull: true } : {}),
    findings: input.findings.map((f) => reportedFinding(f, input.labelPrefix, input.commentIds.get(f.id))),
    ...(Object.keys(input.details).length > 0 ? { details: input.details } : {}),
    reportedAt: input.reportedAt,
    scopes: input.closing.scopes,
    ...(input.closing.closeWhenSettled ? { closeWhenSettled: true } : {}),
  };
}

/** One finding as the report state keeps it. Pure. */
export function reportedFinding(
  f: ReportFinding,
  labelPrefix: string,
  commentId: number | undefined,
): ReportedFinding {
  return {
    id: f.id,
    label: findingLabel(f.id, labelPrefix),
    ...identityOf(f),
    severity: f.severity,
    title: f.title,
    location: f.location,
    category: f.category,
    triageStatus: f.triageStatus,
    resolutionStatus: f.resolutionStatus,
    ...(commentId !== undefined ? { commentId } : {}),
    ...(f.suppression ? { suppression: f.suppression } : {}),
  };
}

/**
 * The report once its scan's spend is settled (pure): only the credits change (spent, settled, and whether
 * the scan ran short: spent ≥ reserved); every other extra stays as reported, and `closeWhenSettled` is
 * dropped (the settlement decides it).
 */
export function withSettledCredits(report: ReportState, spent: number): ReportState {
  const reserved = report.extras?.credits?.reserved ?? report.creditBudget;
  const ranShort = reserved !== undefined ? spent >= reserved : undefined;
  const { closeWhenSettled: _settles, ...rest } = report;
  return {
    ...rest,
    extras: {
      ...report.extras,
      warnings: report.extras?.warnings ?? [],
      credits: {
        ...(reserved !== undefined ? { reserved } : {}),
        spent,
        settled: true,
        ...(ranShort !== undefined ? { ranShort } : {}),
      },
    },
  };
}

/** The report after a triage recompute (pure): the check run now showing it and its annotations' digest. */
export function withRecomputedCheck(
  report: ReportState,
  check: { checkRunId: number; annotationsDigest: string },
): ReportState {
  return { ...report, checkRunId: check.checkRunId, annotationsDigest: check.annotationsDigest };
}
