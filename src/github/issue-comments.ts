import { collaboratorRole, type RepoPermission } from "../config/repo-config.js";
import { unlessStatus, type InstallationOctokit, type PullRef, type RepoRef } from "./octokit-types.js";

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

/**
 * A user's permission on a repository, from the collaborator permission API
 * (`GET /repos/{owner}/{repo}/collaborators/{username}/permission`), never from `author_association`.
 * `role_name` carries the finer roles (triage, maintain); `permission` only admin/write/read/none; the
 * choice between them is {@link collaboratorRole}'s. A 404 (not a collaborator) is `none`. Compare with
 * `permissionAtLeast` (`src/config/repo-config/permissions.ts`).
 */
export async function getPermission(
  octokit: InstallationOctokit,
  repo: RepoRef,
  username: string,
): Promise<RepoPermission> {
  const found = await unlessStatus(
    404,
    octokit.rest.repos.getCollaboratorPermissionLevel({ owner: repo.owner, repo: repo.repo, username }),
  );
  return found
    ? collaboratorRole(found.data as { permission?: string | null; role_name?: string | null })
    : "none";
}
