/**
 * Reads the facts of the code-owner rule of two-person dismissals (`triage.approval.codeowners`; rules in
 * `src/domain/code-owner-approval.ts`) from GitHub: the owners of a finding's file in the CODEOWNERS of the
 * pull request's base branch (`./codeowners/`: GitHub's locations, syntax and 3 MB limit, cached per base
 * commit; GitHub's own list of its errors), and whether a user is one: a user owner by login, a team owner
 * through an `active` membership (GitHub REST "Get team membership for a user",
 * https://docs.github.com/en/rest/teams/members#get-team-membership-for-a-user; needs the App's
 * `members: read` permission, without which GitHub answers 403 and the role rule applies alone).
 */
import type { Logger } from "pino";
import {
  isUserOwner,
  teamOf,
  type ApproverOwnership,
  type CodeOwnership,
  type CodeOwnershipRead,
} from "../domain/code-owner-approval.js";
import type { InstallationOctokit } from "../github/octokit-types.js";
import { inlineCode } from "../render/escape.js";
import { TtlCache } from "../runtime/ttl-cache.js";
import { loadCodeowners, loadCodeownersErrors, ownersOf, type CodeOwner } from "./codeowners/index.js";

/** How long a team membership read is reused, in ms: a held request is decided on facts at most this old. */
export const MEMBERSHIP_CACHE_MS = 60_000;

/** A team membership as GitHub answers it: `none` is a 404, `forbidden` a 403 (no `members: read`). */
export type MembershipState = "active" | "pending" | "none" | "forbidden";

/** Why the role rule applies alone when GitHub refuses the App team membership (403). */
export const MEMBERS_READ_REFUSED =
  "GitHub refused diffward team membership (the app lacks the `members: read` permission), so team owners cannot be checked";

/** Where a pull request's CODEOWNERS is read: the repository and its base branch now. */
export interface CodeOwnersAt {
  owner: string;
  repo: string;
  /** the base branch's name (read at each decision: the base may change) */
  baseRef: string;
  installationId: number;
}

/**
 * The code owners of `file` in the base branch's CODEOWNERS, and whether `login` is one of them.
 * Never throws for CODEOWNERS content: a file that cannot be used gives `ownership.fallback`.
 * @throws what Octokit throws for a GitHub failure other than a missing file or a refused membership read
 *   (the command job retries a 5xx or a rate limit).
 */
export async function readCodeOwnership(
  octokit: InstallationOctokit,
  at: CodeOwnersAt,
  file: string | undefined,
  login: string,
  log: Logger,
): Promise<CodeOwnershipRead> {
  const ownership = await ownersOfFile(octokit, at, file);
  if (ownership.fallback !== undefined) return { ownership };
  const approver = await approverOwnership(octokit, at.installationId, ownership.owners, login);
  if (approver === "forbidden") {
    log.warn({ owners: ownership.owners }, "team membership refused (members: read): the role rule applies");
    return { ownership: { ...ownership, fallback: MEMBERS_READ_REFUSED } };
  }
  return { ownership, approver };
}

