/**
 * What diffward keeps of a pull request's last report (Redis `<prefix>:report:<owner/repo#n>`): written by
 * the report job, read by triage (commands, check recompute) and settlement. Below every job, so readers
 * need not import the job that writes it.
 */
import type { BaselineInfo } from "../../render/baseline.js";
import type { RepoConfig } from "../../config/repo-config.js";
import type { CheckAnnotation } from "../../github/check-runs.js";
import type { CreditInfo, GuidanceInfo } from "../../render/check-run.js";
import type { ReportScope } from "./closing.js";
import type { CodeScanningInfo } from "../../render/code-scanning-section.js";
import type { KeptDetail } from "./details.js";
import type { ReportFinding } from "../../domain/finding-types.js";
import { identityOf } from "../../domain/identity.js";
import { findingLabel } from "../../scanner/labels.js";

/** Redis kind of the report document. */
export const REPORT_KIND = "report";

/** The extras a report shows beside its findings, as stored (re-rendered by triage and settlement). */
export interface ShownExtras {
  /** the annotation on the guidance file when the pull request changes it (posted again on a fresh run) */
  guidanceAnnotation?: CheckAnnotation;
  guidance?: GuidanceInfo;
  credits?: CreditInfo;
  warnings: string[];
  /** the report's upload to GitHub code scanning, when `codeScanning.upload` is on */
  codeScanning?: CodeScanningInfo;
  /**
   * the findings against the base branch's last completed baseline, when it has one (or, with
   * `failOn: {only: new}`, that it has none): triage recomputes decide with it, as the report did
   */
  baseline?: BaselineInfo;
}

/** What a report shows beside the findings: guidance, credits and warnings (read by `src/report/read/extras.ts`). */
export interface ReportExtras extends ShownExtras {
  /** an annotation on the guidance file when the pull request changes it */
  guidanceAnnotation?: CheckAnnotation | undefined;
}

/** One reported finding, as stored. */
export interface ReportedFinding {
  id: string;
  label: string;
  fingerprint: string;
  /** line-independent shape key (src/domain/identity.ts); absent in states written before it */
  shape?: string;
  severity: string;
  title: string;
  location: string;
  category: string;
  triageStatus: string;
  resolutionStatus: string;
  /** diffward's review comment of the finding on this pull request, when it has one */
  commentId?: number;
}

/** What diffward keeps of a pull request's last report, for triage and settlement. */
export interface ReportState {
  scanId: string;
  projectId: string;
  checkRunId: number;
  headSha: string;
  installationId: number;
  accountLogin: string;
  config: RepoConfig;
  /** the budget asked at launch, in credits */
  creditBudget?: number;
  presetRef: string;
  /**
   * SHA-256 of the annotations the current check run carries: GitHub appends annotations on every update
   * and never removes one, so a recompute whose annotations differ posts a fresh check run instead
   */
  annotationsDigest?: string;
  /** the preset's name and the merge base as the scan reported them: the footer keeps them on recomputes */
  presetName?: string;
  baseCommit?: string;
  /** guidance, credits and warnings shown beside the findings (re-rendered by triage and settlement) */
  extras?: ShownExtras;
  /** the pull request's own `.github/diffward.yml` is invalid: the check fails whatever the findings */
  configInvalidInPull?: boolean;
  /** every distinct scope (preset, audit areas) the pull request's reports had, oldest first */
  scopes?: ReportScope[];
  /** the scope covers earlier ones but the spend was not settled: close not-reported threads when it is */
  closeWhenSettled?: boolean;
  findings: ReportedFinding[];
  /**
   * finding id → the description and recommended fix fetched for its review comment, cut to fit
   * (`./details.ts` `keepDetails`): recomputes show them in the check run's details as the report did.
   * Absent in states written before it, and for findings whose detail was not fetched.
   */
  details?: Record<string, KeptDetail>;
  /** ms since epoch */
  reportedAt: number;
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
