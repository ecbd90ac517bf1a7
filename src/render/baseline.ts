/**
 * The check run outputs of a default-branch baseline (`baseline:` in `.github/diffward.yml`): queued, not
 * scanned for want of a token, superseded by a newer push, and the note above a completed baseline's report
 * (its refusals are `./baseline-refusals.ts`); and a pull request's findings against its base branch's
 * baseline. Each output says what happened, why and what to do next.
 */
import { z } from "zod";
import type { BaselineTrigger } from "../domain/baseline.js";
import type { CheckRunOutput } from "../github/check-runs.js";
import type { ScanPreset } from "../scanner/schemas.js";
import { inlineCode } from "./escape.js";
import { plural, shortSha } from "./format.js";
import { sections } from "./markdown.js";

/** Output of a baseline waiting for its launch (the debounce window of a push, or the launch queue). */
export function renderBaselineQueued(x: {
  branch: string;
  headSha: string;
  presetRef: string;
  trigger: BaselineTrigger;
  debounceSeconds: number;
}): CheckRunOutput {
  const why =
    x.trigger === "push"
      ? `A push to ${inlineCode(x.branch)} (\`baseline.on: push\`).${x.debounceSeconds > 0 ? ` The scan launches in ${x.debounceSeconds} s unless a newer push replaces this commit.` : ""}`
      : `The scheduled baseline of ${inlineCode(x.branch)} (\`baseline.on: schedule\`).`;
  return {
    title: `Baseline of ${x.branch} queued`,
    summary: sections(
      `**Baseline scan** of ${shortSha(x.headSha)} on ${inlineCode(x.branch)}: the whole repository with the preset ${inlineCode(x.presetRef)}, so pull requests can tell findings already open on ${inlineCode(x.branch)} from new ones.`,
      why,
    ),
  };
}

/** The problem of a baseline preset the service does not list, with the refs it does. */
export function unknownPresetProblem(presetRef: string, presets: readonly Pick<ScanPreset, "ref">[]): string {
  return `baseline.preset: "${presetRef}" is not one of the service's presets (${presets.map((p) => p.ref).join(", ") || "none listed"})`;
}

/** Output of a baseline that needs a scanner token the installation does not have (neutral). */
export function renderBaselineNoToken(): CheckRunOutput {
  return {
    title: "Baseline not scanned: no scanning service token",
    summary: sections(
      "**What happened:** diffward did not scan this commit.",
      "**Why:** no scanning service token is configured for this installation.",
      "**What next:** create a token with the `read`, `scans:launch` and `findings:write` scopes in the scanning service and register it with diffward; the next push or scheduled baseline scans.",
    ),
  };
}

/** Output of a baseline whose commit a newer push to the branch replaced (concluded `cancelled`). */
export function renderBaselineSuperseded(x: { bySha: string; branch: string }): CheckRunOutput {
  return {
    title: `Superseded by ${x.bySha.slice(0, 7)}`,
    summary: sections(
      `**What happened:** a newer push to ${inlineCode(x.branch)} (${shortSha(x.bySha)}) replaced this commit's baseline before it ended; its scan, if launched, was cancelled and its unused credits released.`,
      "**What next:** nothing: the newer commit's baseline is the one that counts.",
    ),
  };
}

/** The note above a completed baseline's report (the findings section follows it). */
export function renderBaselineNote(x: { branch: string; headSha: string; presetName: string }): string {
  return `**Baseline** of ${inlineCode(x.branch)} at ${shortSha(x.headSha)}: a whole-repository scan (${inlineCode(x.presetName)}), so the findings below are every finding open at this commit. No review is posted; pull requests into ${inlineCode(x.branch)} compare their findings with these.`;
}

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
