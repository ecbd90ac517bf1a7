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
import type { FailOnSetting } from "../config/repo-config.js";

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
 * What decides which findings block: `failOn`'s threshold, which findings it applies to, and the findings
 * already open on the base branch's last completed baseline (src/domain/baseline.ts).
 */
export interface BlockingRule {
  /** the threshold: open findings at or above it block; `none` never blocks */
  severity: FailOn;
  /** `new`: findings in {@link BlockingRule.preexisting} do not block */
  only: "all" | "new";
  /**
   * ids of the findings already open on the base branch's last completed baseline (the same fingerprint);
   * absent when the base branch has no completed baseline, so that every finding counts
   */
  preexisting?: ReadonlySet<string>;
}

/** What the blocking rule reads of a finding; without an `id` it is never pre-existing. */
export type Judged = Pick<ReportFinding, "severity" | "triageStatus" | "resolutionStatus"> &
  Partial<Pick<ReportFinding, "id">>;

/** What {@link blockingRule} reads of the comparison with the baseline: the pre-existing findings' ids. */
export interface BaselineMatch {
  preexistingIds?: readonly string[];
}

/**
 * The {@link BlockingRule} of a `failOn` setting (`high`, or `{severity: high, only: new}`) and the pull
 * request's comparison with its base branch's baseline (absent, or without ids: no completed baseline).
 */
export function blockingRule(failOn: BlockingInput, baseline?: BaselineMatch): BlockingRule {
  if (typeof failOn === "object" && "preexisting" in failOn) return failOn;
  const { severity, only } = typeof failOn === "string" ? { severity: failOn, only: "all" as const } : failOn;
  const ids = baseline?.preexistingIds;
  return { severity, only, ...(ids ? { preexisting: new Set(ids) } : {}) };
}

/** What {@link isBlocking} and the marks beside a finding read: a `failOn` setting, or a built rule. */
export type BlockingInput = FailOnSetting | BlockingRule;

/**
 * Where a finding stands under the rule: whether it blocks ({@link isBlocking}) and whether it was already
 * open on the base branch's baseline ({@link isPreexisting}); what the findings table and the annotations
 * mark.
 */
export function standing(f: Judged, rule: BlockingInput): { blocking: boolean; preexisting: boolean } {
  const r = blockingRule(rule);
  return { blocking: isBlocking(f, r), preexisting: isPreexisting(f, r) };
}

/** True when the rule knows `f` was already open on the base branch's baseline. */
export function isPreexisting(f: Partial<Pick<ReportFinding, "id">>, rule: BlockingRule): boolean {
  return f.id !== undefined && (rule.preexisting?.has(f.id) ?? false);
}

/**
 * True when a finding blocks: its effective severity is at or above the threshold, its resolution is
 * `NOT_STARTED` or `IN_PROGRESS`, its triage status is not `FALSE_POSITIVE` or `DUPLICATE`, and, with
 * `only: new` and a completed baseline, it was not already open on the base branch. `none` never blocks.
 * The one rule behind the conclusion, the findings table's mark and the annotations' level.
 *
 * @throws DomainInputError for an unknown severity or threshold.
 */
export function isBlocking(f: Judged, failOn: FailOnSetting | BlockingRule): boolean {
  const rule = blockingRule(failOn);
  if (!atLeast(f.severity, rule.severity) || isRuledOut(f)) return false;
  return !(rule.only === "new" && isPreexisting(f, rule));
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
  /** open findings that block ({@link isBlocking}) */
  blocking: number;
  /**
   * open findings at or above the threshold that do not block because they were already open on the base
   * branch's baseline (`only: new`); 0 otherwise
   */
  preexistingAtThreshold: number;
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
 * The check run conclusion for a finished scan: `failure` when any finding {@link isBlocking} under the
 * rule (a `failOn` setting, or a {@link BlockingRule} with the baseline's pre-existing findings),
 * otherwise `success`, with the counts the summary prints.
 *
 * GitHub doc: check run `conclusion` (https://docs.github.com/en/rest/checks/runs#update-a-check-run).
 *
 * @throws DomainInputError for an unknown severity or threshold.
 */
export function decideConclusion(findings: readonly Judged[], failOn: FailOnSetting | BlockingRule): Verdict {
  const rule = blockingRule(failOn);
  const openBySeverity = emptySeverityCounts();
  const blockingBySeverity = emptySeverityCounts();
  let open = 0;
  let blocking = 0;
  let preexistingAtThreshold = 0;
  for (const f of findings) {
    severityRank(f.severity); // validates
    if (isRuledOut(f)) continue;
    open += 1;
    openBySeverity[f.severity] += 1;
    if (isBlocking(f, rule)) {
      blocking += 1;
      blockingBySeverity[f.severity] += 1;
    } else if (atLeast(f.severity, rule.severity)) preexistingAtThreshold += 1;
  }
  return {
    conclusion: blocking > 0 ? "failure" : "success",
    total: findings.length,
    open,
    blocking,
    preexistingAtThreshold,
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
