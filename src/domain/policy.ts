/**
 * The policy of `.github/diffward.yml` applied to one finding (pure): which rule applies (the first entry of
 * `policies` whose `paths` match the finding's file, else the top-level `failOn`) and what the finding counts
 * as under it. The one rule behind the report's conclusion, its findings table, its annotations and inline
 * comments, and every recompute after a triage decision (src/domain/verdict.ts reads it), so they never
 * disagree.
 *
 * Modes (README "Configuration", `policies[].mode`): `block` counts toward the rule's `failOn`; `comment`
 * shows inline but never fails; `monitor` shows in the check run only and never fails; `off` is neither
 * shown nor counted. `only: new` leaves out findings already open on the base branch's last completed
 * baseline (src/domain/baseline.ts), for the top-level `failOn` and a path rule's own alike.
 */
import picomatch from "picomatch";
import type {
  ConfigSource,
  FailOnSetting,
  PathPolicy,
  PolicyMode,
  PolicySources,
  RaisedValue,
} from "../config/repo-config.js";
import { parseLocation } from "./location.js";
import { atLeast, isRuledOut } from "./severity-threshold.js";
import type { FailOn, ReportFinding } from "./finding-types.js";

/** A `failOn` in full: the threshold and which findings it applies to. */
export interface Threshold {
  /** open findings at or above it count; `none` never */
  severity: FailOn;
  /** `new`: findings already open on the base branch's baseline do not count */
  only: "all" | "new";
}

/** One entry of `policies`, ready to match: its place in the list, its globs, its mode and its own `failOn`. */
export interface PathRule {
  /** 0-based place in `policies`: the first matching entry wins */
  index: number;
  paths: readonly string[];
  mode: PolicyMode;
  /** the rule's own threshold; absent: the top-level `failOn` */
  failOn?: Threshold;
  /** true when the finding's repository-relative path matches one of `paths` (picomatch, dotfiles included) */
  matches: (path: string) => boolean;
}

/**
 * What decides how findings count: `failOn`'s threshold, which findings it applies to, the findings already
 * open on the base branch's last completed baseline, the path rules and the evaluation mode.
 */
export interface BlockingRule extends Threshold {
  /**
   * ids of the findings already open on the base branch's last completed baseline (the same fingerprint);
   * absent when the base branch has no completed baseline, so that every finding counts
   */
  preexisting?: ReadonlySet<string>;
  /** `policies`, in order; absent or empty: every finding follows the top-level `failOn` in mode `block` */
  rules?: readonly PathRule[];
  /** `mode: evaluate`: the check never fails; where it would, it concludes `neutral` */
  evaluate?: boolean;
}

/** What {@link blockingRule} and the rest read: a `failOn` setting, or a built rule. */
export type BlockingInput = FailOnSetting | BlockingRule;

/** What {@link blockingRule} reads of the comparison with the baseline: the pre-existing findings' ids. */
export interface BaselineMatch {
  preexistingIds?: readonly string[];
}

/** What the policy reads of a finding; without an `id` it is never pre-existing, without a `location` no path rule matches. */
export type Judged = Pick<ReportFinding, "severity" | "triageStatus" | "resolutionStatus"> &
  Partial<Pick<ReportFinding, "id" | "location" | "suppression">>;

/** The policy settings of `.github/diffward.yml` a rule is built from. */
export interface PolicySettings {
  failOn: FailOnSetting;
  policies?: readonly PathPolicy[];
  mode?: "enforce" | "evaluate";
}

/** `high` or `{severity: high, only: new}` in full. */
export function thresholdOf(failOn: FailOnSetting): Threshold {
  return typeof failOn === "string" ? { severity: failOn, only: "all" } : failOn;
}

/**
 * The {@link BlockingRule} of a `failOn` setting (`high`, or `{severity: high, only: new}`) and the pull
 * request's comparison with its base branch's baseline (absent, or without ids: no completed baseline).
 * A built rule is returned as it is.
 */
export function blockingRule(failOn: BlockingInput, baseline?: BaselineMatch): BlockingRule {
  if (typeof failOn === "object" && "preexisting" in failOn) return failOn;
  if (typeof failOn === "object" && ("rules" in failOn || "evaluate" in failOn)) return failOn;
  const { severity, only } = thresholdOf(failOn);
  const ids = baseline?.preexistingIds;
  return { severity, only, ...(ids ? { preexisting: new Set(ids) } : {}) };
}

