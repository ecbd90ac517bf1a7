import { createCheckRun, updateCheckRun, type CheckRunUpdate } from "./check-runs.js";
import { addReaction, createIssueComment } from "./issue-comments.js";
import {
  createReview,
  replyToReviewComment,
  updateReviewComment,
  type ReviewCommentDraft,
} from "./reviews.js";
import { setReviewThreadResolved } from "./threads.js";
import type { InstallationOctokit, PullRef, RepoRef } from "./octokit-types.js";
import { updateCodeScanningAlert, uploadSarif, type AlertChange, type SarifUpload } from "./code-scanning.js";

/**
 * One planned GitHub write of a job (a content-creating request in GitHub's terms:
 * https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits).
 * Jobs decide a list of these and hand it to one apply step (`applyWrites`, `src/runtime/apply-writes.ts`), the
 * only way diffward writes to GitHub as an installation (test/architecture/write-path.test.ts; the App's own
 * writes are `src/github/direct-writes.ts`). `purpose` says what the write is for; the apply step orders and
 * thins writes by it (see {@link WRITE_PRIORITY}): `answer` is a write that follows a person's action or
 * decision outside a scan's report (a command, a click on a check run's button, an alert dismissed on GitHub,
 * an accepted finding's expiry).
 */
export type GitHubWrite = WriteOptions &
  (
    | {
        kind: "create-check-run";
        repo: RepoRef;
        headSha: string;
        check: CheckRunUpdate;
        purpose: "create";
      }
    | {
        kind: "update-check-run";
        repo: RepoRef;
        checkRunId: number;
        check: CheckRunUpdate;
        /**
         * `complete`: concludes the check run (or adds its annotations); `progress`: an in-progress courtesy
         * (scan id, percent) that may be coalesced or dropped; `update`: any other change of its output;
         * `answer`: a change a person's action asked for (never coalesced into another).
         */
        purpose: "complete" | "progress" | "update" | "answer";
      }
    | {
        kind: "create-review";
        pull: PullRef;
        commitId: string;
        body: string;
        comments: ReviewCommentDraft[];
        purpose: "review";
      }
    | {
        kind: "update-review-comment";
        repo: RepoRef;
        commentId: number;
        body: string;
        purpose: "review" | "answer";
      }
    | { kind: "upload-sarif"; repo: RepoRef; upload: SarifUpload; purpose: "code-scanning" }
    /** a comment in the pull request's conversation */
    | { kind: "create-issue-comment"; pull: PullRef; body: string; purpose: "answer" }
    /** an answer in the review thread of the review comment `commentId` */
    | { kind: "reply-to-review-comment"; pull: PullRef; commentId: number; body: string; purpose: "answer" }
    /** a reaction to a review comment (`on: review`) or to a comment of the conversation (`on: issue`) */
    | {
        kind: "add-reaction";
        repo: RepoRef;
        on: "review" | "issue";
        commentId: number;
        content: "eyes" | "+1" | "confused";
        purpose: "answer";
      }
    /** a review thread (GraphQL node id `PRRT_…`) marked resolved or unresolved */
    | {
        kind: "set-review-thread-resolved";
        threadId: string;
        resolved: boolean;
        purpose: "review" | "answer";
      }
    | {
        kind: "update-code-scanning-alert";
        repo: RepoRef;
        alertNumber: number;
        change: AlertChange;
        purpose: "answer";
      }
  );

/**
 * The apply step of one installation's planned writes (`applyWrites` in `src/runtime/apply-writes.ts`, bound to the
 * installation): one result per write, in order. Throws as `applyWrites` does.
 */
export type ApplyWrites = (writes: readonly GitHubWrite[]) => Promise<WriteResult[]>;

export interface WriteOptions {
  /** a failure of this write is logged and the next writes still go out (e.g. concluding a superseded run) */
  bestEffort?: boolean;
}

/** What a write returned: the id GitHub gave a created check run or review. */
export type WriteResult =
  | { kind: "create-check-run"; checkRunId: number }
  | { kind: "create-review"; reviewId: number }
  /** the id of the comment posted in the conversation or in the review thread */
  | { kind: "create-issue-comment" | "reply-to-review-comment"; commentId: number }
  /** the SARIF upload's id (REST "Upload an analysis as SARIF data", 202) */
  | { kind: "upload-sarif"; sarifId: string }
  | { kind: "done" }
  /** a later update of the same check run took this one's place (its fields were merged into it) */
  | { kind: "coalesced" }
  /** a progress write left out because the installation's write budget is kept for what matters */
  | { kind: "skipped" }
  /** a best-effort write that failed (logged) */
  | { kind: "failed"; message: string };

