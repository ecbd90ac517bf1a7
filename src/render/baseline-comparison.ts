/**
 * A pull request's findings against its base branch's baseline (the comparison is `src/domain/baseline.ts`):
 * what its report keeps of the baseline (`BaselineInfo`, stored with the report) and the check run's
 * `### Against the baseline of <branch>` section.
 */
import { z } from "zod";
import { inlineCode } from "./escape.js";
import { plural, shortSha } from "./format.js";

/** A pull request's open findings against its base branch's baseline (src/domain/baseline.ts), as kept and shown. */
export const BaselineComparisonInfo = z.object({
  branch: z.string(),
  headSha: z.string(),
  preexisting: z.number().int().nonnegative(),
  fresh: z.number().int().nonnegative(),
  /** the pull request's findings already open on the baseline; absent in reports stored before they were kept */
  preexistingIds: z.array(z.string()).optional(),
});
export type BaselineComparisonInfo = z.infer<typeof BaselineComparisonInfo>;

/** `failOn: {only: new}` on a pull request whose base branch has no completed baseline: every finding counts. */
export const MissingBaselineInfo = z.object({ branch: z.string(), missing: z.literal(true) });
export type MissingBaselineInfo = z.infer<typeof MissingBaselineInfo>;

/** What a pull request's report knows of its base branch's baseline. */
export const BaselineInfo = z.union([BaselineComparisonInfo, MissingBaselineInfo]);
export type BaselineInfo = z.infer<typeof BaselineInfo>;

/** The comparison of a {@link BaselineInfo}, or `undefined` when the base branch has no completed baseline. */
export function comparisonOf(x: BaselineInfo | undefined): BaselineComparisonInfo | undefined {
  return x && !("missing" in x) ? x : undefined;
}

/**
 * `### Against the baseline of <branch>`: how many of the pull request's open findings were already open on
 * the base branch at its last completed baseline (the same fingerprint) and how many are new; with
 * `onlyNew` (`failOn: {only: new}`), that only the new ones can block. With no completed baseline (only
 * kept for `only: new`), that every finding counts.
 */
export function baselineComparisonSection(x: BaselineInfo, onlyNew = false): string {
  const heading = `### Against the baseline of ${inlineCode(x.branch)}`;
  if ("missing" in x)
    return `${heading}\n\nNo baseline of ${inlineCode(x.branch)} yet: every finding counts. \`failOn: {only: new}\` leaves out findings already open on ${inlineCode(x.branch)} once it has a completed baseline scan (\`baseline:\` in \`.github/diffward.yml\`).`;
  const open = x.preexisting + x.fresh;
  const already =
    x.preexisting === 0
      ? "none was already open"
      : `${x.preexisting === open && open > 1 ? "all " : ""}${x.preexisting} ${x.preexisting === 1 ? "was" : "were"} already open`;
  return [
    heading,
    `Of ${plural(open, "open finding")}, ${already} on ${inlineCode(x.branch)} at ${shortSha(x.headSha)} (the same fingerprint), and **${x.fresh}** ${x.fresh === 1 ? "is" : "are"} new in this pull request.` +
      (onlyNew
        ? " Only the new ones can block (`failOn: {only: new}`); the pre-existing ones are marked _pre-existing_ and do not."
        : ""),
  ].join("\n\n");
}
