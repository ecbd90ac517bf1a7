/**
 * Shared wording for findings: labels, statuses, evidence, counts. Pure helpers used by the check
 * run, annotations and inline comments so the three say the same thing.
 */
import type { Severity } from "../scanner/catalog.js";
import { SEVERITIES } from "../scanner/catalog.js";
import { findingLabel } from "../scanner/labels.js";
import type { SeverityCounts } from "../domain/verdict.js";
import { severityBadge } from "./markdown.js";
import { inlineCode } from "./escape.js";
import { statusMarkdown } from "./glossary.js";

/** `SC-1a2b3c4d` as inline code. */
export function labelCode(id: string, labelPrefix: string): string {
  return inlineCode(findingLabel(id, labelPrefix));
}

/**
 * How a carried decision found its finding (src/domain/identity.ts), as Markdown: "matched by fingerprint
 * to `SC-1a2b3c4d`", with what that means for a shape match (`recurring`). The label is a code span.
 */
export function matchedByText(
  m: { findingId: string; by: "fingerprint" | "recurring" },
  labelPrefix: string,
): string {
  const base = `matched by fingerprint to ${labelCode(m.findingId, labelPrefix)}`;
  return m.by === "fingerprint"
    ? base
    : `${base} (same file, category and title at another line; the service triaged this finding as seen before)`;
}

/** Triage status in words (`CONFIRMED` → `Confirmed`) from the glossary, safe Markdown. */
export function triageText(triageStatus: string): string {
  return statusMarkdown(triageStatus);
}

/** Resolution status in words (`NOT_STARTED` → `Not started`), safe Markdown. */
export function resolutionText(resolutionStatus: string): string {
  return statusMarkdown(resolutionStatus);
}

/**
 * Confirmation evidence in words (spec §Finding (list item): `POC` a proof of concept ran,
 * `ANALYSIS` code analysis alone); `—` when null or absent.
 */
export function evidenceText(evidence: string | null | undefined): string {
  if (!evidence) return "—";
  if (evidence === "POC") return "Proof of concept";
  if (evidence === "ANALYSIS") return "Code analysis";
  return statusMarkdown(evidence);
}

/** `1 critical, 2 high` from counts (zero levels left out), or "" when all are zero. */
export function countsInWords(counts: SeverityCounts): string {
  return SEVERITIES.filter((s) => counts[s] > 0)
    .map((s) => `${counts[s]} ${s.toLowerCase()}`)
    .join(", ");
}

/** `🔴 Critical 1 · 🟠 High 2 · …` with every level, zero included. */
export function countsLine(counts: SeverityCounts): string {
  return SEVERITIES.map((s: Severity) => `${severityBadge(s)} **${counts[s]}**`).join(" · ");
}

/** `1 finding` / `2 findings` (the glossary's). */
export { plural } from "./glossary.js";

/** A commit id shortened to 7 characters in inline code. */
export function shortSha(sha: string): string {
  return inlineCode(/^[0-9a-f]{8,}$/i.test(sha) ? sha.slice(0, 7) : sha);
}

/**
 * The credit figures a refused budget came with (spec §Errors, `insufficient_credits`: `requiredCredits`,
 * `availableCredits`, `balanceCredits`), each given one as `<label>: **<n>** credits`, the budget named
 * `budgetLabel`.
 */
export function creditFigures(
  x: { requiredCredits?: number; availableCredits?: number; balanceCredits?: number },
  budgetLabel: string,
): string[] {
  return [
    x.requiredCredits !== undefined && `${budgetLabel}: **${x.requiredCredits}** credits`,
    x.availableCredits !== undefined && `available: **${x.availableCredits}** credits`,
    x.balanceCredits !== undefined && `balance: **${x.balanceCredits}** credits`,
  ].filter((f): f is string => typeof f === "string");
}
