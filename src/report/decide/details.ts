/**
 * The description and recommended fix a report keeps of each finding whose detail it fetched (the ones
 * shown inline: only those cost a `GET …/findings/{findingId}`, spec "Findings"), bounded, so the check
 * run's details (`output.text`) show the same text on the first report and on every recompute (triage,
 * severity override, settlement), which rebuild the output from the stored report
 * (`src/stores/stored-report.ts`, whose `KeptDetail` is the shape kept).
 *
 * Pure: the report job calls {@link keepDetails} once and renders from its result, and stores it.
 */
import type { ReportFinding } from "../../domain/finding-types.js";
import { sortFindings } from "../../domain/verdict.js";
import { truncateChars } from "../../render/limits.js";
import type { KeptDetail } from "../../stores/stored-report.js";

/**
 * Longest description kept, in characters (UTF-16 code units). The check run's text holds at most
 * 65,535 bytes for every open finding together (GitHub "Update a check run"), so one description may
 * not crowd out the others; the review comment and the service keep the whole text.
 */
export const KEPT_DESCRIPTION_MAX_CHARS = 4_000;
/** Longest recommended fix kept, in characters. */
export const KEPT_FIX_MAX_CHARS = 2_000;
/**
 * Most characters kept over all findings of one report (descriptions and fixes together, notes
 * included), about what the check run's 65,535-byte text can show; it bounds the report's Redis
 * document too (`comments.maxInline` allows 100 inline findings). Findings are kept most severe first
 * (the check run's order); once the total is reached, the rest keep nothing and their details entry
 * points to the review comment instead.
 */
export const KEPT_TOTAL_MAX_CHARS = 48_000;

/** Appended where a kept text was cut (trusted; it goes through `safeMarkdown` with the text). */
export function cutNote(what: "description" | "recommended fix", max: number): string {
  return `_… ${what} cut to ${max.toLocaleString("en-US")} characters here: the review comment and the scanning service have it in full._`;
}

function keep(text: string, what: "description" | "recommended fix", max: number): string {
  return truncateChars(text, max, cutNote(what, max));
}

/**
 * What a report keeps of its fetched details: for each finding of `fetched` (id → the finding with its
 * detail merged, as the report job builds it), the description cut to {@link KEPT_DESCRIPTION_MAX_CHARS}
 * and the fix to {@link KEPT_FIX_MAX_CHARS} (cut at a line, open code fences closed, a note saying so),
 * most severe first until {@link KEPT_TOTAL_MAX_CHARS}. A finding whose detail has neither a description
 * nor a fix keeps nothing.
 *
 * @returns finding id → kept detail (a plain object: it is stored as JSON).
 */
export function keepDetails(fetched: ReadonlyMap<string, ReportFinding>): Record<string, KeptDetail> {
  const kept: Record<string, KeptDetail> = {};
  let total = 0;
  for (const f of sortFindings([...fetched.values()])) {
    const description = f.description?.trim()
      ? keep(f.description, "description", KEPT_DESCRIPTION_MAX_CHARS)
      : "";
    const fix = f.recommendedFix?.trim() ? keep(f.recommendedFix, "recommended fix", KEPT_FIX_MAX_CHARS) : "";
    if (!description && !fix) continue;
    const size = description.length + fix.length;
    if (total + size > KEPT_TOTAL_MAX_CHARS) break;
    total += size;
    kept[f.id] = { description, ...(fix ? { recommendedFix: fix } : {}) };
  }
  return kept;
}

/**
 * `findings` with the kept description and fix of each finding that has one (`kept` from
 * {@link keepDetails}, or a stored report's `details`); the others unchanged. Pure.
 */
export function withKeptDetails(
  findings: readonly ReportFinding[],
  kept: Readonly<Record<string, KeptDetail>> | undefined,
): ReportFinding[] {
  if (!kept) return [...findings];
  return findings.map((f) => {
    const d = Object.hasOwn(kept, f.id) ? kept[f.id] : undefined;
    return d ? { ...f, description: d.description, recommendedFix: d.recommendedFix ?? null } : f;
  });
}
