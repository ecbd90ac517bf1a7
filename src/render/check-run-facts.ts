/**
 * The facts a finished scan's check run states besides its findings: the credits the scan reserved and
 * spent, and the guidance file it ran with. Their shapes are part of the report's model
 * (`CheckRunModel` in ./check-run.ts) and of the report state that keeps them between recomputes.
 */

import { z } from "zod";
import { inlineCode } from "./escape.js";
import { CONFIG_FILE, configKey } from "./glossary.js";
import { link } from "./markdown.js";

/** Guidance file facts for the summary (spec §Guidance: the committed file always applies). */
export const GuidanceInfo = z.object({
  /** repository path of the guidance file */
  path: z.string().min(1),
  /** whether the file exists at the scanned commit */
  present: z.boolean(),
  /** link to the file on GitHub */
  url: z.string().optional(),
  /** length in characters; the service takes at most 100,000 (spec §Limits) */
  sizeChars: z.number().int().nonnegative().optional(),
  /** lines added and deleted by this pull request, when it edits the file */
  changedInPr: z
    .object({ additions: z.number().int().nonnegative(), deletions: z.number().int().nonnegative() })
    .optional(),
});
export type GuidanceInfo = z.infer<typeof GuidanceInfo>;

/** Credits of the scan, in credits (spec §What the service does, §Scan (detail) adds). */
export const CreditInfo = z.object({
  /** budget reserved at launch */
  reserved: z.number().int().nonnegative().optional(),
  /** credits spent so far (net of refunds) */
  spent: z.number().int().nonnegative().optional(),
  /** false while in-flight jobs may still settle their spend */
  settled: z.boolean(),
  /** the scan ran short of its budget and stopped early: partial coverage */
  ranShort: z.boolean().optional(),
});
export type CreditInfo = z.infer<typeof CreditInfo>;

export function creditsSection(
  credits: CreditInfo | undefined,
  creditBudget: number | undefined,
): string | undefined {
  const reserved = credits?.reserved ?? creditBudget;
  if (credits === undefined && reserved === undefined) return undefined;
  const parts: string[] = [];
  if (reserved !== undefined) parts.push(`Budget: **${reserved}** credits reserved.`);
  if (credits?.spent !== undefined) {
    if (!credits.settled) {
      parts.push(
        `Spent so far: **${credits.spent}** credits; the final amount settles as the scan's jobs wind down.`,
      );
    } else if (credits.ranShort || (reserved !== undefined && credits.spent >= reserved)) {
      parts.push(`Spent: **${credits.spent}** credits, the whole budget.`);
    } else if (reserved !== undefined) {
      parts.push(
        `Spent: **${credits.spent}** credits; the unused ${reserved - credits.spent} went back to the balance.`,
      );
    } else {
      parts.push(`Spent: **${credits.spent}** credits.`);
    }
  } else if (credits && !credits.settled) {
    parts.push("Spend not settled yet.");
  }
  if (credits?.ranShort) {
    parts.push(
      "⚠️ The scan ran short of its budget and stopped early, so coverage is **partial**. " +
        `Raise ${configKey("creditBudget")} in \`${CONFIG_FILE}\`, or leave it unset so the service ` +
        "recommends one (half again the last budget after a short run).",
    );
  }
  return `### Credits\n\n${parts.join("\n\n")}`;
}

export function guidanceSection(g: GuidanceInfo): string {
  const name = g.url ? link(inlineCode(g.path), g.url) : inlineCode(g.path);
  const lines: string[] = [];
  if (g.present) {
    lines.push(
      `Guidance file ${name} applied${g.sizeChars !== undefined ? ` (${g.sizeChars} characters)` : ""}.`,
    );
    if (g.sizeChars !== undefined && g.sizeChars > 100_000) {
      lines.push("⚠️ It is longer than the service's 100,000-character guidance limit; shorten it.");
    }
  } else {
    lines.push(
      `No guidance file ${name}: the scan ran without repository guidance. Commit one to tell the ` +
        "service your scope, threat model and accepted risks.",
    );
  }
  if (g.changedInPr) {
    lines.push(
      `⚠️ This pull request edits ${inlineCode(g.path)} (+${g.changedInPr.additions} −${g.changedInPr.deletions} lines), ` +
        "and the scan used the edited file. Review that change: guidance can tell the scan what to ignore.",
    );
  }
  return `### Guidance\n\n${lines.join("\n\n")}`;
}
