import type { PullClosedJobData, PullRequestJobData } from "../job-catalogue/index.js";
import { jobId, pullKey } from "../runtime/names.js";
import type { EventHandler } from "./deps.js";
import { enqueueEvent, repoContext } from "./deps.js";

/** The pull request events that can start a scan (GitHub "Webhook events and payloads", `pull_request`). */
type PullRequestEvent =
  | "pull_request.opened"
  | "pull_request.synchronize"
  | "pull_request.reopened"
  | "pull_request.ready_for_review"
  | "pull_request.edited";

/**
 * `pull_request` opened, synchronize, reopened, ready_for_review, and edited when the base branch
 * changed: enqueue one `pull-request` job (id from the delivery id, so a redelivery collapses into it).
 * Everything that calls GitHub or the service happens in the job, so the webhook is acknowledged at once.
 */
export const onPullRequest: EventHandler<PullRequestEvent> = async (deps, context, installationId) => {
  const { payload } = context;
  if (payload.action === "edited" && !("base" in (payload.changes ?? {}))) return;
  const pr = payload.pull_request;
  const data: PullRequestJobData = {
    deliveryId: context.id,
    action: payload.action,
    ...repoContext(payload, installationId),
    pullNumber: pr.number,
    headSha: pr.head.sha,
    headRef: pr.head.ref,
    baseRef: pr.base.ref,
    draft: pr.draft ?? false,
    updatedAt: pr.updated_at,
    authorLogin: pr.user?.login ?? "",
    title: pr.title,
    ...(pr.head.repo ? { headRepoFullName: pr.head.repo.full_name } : {}),
    pullHtmlUrl: pr.html_url,
  };
  await enqueueEvent(deps, "pullRequest", data, jobId("pr", context.id));
};

/** A pull request closed, merged or not (GitHub "Webhook events and payloads", `pull_request`). */
type ClosedEvent = "pull_request.closed";

/** `pull_request.closed`: notes the close (a launch not yet sent stops), then enqueues the cancellation of its scan. */
export const onPullRequestClosed: EventHandler<ClosedEvent> = async (deps, context, installationId) => {
  const { payload } = context;
  const data: PullClosedJobData = {
    deliveryId: context.id,
    ...repoContext(payload, installationId),
    pullNumber: payload.pull_request.number,
    headSha: payload.pull_request.head.sha,
    updatedAt: payload.pull_request.updated_at,
  };
  if (data.updatedAt)
    await deps.closes?.noteClose(pullKey(data.owner, data.repo, data.pullNumber), data.updatedAt);
  await enqueueEvent(deps, "pullClosed", data, jobId("closed", context.id));
};
