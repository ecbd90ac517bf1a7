/**
 * diffward's one voice: the words every place it posts (check run title, summary and text, annotations,
 * review body, finding comments, command answers) uses for status names, severities, config keys,
 * counts and locations, so the same finding reads the same way everywhere.
 *
 * Status codes are the spec's (spec §Finding `triageStatus`, §Finding `resolutionStatus`);
 * config keys are the `.github/diffward.yml` field names exactly as the schema spells them
 * (src/config/repo-config.ts), never a snake_case variant.
 */
import type { Severity } from "../scanner/catalog.js";
import { SEVERITIES } from "../scanner/catalog.js";
import { parseLocation, formatLocation } from "../domain/location.js";
import type { Verdict } from "../domain/verdict.js";
import { inlineCode, neutralize } from "./escape.js";

/** The repository configuration file, as users see it named. */
export const CONFIG_FILE = ".github/diffward.yml";

/** Words for every triage and resolution status of the spec (one table: some codes are in both). */
export const STATUS_NAMES: Readonly<Record<string, string>> = {
  PENDING: "Pending",
  NEW: "New",
  DUPLICATE: "Duplicate",
  RECURRING: "Recurring",
  CONFIRMED: "Confirmed",
  FALSE_POSITIVE: "False positive",
  INCONCLUSIVE: "Inconclusive",
  NOT_STARTED: "Not started",
  IN_PROGRESS: "In progress",
  RESOLVED: "Resolved",
  MITIGATED: "Mitigated",
  WONT_FIX: "Won't fix",
};

/**
 * A triage or resolution status in words (`FALSE_POSITIVE` → `False positive`, `WONT_FIX` →
 * `Won't fix`), as plain text. A code the spec does not list yet is humanized (`SOME_STATE` →
 * `Some state`). Use {@link statusMarkdown} in Markdown.
 */
export function statusName(code: string): string {
  const known = STATUS_NAMES[code];
  if (known) return known;
  const words = String(code).toLowerCase().replace(/_/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** {@link statusName} made safe for Markdown (an unknown code comes from the service). */
export function statusMarkdown(code: string): string {
  return STATUS_NAMES[code] ?? neutralize(statusName(code));
}

export const SEVERITY_NAMES: Readonly<Record<Severity, string>> = {
  CRITICAL: "Critical",
  HIGH: "High",
  MEDIUM: "Medium",
  LOW: "Low",
  INFO: "Info",
};

const BADGES: Readonly<Record<Severity, string>> = {
  CRITICAL: "🔴",
  HIGH: "🟠",
  MEDIUM: "🟡",
  LOW: "🔵",
  INFO: "⚪",
};

/** `Critical`, `High`, `Medium`, `Low`, `Info`. */
export function severityName(severity: Severity): string {
  return SEVERITY_NAMES[severity] ?? statusName(String(severity));
}

/** Emoji and word: 🔴 Critical, 🟠 High, 🟡 Medium, 🔵 Low, ⚪ Info (❔ for an unknown level). */
export function severityBadgeText(severity: Severity): string {
  return `${BADGES[severity] ?? "❔"} ${severityName(severity)}`;
}

/** The `.github/diffward.yml` keys diffward names in what it posts. */
export type ConfigKey =
  | "failOn"
  | "policies"
  | "mode"
  | "suppressions"
  | "disclosure"
  | "preset"
  | "creditBudget"
  | "comments.maxInline"
  | "comments.minSeverity"
  | "commands.minPermission"
  | "guidance.onChange"
  | "forks"
  | "creditCap.monthly"
  | "lowBalanceThreshold"
  | "scanTimeoutMinutes";

/** A config key in code: `` `failOn` ``. */
export function configKey(key: ConfigKey): string {
  return inlineCode(key);
}

/** A config setting in code: `` `failOn: high` ``. */
export function configSetting(key: ConfigKey, value: string | number): string {
  return inlineCode(`${key}: ${value}`);
}

/** `1 finding` / `2 findings`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The one tally of a scan's findings, the same in the check run and the review body:
 * `9 findings: 6 open (2 blocking), 3 ruled out` (parts at zero kept, so the numbers add up); under
 * `mode: evaluate`, `(2 would block)`.
 */
export function findingTally(
  verdict: Pick<Verdict, "total" | "open" | "blocking" | "ruledOut"> & Partial<Pick<Verdict, "evaluate">>,
): string {
  // with `mode: evaluate` nothing blocks: the findings that would are said so
  const blocking = verdict.evaluate ? "would block" : "blocking";
  return `${plural(verdict.total, "finding")}: ${verdict.open} open (${verdict.blocking} ${blocking}), ${verdict.ruledOut} ruled out`;
}

/** What "ruled out" covers, said once where ruled out findings are listed. */
export const RULED_OUT_MEANING =
  "ruled out by the scanning service (false positive, duplicate) or decided by the team (resolved, mitigated, won't fix, false positive, duplicate)";

/**
 * A finding location as diffward shows it everywhere: `path:line` or `path:start-end` (or `path`) in
 * code when it parses (src/domain/location.ts: `path#L22-L27` shows as `path:22-27`), otherwise the
 * service's raw text in code marked `(unparsed location)`. Markdown.
 */
export function locationMarkdown(location: string): string {
  const loc = parseLocation(location);
  if (loc) return inlineCode(formatLocation(loc));
  return location.trim() === "" ? "_(no location)_" : `${inlineCode(location)} _(unparsed location)_`;
}

/** {@link locationMarkdown} as plain text (annotations): `path:22-27` or `module Foo (unparsed location)`. */
export function locationText(location: string): string {
  const loc = parseLocation(location);
  if (loc) return formatLocation(loc);
  return location.trim() === "" ? "(no location)" : `${location.trim()} (unparsed location)`;
}

/** The severity levels in order, for callers that list them. */
export const SEVERITY_ORDER: readonly Severity[] = SEVERITIES;

/** A finished report's check conclusion in words: `success` → `passing`, `failure` → `failing`. */
export function conclusionName(conclusion: string): string {
  if (conclusion === "success") return "passing";
  if (conclusion === "failure") return "failing";
  return statusName(conclusion).toLowerCase();
}

/**
 * The check's state after a change, as command answers say it:
 * `The diffward check is now **failing**: 9 findings: 6 open (2 blocking), 3 ruled out.`
 */
export function checkStateLine(
  verdict: Pick<Verdict, "conclusion" | "total" | "open" | "blocking" | "ruledOut">,
): string {
  return `The \`diffward\` check is now **${conclusionName(verdict.conclusion)}**: ${findingTally(verdict)}.`;
}
