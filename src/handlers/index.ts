import { annotateActiveSpan, type TraceSubject } from "../runtime/trace-context.js";
import type { EmitterWebhookEvent, EmitterWebhookEventName } from "@octokit/webhooks";
import type { Probot } from "probot";
import type { EventHandler, HandlerDeps } from "./deps.js";
import { onRequestedAction, onRerequested } from "./checks.js";
import { onCodeScanningAlert } from "./code-scanning.js";
import { onIssueCommentCreated, onReviewCommentCreated } from "./comments.js";
import { onInstallationCreated, onInstallationDeleted } from "./installation.js";
import { onMergeGroup } from "./merge-group.js";
import { onPullRequest, onPullRequestClosed } from "./pull-request.js";
import { onPush } from "./push.js";

export { handlerDeps, type HandlerDeps } from "./deps.js";

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

/** One registration with Probot: the events (typed by `@octokit/webhooks`) and the handler they go to. */
type Route = (app: Probot, deps: HandlerDeps) => void;

/**
 * Registers `handler` for `events` behind the shared guards: a delivery without an installation id (not sent
 * to an app installation) is dropped before the handler runs, a malformed payload is dropped by
 * {@link guarded}, and a delivery of an event diffward already accepted (`HandlerDeps.deliveries`: its
 * handler ran to the end, within the redelivery window) is answered without running the handler again.
 * GitHub may record an accepted delivery as failed (an answer later than 10 s is "timed out": docs,
 * https://docs.github.com/en/webhooks/testing-and-troubleshooting-webhooks/troubleshooting-webhooks), and
 * the job a redelivery's job id would collapse into may be gone by then (`removeOnComplete`).
 */
function route<E extends EmitterWebhookEventName>(events: E | E[], handler: EventHandler<NoInfer<E>>): Route {
  return (app, deps) =>
    app.on(
      events,
      guarded(deps, async (event: EmitterWebhookEvent<E>) => {
        const payload = event.payload as { installation?: { id?: number } | null };
        const installationId = payload.installation?.id;
        if (!installationId) return;
        annotateActiveSpan(webhookTraceSubject(event.id, installationId, event.payload));
        if (await deps.deliveries?.isAccepted(event.id)) {
          deps.log?.info(
            { delivery: event.id, event: event.name },
            "delivery already accepted: not handled again",
          );
          return;
        }
        await handler(deps, event, installationId);
        await deps.deliveries?.accept(event.id);
      }),
    );
}

/**
 * The identifiers of a delivery for its trace (the webhook request's span): the delivery GUID
 * (`X-GitHub-Delivery`), the installation, and the repository, pull request and head SHA when the payload has
 * them (`repository.owner.login`/`repository.name`, `pull_request.number`, `pull_request.head.sha`).
 */
function webhookTraceSubject(deliveryId: string, installationId: number, payload: unknown): TraceSubject {
  const p = payload as {
    repository?: { name?: unknown; owner?: { login?: unknown } };
    pull_request?: { number?: unknown; head?: { sha?: unknown } };
  };
  return {
    deliveryId,
    installationId,
    owner: p.repository?.owner?.login,
    repo: p.repository?.name,
    pullNumber: p.pull_request?.number,
    headSha: p.pull_request?.head?.sha,
  };
}

/** Every webhook event diffward subscribes to and its handler. */
const ROUTES: Route[] = [
  route(
    [
      "pull_request.opened",
      "pull_request.synchronize",
      "pull_request.reopened",
      "pull_request.ready_for_review",
      "pull_request.edited",
    ],
    onPullRequest,
  ),
  route("pull_request.closed", onPullRequestClosed),
  route(["check_run.rerequested", "check_suite.rerequested"], onRerequested),
  route("check_run.requested_action", onRequestedAction),
  route("installation.deleted", onInstallationDeleted),
  route("installation.created", onInstallationCreated),
  route(["merge_group.checks_requested", "merge_group.destroyed"], onMergeGroup),
  route("pull_request_review_comment.created", onReviewCommentCreated),
  route("issue_comment.created", onIssueCommentCreated),
  route(["code_scanning_alert.closed_by_user", "code_scanning_alert.reopened_by_user"], onCodeScanningAlert),
  route("push", onPush),
];

/**
 * The Probot application function: registers diffward's handlers and nothing else. Each handler only
 * checks guards and enqueues one job; bots' events never become commands.
 */
export function diffwardApp(deps: HandlerDeps) {
  return (app: Probot): void => {
    for (const register of ROUTES) register(app, deps);
  };
}
