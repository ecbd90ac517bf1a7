/**
 * Code owners as approvers of a two-person dismissal (`triage.approval.codeowners`; README "Triage from the
 * pull request"), the pure rules: the approver must meet the role rule (./dismissal-approval.ts) AND be a code
 * owner of the finding's file, as the pull request's base branch's CODEOWNERS names them (GitHub "About code
 * owners",
 * https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners):
 * a user owner by login (without case), a team owner through an `active` membership (GitHub REST "Get team
 * membership for a user"). The role rule applies alone, and the messages say why, when the file has no code
 * owner, the CODEOWNERS is invalid or too large, or the app may not read team membership (`members: read`).
 * An e-mail owner cannot be checked: it is left out with a note.
 */
import { z } from "zod";

/** The code owners of a finding's file, as read for a dismissal's request or decision. */
export const CodeOwnership = z.object({
  /** the finding's file (repository-relative), when its location names one */
  file: z.string().optional(),
  /** the CODEOWNERS file read (`.github/CODEOWNERS`, `CODEOWNERS`, `docs/CODEOWNERS`) */
  source: z.string().optional(),
  /** the owners the matching rule names, as written (`@login`, `@org/team-slug`); e-mail owners are left out */
  owners: z.array(z.string()),
  /** set when the role rule applies alone: why, as a sentence ending without a period */
  fallback: z.string().optional(),
  /** what could not be checked (an e-mail owner), one sentence each */
  notes: z.array(z.string()).default([]),
});
export type CodeOwnership = z.infer<typeof CodeOwnership>;

/** Whether a user is a code owner of the file: through which owner, or the teams where they are only invited. */
export type ApproverOwnership = { owner: true; via: string } | { owner: false; pending: string[] };

/** The code owners of a file as read now, and whether one user is among them (absent when not asked). */
export interface CodeOwnershipRead {
  ownership: CodeOwnership;
  approver?: ApproverOwnership;
}

/** Why a code-owner check refuses an approver. */
export interface NotOwnerRefusal {
  ok: false;
  why: "not-owner";
  file: string;
  owners: string[];
  /** teams the approver is invited to but has not joined (`pending`) */
  pending: string[];
}

/**
 * Whether the code-owner rule binds a decision (pure): the request was held under it, or it is on now (the
 * stricter of the two, so turning it off never lowers a pending request's bar), and the file has owners
 * that could be checked (no `fallback`).
 */
export function codeOwnersBind(
  required: { requested?: boolean; configured?: boolean },
  ownership: CodeOwnership | undefined,
): ownership is CodeOwnership & { file: string } {
  if (!(required.requested || required.configured) || !ownership) return false;
  return ownership.fallback === undefined && ownership.file !== undefined && ownership.owners.length > 0;
}

/**
 * The code-owner check of an approver (pure): `ok` when the rule does not bind ({@link codeOwnersBind}) or
 * `approver` owns the file; otherwise a refusal naming the file's owners.
 */
export function checkCodeOwner(
  required: { requested?: boolean; configured?: boolean },
  ownership: CodeOwnership | undefined,
  approver: ApproverOwnership | undefined,
): { ok: true } | NotOwnerRefusal {
  if (!codeOwnersBind(required, ownership) || approver?.owner) return { ok: true };
  return {
    ok: false,
    why: "not-owner",
    file: ownership.file,
    owners: ownership.owners,
    pending: approver?.pending ?? [],
  };
}

/** A team owner (`@org/team-slug`) split into its organization and slug; `undefined` for a user owner. */
export function teamOf(owner: string): { org: string; slug: string } | undefined {
  const m = /^@([^/\s]+)\/([^/\s]+)$/.exec(owner);
  return m ? { org: m[1]!, slug: m[2]! } : undefined;
}

/** Whether `login` is the user owner `owner` (`@login`), without case as GitHub compares logins. */
export function isUserOwner(owner: string, login: string): boolean {
  return !teamOf(owner) && owner.slice(1).toLowerCase() === login.toLowerCase();
}

/**
 * What the audit trail records of the code owners consulted for a decision (pure): the owners named, and why
 * the role rule applied alone when it did; nothing when code owners were not asked for.
 */
export function codeOwnersAudit(ownership: CodeOwnership | undefined): {
  codeOwners?: string[];
  codeOwnersNote?: string;
} {
  if (!ownership) return {};
  return {
    codeOwners: ownership.owners,
    ...(ownership.fallback !== undefined ? { codeOwnersNote: ownership.fallback } : {}),
  };
}