/** The owners of `file` at the base branch, or why there are none to check (no membership is read). */
async function ownersOfFile(
  octokit: InstallationOctokit,
  at: CodeOwnersAt,
  file: string | undefined,
): Promise<CodeOwnership> {
  const none = (fallback: string, more: Partial<CodeOwnership> = {}): CodeOwnership => ({
    ...(file !== undefined ? { file } : {}),
    owners: [],
    notes: [],
    fallback,
    ...more,
  });
  if (file === undefined) return none("the finding's location names no file");
  const ref = { owner: at.owner, repo: at.repo, ref: at.baseRef };
  const loaded = await loadCodeowners(octokit, ref);
  const source = loaded.path ?? undefined;
  const where = source ? { source } : {};
  if (!loaded.file) {
    // a file over GitHub's 3 MB, binary or not UTF-8 comes with a note saying so
    const why = loaded.tooLarge
      ? `${inlineCode(source ?? "CODEOWNERS")} is over GitHub's 3 MB limit for CODEOWNERS, so GitHub ignores it`
      : `the base branch ${inlineCode(at.baseRef)} has no CODEOWNERS file`;
    return none(loaded.note ?? why, where);
  }
  const errors = await loadCodeownersErrors(octokit, ref);
  if (errors.length > 0) return none(invalidText(source ?? "CODEOWNERS", errors), where);
  const { owners } = ownersOf(loaded.file, file);
  const named = owners.filter((o) => o.kind !== "email").map(written);
  const notes = owners
    .filter((o): o is Extract<CodeOwner, { kind: "email" }> => o.kind === "email")
    .map((o) => `The e-mail owner ${inlineCode(o.email)} cannot be checked by diffward and is skipped`);
  if (named.length === 0)
    return none(
      `no rule of ${inlineCode(source ?? "CODEOWNERS")} names a user or team owning ${inlineCode(file)}`,
      {
        ...where,
        notes,
      },
    );
  return { file, ...where, owners: named, notes };
}

/** "GitHub lists 2 errors in `CODEOWNERS` (line 3: Invalid owner; …)": why an invalid file is not used. */
function invalidText(source: string, errors: ReadonlyArray<{ line: number; kind: string }>): string {
  const shown = errors
    .slice(0, 3)
    .map((e) => `line ${e.line}: ${e.kind}`)
    .join("; ");
  const more = errors.length > 3 ? `; ${errors.length - 3} more` : "";
  const n = errors.length === 1 ? "1 error" : `${errors.length} errors`;
  return `GitHub lists ${n} in ${inlineCode(source)} (${shown}${more}), so it is not used`;
}

/** An owner as CODEOWNERS writes it. */
function written(o: CodeOwner): string {
  if (o.kind === "user") return `@${o.login}`;
  if (o.kind === "team") return `@${o.org}/${o.slug}`;
  return o.email;
}

/**
 * Whether `login` is one of `owners`: a user owner first (no GitHub read), then each team in order until an
 * `active` membership; `forbidden` as soon as GitHub refuses a membership read.
 */
async function approverOwnership(
  octokit: InstallationOctokit,
  installationId: number,
  owners: readonly string[],
  login: string,
): Promise<ApproverOwnership | "forbidden"> {
  const user = owners.find((o) => isUserOwner(o, login));
  if (user) return { owner: true, via: user };
  const pending: string[] = [];
  for (const owner of owners) {
    const team = teamOf(owner);
    if (!team) continue;
    const state = await teamMembership(octokit, installationId, team, login);
    if (state === "forbidden") return "forbidden";
    if (state === "active") return { owner: true, via: owner };
    if (state === "pending") pending.push(owner);
  }
  return { owner: false, pending };
}

/** Team memberships read this process, per installation, team and login; a failed read is not kept. */
const memberships = new TtlCache<Exclude<MembershipState, "forbidden">>(MEMBERSHIP_CACHE_MS);

/**
 * The membership of `login` in a team (GitHub REST "Get team membership for a user"), reused for
 * {@link MEMBERSHIP_CACHE_MS} within this process (a refusal is not kept: a permission granted meanwhile
 * counts at once).
 * @throws Octokit's RequestError for a failure other than 403 and 404
 */
async function teamMembership(
  octokit: InstallationOctokit,
  installationId: number,
  team: { org: string; slug: string },
  login: string,
): Promise<MembershipState> {
  const key = `${installationId}/${team.org}/${team.slug}/${login}`.toLowerCase();
  try {
    return await memberships.get(key, async () => {
      try {
        const { data } = await octokit.rest.teams.getMembershipForUserInOrg({
          org: team.org,
          team_slug: team.slug,
          username: login,
        });
        return data.state === "active" ? "active" : "pending";
      } catch (error) {
        if ((error as { status?: number }).status === 404) return "none";
        throw error;
      }
    });
  } catch (error) {
    if ((error as { status?: number }).status === 403) return "forbidden";
    throw error;
  }
}
