import type { InstallationOctokit, PullRef, RepoRef } from "./types.js";

/** Posts a comment in the pull request's conversation (GitHub REST `POST …/issues/{issue_number}/comments`). */
export async function createIssueComment(
  octokit: InstallationOctokit,
  pull: PullRef,
  body: string,
): Promise<number> {
  const { data } = await octokit.rest.issues.createComment({
    owner: pull.owner,
    repo: pull.repo,
    issue_number: pull.pullNumber,
    body,
  });
  return data.id;
}

/** Reacts to a comment; `kind` picks the review-comment or the issue-comment endpoint. */
export async function addReaction(
  octokit: InstallationOctokit,
  repo: RepoRef,
  kind: "review" | "issue",
  commentId: number,
  content: "eyes" | "+1" | "confused",
): Promise<void> {
  if (kind === "review") {
    await octokit.rest.reactions.createForPullRequestReviewComment({
      owner: repo.owner,
      repo: repo.repo,
      comment_id: commentId,
      content,
    });
  } else {
    await octokit.rest.reactions.createForIssueComment({
      owner: repo.owner,
      repo: repo.repo,
      comment_id: commentId,
      content,
    });
  }
}

/** GitHub's repository permission levels, lowest first (REST "Get repository permissions for a user"). */
export const PERMISSION_LEVELS = ["none", "read", "triage", "write", "maintain", "admin"] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

/**
 * A user's permission on a repository, from the collaborator permission API
 * (`GET /repos/{owner}/{repo}/collaborators/{username}/permission`), never from `author_association`.
 * `role_name` carries the finer roles (triage, maintain); `permission` only admin/write/read/none.
 * A 404 (not a collaborator) is `none`.
 */
export async function getPermission(
  octokit: InstallationOctokit,
  repo: RepoRef,
  username: string,
): Promise<PermissionLevel> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: repo.owner,
      repo: repo.repo,
      username,
    });
    const role = (data as { role_name?: string }).role_name;
    if (role && (PERMISSION_LEVELS as readonly string[]).includes(role)) return role as PermissionLevel;
    const p = data.permission;
    return (PERMISSION_LEVELS as readonly string[]).includes(p) ? (p as PermissionLevel) : "none";
  } catch (error) {
    if ((error as { status?: number }).status === 404) return "none";
    throw error;
  }
}

/** True when `actual` is at or above `floor` in {@link PERMISSION_LEVELS}. */
export function permissionAtLeast(actual: PermissionLevel, floor: PermissionLevel): boolean {
  return PERMISSION_LEVELS.indexOf(actual) >= PERMISSION_LEVELS.indexOf(floor);
}
