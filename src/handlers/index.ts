import type { Probot } from "probot";
import type { HandlerDeps } from "./deps.js";
import { onRequestedAction, onRerequested } from "./checks.js";
import { onCodeScanningAlert } from "./code-scanning.js";
import { onIssueCommentCreated, onReviewCommentCreated } from "./comments.js";
import { onInstallationDeleted } from "./installation.js";
import { onMergeGroup } from "./merge-group.js";
import { onPullRequest, onPullRequestClosed } from "./pull-request.js";
import { onPush } from "./push.js";

export type { HandlerDeps } from "./deps.js";

/**
 * Runs a handler so that a malformed payload (a field missing or of the wrong type: `TypeError`) is logged
 * and dropped with a 200, instead of a 500 from Probot's middleware; any other error (Redis down) still
 * fails the delivery so GitHub shows it as failed and it can be redelivered.
 */
function guarded<C extends { id: string; name: string }>(
  deps: HandlerDeps,
  fn: (context: C) => Promise<void>,
) {
  return async (context: C): Promise<void> => {
    try {
      await fn(context);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      deps.log?.warn(
        { delivery: context.id, event: context.name, err: error },
        "malformed webhook payload ignored",
      );
    }
  };
}

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
      guarded(deps, (context) => onPullRequest(deps, context)),
    );
    app.on(
      "pull_request.closed",
      guarded(deps, (context) => onPullRequestClosed(deps, context)),
    );
    app.on(
      "check_run.rerequested",
      guarded(deps, (context) => onRerequested(deps, context)),
    );
    app.on(
      "check_suite.rerequested",
      guarded(deps, (context) => onRerequested(deps, context)),
    );
    app.on(
      "check_run.requested_action",
      guarded(deps, (context) => onRequestedAction(deps, context)),
    );
    app.on(
      "installation.deleted",
      guarded(deps, (context) => onInstallationDeleted(deps, context)),
    );
    app.on(
      ["merge_group.checks_requested", "merge_group.destroyed"],
      guarded(deps, (context) => onMergeGroup(deps, context)),
    );
    app.on(
      "pull_request_review_comment.created",
      guarded(deps, (context) => onReviewCommentCreated(deps, context)),
    );
    app.on(
      "issue_comment.created",
      guarded(deps, (context) => onIssueCommentCreated(deps, context)),
    );
    app.on(
      ["code_scanning_alert.closed_by_user", "code_scanning_alert.reopened_by_user"],
      guarded(deps, (context) => onCodeScanningAlert(deps, context)),
    );
    app.on(
      "push",
      guarded(deps, (context) => onPush(deps, context)),
    );
  };
}
