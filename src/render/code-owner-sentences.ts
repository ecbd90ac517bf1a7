/**
 * The sentences about code owners in the answers to two-person dismissals (`triage.approval.codeowners`;
 * rules in `src/domain/code-owner-approval.ts`). Owners are written as CODEOWNERS names them (`@login`,
 * `@org/team-slug`): in inline code, so GitHub mentions no one, except in the held message under
 * `triage.approval.notify`, which mentions them once. Pure.
 */
import type { CodeOwnership, CodeOwnershipRead, NotOwnerRefusal } from "../domain/code-owner-approval.js";
import { who } from "./command-answers.js";
import { inlineCode } from "./escape.js";

/** Owners joined with commas: each in inline code, or written plainly (`mention`) so GitHub notifies each. */
export function ownerNames(owners: readonly string[], mention = false): string {
  return owners.map((o) => (mention ? o : inlineCode(o))).join(", ");
}

/** The notes on owners that could not be checked (e-mail addresses), one sentence each; "" when none. */
function notesText(ownership: CodeOwnership): string {
  return ownership.notes.map((n) => ` ${n}.`).join("");
}

/**
 * Who may approve a held dismissal, beyond the role, for the held message: the code owners of the finding's
 * file (mentioned when `notify`), or why the role rule applies alone. "" when code owners are not asked for.
 */
export function heldOwnersSentence(ownership: CodeOwnership | undefined, notify: boolean): string {
  if (!ownership) return "";
  if (ownership.fallback !== undefined)
    return (
      ` Code owners do not limit who approves this one: ${ownership.fallback}; the role rule applies alone ` +
      `(\`triage.approval.codeowners\`).${notesText(ownership)}`
    );
  const from = ownership.source ? ` in ${inlineCode(ownership.source)}` : "";
  return (
    ` The approver must also be a code owner of ${inlineCode(ownership.file ?? "")}${from} ` +
    `(\`triage.approval.codeowners\`): ${ownerNames(ownership.owners, notify)}.${notesText(ownership)}`
  );
}

/** The end of a refusal to a user who is not a code owner: the file, its owners, and pending team invitations. */
export function notOwnerSentence(check: NotOwnerRefusal, sender: string): string {
  const pending =
    check.pending.length > 0
      ? ` Your membership of ${ownerNames(check.pending)} is pending: it counts once you accept the invitation.`
      : "";
  return (
    `a code owner of ${inlineCode(check.file)} (\`triage.approval.codeowners\`): ${ownerNames(check.owners)}. ` +
    `${who(sender)} is not a code owner of that file, so nothing was changed.${pending}`
  );
}

/** How the code owners bore on an approval, for its answer; "" when they were not asked for. */
export function approvedByOwnerSentence(c: CodeOwnershipRead | undefined): string {
  if (!c) return "";
  if (c.ownership.fallback !== undefined)
    return ` Code owners did not limit who approves: ${c.ownership.fallback}; the role rule applied alone.`;
  if (!c.approver?.owner) return "";
  return ` Approved as a code owner of ${inlineCode(c.ownership.file ?? "")} (${inlineCode(c.approver.via)}).`;
}
