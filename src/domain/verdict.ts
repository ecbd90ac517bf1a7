/**
 * Blocking rules and the check run conclusion.
 *
 * A finding blocks a pull request when it is still open and at or above the repository's `fail_on`
 * threshold. "Open" follows the spec's two statuses (spec §Finding `triageStatus`, §Finding
 * `resolutionStatus`): the service has not ruled it out (`FALSE_POSITIVE`, `DUPLICATE`) and the team
 * has not decided it (`NOT_STARTED`, `IN_PROGRESS` are the undecided states).
 */
import type { ReportFinding } from "./finding-types.js";
import type { Severity } from "../scanner/catalog.js";
import { applyPolicy, blockingRule, type BlockingInput, type Judged, type Outcome } from "./policy.js";
import { severityRank } from "./severity-threshold.js";
export {
  applyPolicy,
  blockingRule,
  isPreexisting,
  policyRule,
  type BaselineMatch,
  type BlockingInput,
  type BlockingRule,
  type Judged,
  type Outcome,
  type Standing,
} from "./policy.js";

export type { FailOn } from "./finding-types.js";
export {
  FAIL_ON_VALUES,
  OPEN_RESOLUTIONS,
  RULED_OUT_TRIAGE,
  atLeast,
  isRuledOut,
  severityRank,
} from "./severity-threshold.js";

/**
 * Where a finding stands under the rule: whether it blocks ({@link isBlocking}) and whether it was already
 * open on the base branch's baseline ({@link isPreexisting}); what the findings table and the annotations
 * mark. The rule that applied and the whole outcome: {@link applyPolicy}.
 */
export function standing(f: Judged, rule: BlockingInput): { blocking: boolean; preexisting: boolean } {
  const s = applyPolicy(f, rule);
  return { blocking: s.outcome === "blocking", preexisting: s.preexisting };
}

/**
 * True when a finding blocks ({@link applyPolicy}'s outcome `blocking`): the rule that applies to its file
 * is in mode `block`, its effective severity is at or above that rule's threshold, its resolution is
 * `NOT_STARTED` or `IN_PROGRESS`, its triage status is not `FALSE_POSITIVE` or `DUPLICATE`, and, with
 * `only: new` and a completed baseline, it was not already open on the base branch. `none` never blocks.
 * The one rule behind the conclusion, the findings table's mark and the annotations' level.
 *
 * @throws DomainInputError for an unknown severity or threshold.
 */
export function isBlocking(f: Judged, failOn: BlockingInput): boolean {
  return applyPolicy(f, failOn).outcome === "blocking";
}

/** Counts per severity, every level present (zero when none). */
export type SeverityCounts = Record<Severity, number>;

/** The result of {@link decideConclusion}. */
export interface Verdict {
  /**
   * `failure` when at least one finding blocks, else `success`; with `mode: evaluate`, `neutral` where it
   * would be `failure`
   */
  conclusion: "success" | "failure" | "neutral";
  /** `mode: evaluate`: nothing blocks, `blocking` counts what would */
  evaluate: boolean;
  /** all findings given but those a rule in mode `off` hides */
  total: number;
  /** findings that still count (not ruled out, not hidden) */
  open: number;
  /** open findings that block (outcome `blocking`; with `mode: evaluate`, that would block) */
  blocking: number;
  /**
   * open findings at or above their rule's threshold that do not block because they were already open on
   * the base branch's baseline (`only: new`); 0 otherwise
   */
  preexistingAtThreshold: number;
  /** open findings under a path rule in mode `monitor` */
  monitored: number;
  /** open findings at or above the threshold under a path rule in mode `comment` */
  commented: number;
  /** findings a path rule in mode `off` hides: not shown, not counted anywhere else */
  hidden: number;
  /** findings ruled out by a `diffward-ignore` marker (applied, or held and then approved) */
  suppressed: number;
  /** open findings whose `diffward-ignore` marker waits for an approver (`suppressions: approval`) */
  held: number;
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
 * The check run conclusion for a finished scan: `failure` when any finding blocks under the policy
 * ({@link applyPolicy}: a `failOn` setting, or a {@link BlockingRule} with the baseline's pre-existing
 * findings and the path rules), `neutral` instead with `mode: evaluate`, otherwise `success`, with the
 * counts the summary prints per outcome.
 *
 * GitHub doc: check run `conclusion` (https://docs.github.com/en/rest/checks/runs#update-a-check-run).
 *
 * @throws DomainInputError for an unknown severity or threshold.
 */
export function decideConclusion(findings: readonly Judged[], failOn: BlockingInput): Verdict {
  const rule = blockingRule(failOn);
  const openBySeverity = emptySeverityCounts();
  const blockingBySeverity = emptySeverityCounts();
  const n: Record<Outcome, number> = {
    off: 0,
    "ruled-out": 0,
    monitored: 0,
    below: 0,
    preexisting: 0,
    commented: 0,
    blocking: 0,
  };
  let suppressed = 0;
  let held = 0;
  for (const f of findings) {
    severityRank(f.severity); // validates
    const { outcome } = applyPolicy(f, rule);
    n[outcome] += 1;
    const marker = f.suppression?.outcome;
    if (outcome === "ruled-out" && (marker === "applied" || marker === "held")) suppressed += 1;
    if (outcome !== "ruled-out" && outcome !== "off" && marker === "held") held += 1;
    if (outcome === "off" || outcome === "ruled-out") continue;
    openBySeverity[f.severity] += 1;
    if (outcome === "blocking") blockingBySeverity[f.severity] += 1;
  }
  const evaluate = rule.evaluate === true;
  const open = findings.length - n.off - n["ruled-out"];
  return {
    conclusion: n.blocking > 0 ? (evaluate ? "neutral" : "failure") : "success",
    evaluate,
    total: findings.length - n.off,
    open,
    blocking: n.blocking,
    preexistingAtThreshold: n.preexisting,
    monitored: n.monitored,
    commented: n.commented,
    hidden: n.off,
    suppressed,
    held,
    ruledOut: n["ruled-out"],
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
