/**
 * Severity thresholds and whether a finding is still open: the two facts every blocking rule reads
 * (src/domain/verdict.ts, src/domain/policy.ts).
 *
 * "Open" follows the spec's two statuses (spec §Finding `triageStatus`, §Finding `resolutionStatus`): the
 * service has not ruled it out (`FALSE_POSITIVE`, `DUPLICATE`) and the team has not decided it
 * (`NOT_STARTED`, `IN_PROGRESS` are the undecided states).
 */
import { SEVERITIES } from "../scanner/catalog.js";
import type { Severity } from "../scanner/catalog.js";
import { DomainInputError } from "./finding-types.js";
import type { FailOn, ReportFinding } from "./finding-types.js";

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
