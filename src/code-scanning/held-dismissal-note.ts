/**
 * The note left on a finding when a dismissal in GitHub code scanning needs a second person and cannot be held
 * in a pull request (README "GitHub code scanning").
 */
import type { Severity } from "../scanner/catalog.js";
import { inlineCode } from "../render/escape.js";
import { severityName, statusName } from "../render/glossary.js";

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
  /**
   * with `triage.approval.codeowners`: who must approve besides the role, read from the CODEOWNERS of the
   * branch the ref targets (`heldOwnersSentence`), or why the role rule applies alone
   */
  owners?: string;
}

/**
 * The note left on the finding (spec §Findings, `POST …/findings/{findingId}/notes`, Markdown) when a
 * dismissal in GitHub code scanning needs a second person (`triage.approval`) and its alert is on a ref
 * that is no pull request's head, so no approval request can be held in a conversation: who dismissed what,
 * why it was not applied (the alert was reopened, the resolution left as it was), and the two ways to
 * dismiss it, with the code owners an approval needs when `triage.approval.codeowners` is on. Pure; `dismissed` is diffward's own sentence (its untrusted parts quoted and neutralized).
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
      "reply `/fp` (or `/wontfix`) to diffward's comment on it to request approval there." +
      (d.owners ? ` ${d.owners}` : ""),
  ].join("\n\n");
}
