/**
 * What diffward keeps of a pull request's last report (Redis `<prefix>:report:<owner/repo#n>`): written by
 * the report job, read by triage (commands, check recompute) and settlement. Below every job, so readers
 * need not import the job that writes it.
 */
import type { RepoConfig } from "../config/repo-config.js";
import type { CheckAnnotation } from "../github/checks.js";
import type { CreditInfo, GuidanceInfo } from "../render/check-run.js";
import type { ReportScope } from "./not-reported.js";
import type { CodeScanningInfo } from "../render/code-scanning.js";
import type { KeptDetail } from "./details.js";

/** Redis kind of the report document. */
export const REPORT_KIND = "report";

/** The extras a report shows beside its findings, as stored (re-rendered by triage and settlement). */
export interface ShownExtras {
  /** the annotation on the guidance file when the pull request changes it (posted again on a fresh run) */
  guidanceAnnotation?: CheckAnnotation;
  guidance?: GuidanceInfo;
  credits?: CreditInfo;
  warnings: string[];
  /** the report's upload to GitHub code scanning (issue 14), when `codeScanning.upload` is on */
  codeScanning?: CodeScanningInfo;
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
  /** every distinct scope (preset, audit areas) the pull request's reports had, oldest first (issue 12) */
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
