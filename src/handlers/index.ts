import type { Probot } from "probot";
import type { HandlerDeps } from "./deps.js";
import { onRequestedAction, onRerequested } from "./checks.js";
import { onIssueCommentCreated, onReviewCommentCreated } from "./comments.js";
import { onInstallationDeleted } from "./installation.js";
import { onPullRequest, onPullRequestClosed } from "./pull-request.js";

export type { HandlerDeps } from "./deps.js";

/**
 * The Probot application function: registers diffward's handlers and nothing else. Each handler only
 * checks guards and enqueues one job; bots' events never become commands.
 */
export function diffwardApp(deps: HandlerDeps) {
  return (app: Probot): void => {
    app.on(
      [
        "pull_request.opened",
        "pull_request.synchronize",
        "pull_request.reopened",
        "pull_request.ready_for_review",
        "pull_request.edited",
      ],
      (context) => onPullRequest(deps, context),
    );
    app.on("pull_request.closed", (context) => onPullRequestClosed(deps, context));
    app.on("check_run.rerequested", (context) => onRerequested(deps, context));
    app.on("check_suite.rerequested", (context) => onRerequested(deps, context));
    app.on("check_run.requested_action", (context) => onRequestedAction(deps, context));
    app.on("installation.deleted", (context) => onInstallationDeleted(deps, context));
    app.on("pull_request_review_comment.created", (context) => onReviewCommentCreated(deps, context));
    app.on("issue_comment.created", (context) => onIssueCommentCreated(deps, context));
  };
}