/**
 * The {@link BlockingRule} of the whole policy: `failOn`, `policies` (each glob compiled with picomatch,
 * `dot: true`) and `mode`, with the pull request's comparison with its base branch's baseline.
 */
export function policyRule(settings: PolicySettings, baseline?: BaselineMatch): BlockingRule {
  const base = blockingRule(settings.failOn, baseline);
  const rules = (settings.policies ?? []).map((p, index): PathRule => ({
    index,
    paths: p.paths,
    mode: p.mode,
    ...(p.failOn !== undefined ? { failOn: thresholdOf(p.failOn) } : {}),
    matches: picomatch([...p.paths], { dot: true }),
  }));
  return { ...base, rules, evaluate: settings.mode === "evaluate" };
}

/**
 * What a finding counts as: `off` (its rule hides it), `ruled-out` (triaged or decided), `monitored` (open,
 * under a `monitor` rule), `below` (under its rule's threshold), `preexisting` (at or above it, already open
 * on the base branch, `only: new`), `commented` (at or above it under a `comment` rule), `blocking`.
 */
export type Outcome = "off" | "ruled-out" | "monitored" | "below" | "preexisting" | "commented" | "blocking";

/** Where a finding stands: the rule that applied, its mode and threshold, and what the finding counts as. */
export interface Standing {
  /** `failOn`, or the path rule, e.g. `policies[1] src/payments/**` */
  rule: string;
  /** the matching path rule's place in `policies`; absent: the top-level `failOn` */
  ruleIndex?: number;
  mode: PolicyMode;
  threshold: Threshold;
  outcome: Outcome;
  /** the rule knows the finding was already open on the base branch's baseline (whatever `only` says) */
  preexisting: boolean;
}

/** The name of a path rule as the check run prints it: `policies[1] src/payments/**`. */
export function ruleName(rule: Pick<PathRule, "index" | "paths">): string {
  return `policies[${rule.index}] ${rule.paths.join(", ")}`;
}

/** True when the rule knows `f` was already open on the base branch's baseline. */
export function isPreexisting(f: Partial<Pick<ReportFinding, "id">>, rule: BlockingRule): boolean {
  return f.id !== undefined && (rule.preexisting?.has(f.id) ?? false);
}

/**
 * Applies the policy to one finding: the first path rule whose `paths` match the finding's file (its
 * location's path, src/domain/location.ts) decides its mode and threshold (a rule without `failOn` takes the
 * top-level one); a finding no rule matches, or without a file, follows the top-level `failOn` in mode
 * `block`. Then, in order: `off` hides it; a ruled-out finding (src/domain/severity-threshold.ts `isRuledOut`) never
 * counts; `monitor` makes it `monitored`; below the threshold it is `below`; with `only: new` and a
 * completed baseline a pre-existing one is `preexisting`; `comment` makes it `commented`; else `blocking`.
 *
 * @throws DomainInputError for an unknown severity or threshold.
 */
export function applyPolicy(f: Judged, input: BlockingInput): Standing {
  const policy = blockingRule(input);
  const path = f.location === undefined ? undefined : parseLocation(f.location)?.path;
  const match = path === undefined ? undefined : policy.rules?.find((r) => r.matches(path));
  const threshold = match?.failOn ?? { severity: policy.severity, only: policy.only };
  const mode = match?.mode ?? "block";
  const preexisting = isPreexisting(f, policy);
  const at = { rule: match ? ruleName(match) : "failOn", mode, threshold, preexisting };
  const withOutcome = (outcome: Outcome): Standing =>
    match ? { ...at, ruleIndex: match.index, outcome } : { ...at, outcome };
  if (mode === "off") return withOutcome("off");
  if (isRuledOut(f)) return withOutcome("ruled-out");
  if (mode === "monitor") return withOutcome("monitored");
  if (!atLeast(f.severity, threshold.severity)) return withOutcome("below");
  if (threshold.only === "new" && preexisting) return withOutcome("preexisting");
  return withOutcome(mode === "comment" ? "commented" : "blocking");
}

