import { pullParams, readUnless404, type InstallationOctokit, type PullRef, type RepoRef } from "./octokit-types.js";

/** One inline comment of a review: on `line` of `path`, RIGHT side (the PR's version of the file). */
export interface ReviewCommentDraft {
  path: string;
  line: number;
  startLine?: number;
  body: string;
}

/** A review comment already on the pull request. */
export interface ExistingReviewComment {
  id: number;
  body: string;
  path: string;
  inReplyToId?: number;
  userLogin?: string;
  userType?: string;
}

/**
 * Posts ONE review (event `COMMENT`) holding every inline comment, so a scan costs one write however
 * many comments it has. Source: GitHub REST "Create a review for a pull request"; each comment's `line`
 * must be on the RIGHT side of the file's diff or GitHub answers 422.
 * @returns the review id.
 */
export async function createReview(
  octokit: InstallationOctokit,
  pull: PullRef,
  commitId: string,
  body: string,
  comments: ReviewCommentDraft[],
): Promise<number> {
  const { data } = await octokit.rest.pulls.createReview({
    ...pullParams(pull),
    commit_id: commitId,
    event: "COMMENT",
    body,
    comments: comments.map((c) =>
      c.startLine !== undefined && c.startLine < c.line
        ? {
            path: c.path,
            line: c.line,
            side: "RIGHT",
            start_line: c.startLine,
            start_side: "RIGHT",
            body: c.body,
          }
        : { path: c.path, line: c.line, side: "RIGHT", body: c.body },
    ),
  });
  return data.id;
}

/** Every review comment of a pull request (GitHub REST `GET …/pulls/{pull_number}/comments`, paginated). */
export async function listReviewComments(
  octokit: InstallationOctokit,
  pull: PullRef,
): Promise<ExistingReviewComment[]> {
  const comments = await octokit.paginate(octokit.rest.pulls.listReviewComments, {
    ...pullParams(pull),
    per_page: 100,
  });
  return comments.map(existingReviewComment);
}

/**
 * Reads one review comment by its id (GitHub REST `GET /repos/{owner}/{repo}/pulls/comments/{comment_id}`).
 * A 404 is `undefined`.
 */
export const getReviewComment = readUnless404(
  (octokit, repo, commentId: number) =>
    octokit.rest.pulls.getReviewComment({ ...repo, comment_id: commentId }),
  existingReviewComment,
);

/** The fields diffward reads of a GitHub review comment (REST "pull-request-review-comment"). */
function existingReviewComment(c: {
  id: number;
  body: string;
  path: string;
  in_reply_to_id?: number;
  user?: { login: string; type: string } | null;
}): ExistingReviewComment {
  return {
    id: c.id,
    body: c.body,
    path: c.path,
    ...(c.in_reply_to_id !== undefined ? { inReplyToId: c.in_reply_to_id } : {}),
    ...(c.user ? { userLogin: c.user.login, userType: c.user.type } : {}),
  };
}

/** Replaces a review comment's body (GitHub REST `PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}`). */
export async function updateReviewComment(
  octokit: InstallationOctokit,
  repo: RepoRef,
  commentId: number,
  body: string,
): Promise<void> {
  await octokit.rest.pulls.updateReviewComment({
    owner: repo.owner,
    repo: repo.repo,
    comment_id: commentId,
    body,
  });
}

/** Answers in a review thread (GitHub REST `POST …/pulls/{pull_number}/comments/{comment_id}/replies`). */
export async function replyToReviewComment(
  octokit: InstallationOctokit,
  pull: PullRef,
  commentId: number,
  body: string,
): Promise<number> {
  const { data } = await octokit.rest.pulls.createReplyForReviewComment({
    ...pullParams(pull),
    comment_id: commentId,
    body,
  });
  return data.id;
}