/**
 * The order in which an installation's pending writes go out (lower first): completing a check run first
 * (it ends a wait people watch), then creating the check run of a pull request that has none and answering a
 * person who acted (first feedback), then other check-run changes, then reviews, then progress. Measured in `docs/benchmarks.md`
 * ("One write lane per installation, complete first, and the bound").
 */
export const WRITE_PRIORITY: Record<GitHubWrite["purpose"], number> = {
  complete: 0,
  create: 1,
  answer: 1,
  update: 2,
  review: 3,
  "code-scanning": 3,
  progress: 4,
};

/** Plans the creation of diffward's check run on `headSha`. */
export function createCheck(repo: RepoRef, headSha: string, check: CheckRunUpdate): GitHubWrite {
  return {
    kind: "create-check-run",
    repo: { owner: repo.owner, repo: repo.repo },
    headSha,
    check,
    purpose: "create",
  };
}

/** Plans the one write that concludes a job's check run (`d.checkRunId`) with `conclusion` and `output`. */
export function concludeCheck(
  d: RepoRef & { checkRunId: number },
  conclusion: NonNullable<CheckRunUpdate["conclusion"]>,
  output: NonNullable<CheckRunUpdate["output"]>,
): GitHubWrite[] {
  return [updateCheck(d, d.checkRunId, { conclusion, output })];
}

/**
 * Plans an update of a check run; a `conclusion` makes it a `complete` write, `status: in_progress` a
 * `progress` one, unless `purpose` says otherwise.
 */
export function updateCheck(
  repo: RepoRef,
  checkRunId: number,
  check: CheckRunUpdate,
  purpose?: "complete" | "progress" | "update" | "answer",
): GitHubWrite {
  return {
    kind: "update-check-run",
    repo: { owner: repo.owner, repo: repo.repo },
    checkRunId,
    check,
    purpose:
      purpose ?? (check.conclusion ? "complete" : check.status === "in_progress" ? "progress" : "update"),
  };
}

/**
 * Sends one planned write with Octokit (GitHub REST "Create a check run", "Update a check run", "Create a
 * review for a pull request", "Update a review comment for a pull request", "Upload an analysis as SARIF
 * data", "Create an issue comment", "Create a reply for a review comment", "Create reaction for a pull
 * request review comment" / "for an issue comment", "Update a code scanning alert"; GraphQL
 * `resolveReviewThread` / `unresolveReviewThread`). Errors are Octokit's `RequestError`s (GraphQL's errors
 * for a thread), thrown as is.
 */
export async function sendWrite(octokit: InstallationOctokit, w: GitHubWrite): Promise<WriteResult> {
  switch (w.kind) {
    case "create-check-run":
      return { kind: w.kind, checkRunId: await createCheckRun(octokit, w.repo, w.headSha, w.check) };
    case "update-check-run":
      await updateCheckRun(octokit, w.repo, w.checkRunId, w.check);
      return { kind: "done" };
    case "create-review":
      return { kind: w.kind, reviewId: await createReview(octokit, w.pull, w.commitId, w.body, w.comments) };
    case "update-review-comment":
      await updateReviewComment(octokit, w.repo, w.commentId, w.body);
      return { kind: "done" };
    case "upload-sarif":
      return { kind: w.kind, sarifId: await uploadSarif(octokit, w.repo, w.upload) };
    case "create-issue-comment":
      return { kind: w.kind, commentId: await createIssueComment(octokit, w.pull, w.body) };
    case "reply-to-review-comment":
      return { kind: w.kind, commentId: await replyToReviewComment(octokit, w.pull, w.commentId, w.body) };
    case "add-reaction":
      await addReaction(octokit, w.repo, w.on, w.commentId, w.content);
      return { kind: "done" };
    case "set-review-thread-resolved":
      await setReviewThreadResolved(octokit, w.threadId, w.resolved);
      return { kind: "done" };
    case "update-code-scanning-alert":
      await updateCodeScanningAlert(octokit, w.repo, w.alertNumber, w.change);
      return { kind: "done" };
  }
}
