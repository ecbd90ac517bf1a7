/**
 * The check run's "Code scanning" section: where the report's findings went in GitHub code scanning, or
 * why nothing was uploaded (README "GitHub code scanning").
 */
import { z } from "zod";
import { neutralize } from "./escape.js";
import { plural } from "./format.js";
import { link } from "./markdown.js";

/** What the check run says about code scanning (kept with the report, so triage re-renders it). */
export const CodeScanningInfo = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("uploaded"),
    /** results in the upload (open findings) */
    results: z.number().int().nonnegative(),
    /** open findings left out over GitHub's limits */
    leftOut: z.number().int().nonnegative(),
    /** open findings whose location names no file */
    unplaceable: z.number().int().nonnegative(),
    /** the pull request's code scanning results (the merge group's branch's for a merge group) */
    url: z.string().optional(),
    /** what was scanned; absent: a pull request */
    of: z.enum(["pull request", "merge group", "default branch"]).optional(),
  }),
  /** `withheld`: on, but nothing uploaded by rule (summary disclosure); `failed`: GitHub refused it */
  z.object({ status: z.enum(["withheld", "failed"]), reason: z.string() }),
]);
export type CodeScanningInfo = z.infer<typeof CodeScanningInfo>;

/**
 * `### Code scanning`: the number of findings uploaded and a link to the pull request's code scanning
 * results, with what was left out and why; or the reason nothing was uploaded. The reason is diffward's
 * own text, neutralized anyway.
 */
export function codeScanningSection(info: CodeScanningInfo): string {
  if (info.status !== "uploaded") return `### Code scanning\n\n⚠️ ${neutralize(info.reason)}`;
  const what = `${plural(info.results, "open finding")} uploaded to GitHub code scanning (tool \`diffward\`)`;
  const of = info.of ?? "pull request";
  const lines = [
    `🛡️ ${what}${info.url ? `: ${link(`this ${of}'s code scanning results`, info.url)}` : "."}`,
    of === "pull request"
      ? "Dismissing or reopening one of these alerts sets the finding's resolution, and the triage commands dismiss or reopen its alert."
      : "Dismissing or reopening one of these alerts sets the finding's resolution.",
  ];
  if (info.leftOut > 0)
    lines.push(
      `${plural(info.leftOut, "less severe open finding")} left out to stay within GitHub's limits.`,
    );
  if (info.unplaceable > 0)
    lines.push(
      `${plural(info.unplaceable, "open finding")} without a file location could not become an alert.`,
    );
  return `### Code scanning\n\n${lines.join("\n\n")}`;
}
