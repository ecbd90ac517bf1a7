/**
 * Blocking rules and the check run conclusion.
 *
 * A finding blocks a pull request when it is still open and at or above the repository's `fail_on`
 * threshold. "Open" follows the spec's two statuses (spec §Finding `triageStatus`, §Finding
 * `resolutionStatus`): the service has not ruled it out (`FALSE_POSITIVE`, `DUPLICATE`) and the team
 * has not decided it (`NOT_STARTED`, `IN_PROGRESS` are the undecided states).
 */
import { SEVERITIES } from "../scanner/catalog.js";
import type { Severity } from "../scanner/catalog.js";
import { DomainInputError } from "./types.js";
import type { FailOn, ReportFinding } from "./types.js";

export type { FailOn } from "./types.js";

/** `failOn` values, most severe first; `none` never blocks. */
export const FAIL_ON_VALUES: readonly FailOn[] = ["critical", "high", "medium", "low", "info", "none"];

/** Resolution states that leave a finding undecided (spec §Finding `resolutionStatus`). */
export const OPEN_RESOLUTIONS: readonly string[] = ["NOT_STARTED", "IN_PROGRESS"];

/** Triage verdicts by which the service itself rules a finding out (spec §Finding `triageStatus`). */
export const RULED_OUT_TRIAGE: readonly string[] = ["FALSE_POSITIVE", "DUPLICATE"];

/**
 * Rank of a severity: `CRITICAL` 4, `HIGH` 3, `MEDIUM` 2, `LOW` 1, `INFO` 0 (higher is more severe;
 * spec §Finding (list item): severity levels).
 *
 * @throws DomainInputError for a value that is not one of the five levels.
 */
export function severityRank(severity: Severity): number {
  const index = (SEVERITIES as readonly string[]).indexOf(severity);
  if (index < 0) throw new DomainInputError(`unknown severity ${JSON.stringify(severity)}`);
  return SEVERITIES.length - 1 - index;
}

/**
 * True when `severity` is at or above the `threshold` (`fail_on`); always false for `none`.
 *
 * @throws DomainInputError for an unknown severity or threshold.
 */
export function atLeast(severity: Severity, threshold: FailOn): boolean {
  if (threshold === "none") return false;
  if (!FAIL_ON_VALUES.includes(threshold)) {
    throw new DomainInputError(`unknown failOn ${JSON.stringify(threshold)}`, [
      `expected one of ${FAIL_ON_VALUES.join(", ")}`,
    ]);
  }
  return severityRank(severity) >= severityRank(threshold.toUpperCase() as Severity);
}

/**
 * True when a finding no longer counts: the service triaged it `FALSE_POSITIVE` or `DUPLICATE`, or
 * the team set a resolution other than `NOT_STARTED`/`IN_PROGRESS` (`RESOLVED`, `MITIGATED`,
 * `WONT_FIX`, `FALSE_POSITIVE`, `DUPLICATE`, or any state the spec adds later).
 */
export function isRuledOut(f: Pick<ReportFinding, "triageStatus" | "resolutionStatus">): boolean {
  return RULED_OUT_TRIAGE.includes(f.triageStatus) || !OPEN_RESOLUTIONS.includes(f.resolutionStatus);
}

/**
 * True when a finding blocks the pull request: its effective severity is at or above `failOn`, its
 * resolution is `NOT_STARTED` or `IN_PROGRESS`, and its triage status is not `FALSE_POSITIVE` or
 * `DUPLICATE`. `failOn: "none"` never blocks.
 *
 * @throws DomainInputError for an unknown severity or threshold.
 */
export function isBlocking(
  f: Pick<ReportFinding, "severity" | "triageStatus" | "resolutionStatus">,
  failOn: FailOn,
): boolean {
  return atLeast(f.severity, failOn) && !isRuledOut(f);
}

/** Counts per severity, every level present (zero when none). */
export type SeverityCounts = Record<Severity, number>;

/** The result of {@link decideConclusion}. */
export interface Verdict {
  /** `failure` when at least one finding blocks, else `success` */
  conclusion: "success" | "failure";
  /** all findings given */
  total: number;
  /** findings that still count (not ruled out) */
  open: number;
  /** open findings at or above `failOn` */
  blocking: number;
  /** findings ruled out by triage or resolution */
  ruledOut: number;
  /** open findings per severity */
  openBySeverity: SeverityCounts;
  /** blocking findings per severity */
  blockingBySeverity: SeverityCounts;
}

/** A zeroed {@link SeverityCounts}. */
export function emptySeverityCounts(): SeverityCounts {
  return { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 0, INFO: 0 };
}

/**
 * The check run conclusion for a finished scan: `failure` when any finding {@link isBlocking},
 * otherwise `success`, with the counts the summary prints.
 *
 * GitHub doc: check run `conclusion` (https://docs.github.com/en/rest/checks/runs#update-a-check-run).
 *
 * @throws DomainInputError for an unknown severity or threshold.
 */
export function decideConclusion(
  findings: readonly Pick<ReportFinding, "severity" | "triageStatus" | "resolutionStatus">[],
  failOn: FailOn,
): Verdict {
  const openBySeverity = emptySeverityCounts();
  const blockingBySeverity = emptySeverityCounts();
  let open = 0;
  let blocking = 0;
  for (const f of findings) {
    severityRank(f.severity); // validates
    if (isRuledOut(f)) continue;
    open += 1;
    openBySeverity[f.severity] += 1;
    if (atLeast(f.severity, failOn)) {
      blocking += 1;
      blockingBySeverity[f.severity] += 1;
    }
  }
  return {
    conclusion: blocking > 0 ? "failure" : "success",
    total: findings.length,
    open,
    blocking,
    ruledOut: findings.length - open,
    openBySeverity,
    blockingBySeverity,
  };
}

/**
 * Orders findings most severe first, then by `displayId` ascending (findings without one last),
 * then by `id`. Returns a new array; the input is not changed.
 *
 * @throws DomainInputError for an unknown severity.
 */
export function sortFindings<F extends Pick<ReportFinding, "id" | "severity" | "displayId">>(
  findings: readonly F[],
): F[] {
  return [...findings].sort(compareFindings);
}

/** Comparator behind {@link sortFindings}. */
export function compareFindings(
  a: Pick<ReportFinding, "id" | "severity" | "displayId">,
  b: Pick<ReportFinding, "id" | "severity" | "displayId">,
): number {
  const bySeverity = severityRank(b.severity) - severityRank(a.severity);
  if (bySeverity !== 0) return bySeverity;
  const da = a.displayId ?? Number.POSITIVE_INFINITY;
  const db = b.displayId ?? Number.POSITIVE_INFINITY;
  if (da !== db) return da < db ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