/**
 * True when some part of the policy says `only: new` (the top-level `failOn` or a path rule's own), so the
 * report compares the findings with the base branch's baseline even when the base branch has none yet.
 */
export function readsBaseline(settings: PolicySettings): boolean {
  const failOns = [settings.failOn, ...(settings.policies ?? []).map((p) => p.failOn)];
  return failOns.some((f) => f !== undefined && thresholdOf(f).only === "new");
}

/** One part of the effective policy as the check run's summary lists it. */
export interface PolicyPart {
  /** the setting, e.g. `failOn`, `policies[1]`, `mode` */
  part: string;
  /** its value as a user writes it, e.g. `{severity: high, only: new}`, `src/payments/** → block, failOn medium` */
  value: string;
  /** where it came from, e.g. `repository file` */
  source: string;
}

/** Where a repository's own `.github/diffward.yml` parts come from, as the summary names it. */
export const REPOSITORY_FILE = "repository file (.github/diffward.yml)";

/** Where the policy's parts came from: the file of each key and the values the organization floor raised. */
export interface PolicyOrigin {
  /** the file each policy key came from; a key absent here has its default */
  sources: PolicySources;
  /** the values the organization floor raised (src/config/repo-config/floor.ts), each with the floor's file */
  raised?: readonly RaisedValue[];
}

/** How the summary names a file a key came from. */
export function sourceLabel(source: ConfigSource | undefined): string {
  if (source === undefined) return "default";
  if (source.kind === "repository") return REPOSITORY_FILE;
  return `${source.kind === "organization" ? "organization" : "extended"} file (${source.file})`;
}

/**
 * The source of a part the floor raised values of (`failOn`, `policies[1].failOn`): the floor's file and,
 * per value, what it was raised from and the file that said so, e.g.
 * `organization floor (acme/.github:.github/diffward.yml): severity raised from critical (repository file (.github/diffward.yml))`.
 */
function raisedLabel(raised: readonly RaisedValue[], prefix: string, own: string): string {
  const what = raised.map((r) => `${r.key.slice(prefix.length + 1)} raised from ${r.from}`).join(", ");
  return `organization floor (${raised[0]!.source}): ${what} (${own})`;
}

/**
 * The effective policy as a list of parts, each with where it came from: `failOn`, each entry of
 * `policies`, `mode`, then each other value the organization floor raised (`forks`, `triage.approval`, ...).
 * Without `origin` (a report queued before the sources were carried) every part names the repository's own
 * file; with it, each part names its file ({@link sourceLabel}; `default` when no file sets it), and a part
 * the floor raised names the floor's file and what it was raised from.
 */
export function policyParts(settings: PolicySettings, origin?: PolicyOrigin): PolicyPart[] {
  const raised = origin?.raised ?? [];
  const from = (key: "failOn" | "policies" | "mode") =>
    origin ? sourceLabel(origin.sources[key]) : REPOSITORY_FILE;
  const source = (part: string, own: string) => {
    const under = raised.filter((r) => r.key.startsWith(`${part}.`));
    return under.length > 0 ? raisedLabel(under, part, own) : own;
  };
  const parts: PolicyPart[] = [
    {
      part: "failOn",
      value: thresholdText(thresholdOf(settings.failOn)),
      source: source("failOn", from("failOn")),
    },
  ];
  (settings.policies ?? []).forEach((p, index) => {
    const own = p.failOn !== undefined ? `, failOn ${thresholdText(thresholdOf(p.failOn))}` : "";
    const part = `policies[${index}]`;
    parts.push({
      part,
      value: `${p.paths.join(", ")} → ${p.mode}${own}`,
      source: source(`${part}.failOn`, from("policies")),
    });
  });
  parts.push({ part: "mode", value: settings.mode ?? "enforce", source: from("mode") });
  for (const r of raised.filter((v) => !/^(failOn|policies\[\d+\])\./.test(v.key)))
    parts.push({
      part: r.key,
      value: r.to,
      source: `organization floor (${r.source}): raised from ${r.from}`,
    });
  return parts;
}

/** `high`, or `{severity: high, only: new}`: a threshold as a user writes it. */
export function thresholdText(t: Threshold): string {
  return t.only === "new" ? `{severity: ${t.severity}, only: new}` : t.severity;
}
