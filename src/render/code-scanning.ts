/**
 * The check run's "Code scanning" section: where the report's findings went in GitHub code scanning, or
 * why nothing was uploaded (README "GitHub code scanning").
 */
import { z } from "zod";
import type { Severity } from "../scanner/catalog.js";
import { inlineCode, neutralize } from "./escape.js";
import { severityName, statusName } from "./glossary.js";
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

/** What {@link heldDismissalNote} says. */
export interface HeldDismissal {
  /** what the person did, diffward's sentence with their login and comment (`planAlertEvent`'s note) */
  dismissed: string;
  alertNumber: number;
  /** the alert's ref, e.g. `refs/heads/gh-readonly-queue/main/pr-104-<sha>` */
  ref: string | null;
  /** the finding's label (`SC-1a2b3c4d`) */
  label: string;
  severity: Severity;
  /** the resolution the dismissal asked for */
  status: string;
  /** `triage.approval.approvers`: the least role that dismisses alone */
  approvers: string;
  /** the pull request the ref names (a merge group's `pr-<n>`), when it names one */
  pullNumber?: number;
}

/**
 * The note left on the finding (spec §Findings, `POST …/findings/{findingId}/notes`, Markdown) when a
 * dismissal in GitHub code scanning needs a second person (`triage.approval`) and its alert is on a ref
 * that is no pull request's head, so no approval request can be held in a conversation: who dismissed what,
 * why it was not applied (the alert was reopened, the resolution left as it was), and the two ways to
 * dismiss it. Pure; `dismissed` is diffward's own sentence (its untrusted parts quoted and neutralized).
 */
export function heldDismissalNote(d: HeldDismissal): string {
  const where = d.ref ? ` on ${inlineCode(d.ref)}` : "";
  const pull = d.pullNumber
    ? ` (such as pull request #${d.pullNumber}, which this merge group's ref names)`
    : "";
  return [
    `${d.dismissed}`,
    `**Not applied: approval required.** With \`triage.approval\`, dismissing a **${severityName(d.severity)}** ` +
      `finding as **${statusName(d.status)}** needs a second person with the ${inlineCode(d.approvers)} role or ` +
      `above. Code scanning alert #${d.alertNumber}${where} is not on a pull request's ref, so no approval ` +
      `request could be held for it: diffward reopened the alert and left ${inlineCode(d.label)} unchanged on the ` +
      "scanning service.",
    `To dismiss it: a user with the ${inlineCode(d.approvers)} role or above dismisses the alert in GitHub code ` +
      `scanning (no second person is needed then), or, in a pull request that reports this finding${pull}, ` +
      "reply `/fp` (or `/wontfix`) to diffward's comment on it to request approval there.",
  ].join("\n\n");
}
