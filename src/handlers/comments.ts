import { findCommandLine } from "../commands/parse.js";
import { jobId } from "../runtime/names.js";
import type { CommandJobData } from "../job-catalogue/index.js";
import type { EventHandler, HandlerDeps } from "./deps.js";
import { enqueueEvent, repoContext } from "./deps.js";

interface Actor {
  login: string;
  type?: string;
}

/** Bots, diffward itself included, never give commands (`type: "Bot"` or a login ending in `[bot]`). */
export function isBot(actor: Actor | null | undefined): boolean {
  if (!actor) return true;
  return actor.type === "Bot" || /\[bot\]$/i.test(actor.login);
}

/** True when the comment's first meaningful line (outside quotes and code) starts with `/`. */
export function looksLikeCommand(body: string | null | undefined): boolean {
  return typeof body === "string" && (findCommandLine(body)?.line.startsWith("/") ?? false);
}

/** A new comment in a review thread (GitHub "Webhook events and payloads", `pull_request_review_comment`). */
type ReplyEvent = "pull_request_review_comment.created";

/** A new comment in an issue's or a pull request's conversation (GitHub "Webhook events", `issue_comment`). */
type ConversationEvent = "issue_comment.created";

async function enqueue(deps: HandlerDeps, deliveryId: string, data: CommandJobData): Promise<void> {
  await enqueueEvent(deps, "command", data, jobId("cmd", deliveryId));
}

/**
 * `pull_request_review_comment.created`: a reply (`in_reply_to_id`) whose first line is a `/command`, by a
 * person, becomes one `command` job (reply form). Whether the thread is diffward's is checked in the job.
 * Edited and deleted comments are not subscribed to: they change nothing.
 */
export const onReviewCommentCreated: EventHandler<ReplyEvent> = async (deps, context, installationId) => {
  const { payload } = context;
  const comment = payload.comment;
  if (!comment.in_reply_to_id) return;
  if (isBot(payload.sender) || isBot(comment.user)) return;
  if (!looksLikeCommand(comment.body)) return;
  await enqueue(deps, context.id, {
    deliveryId: context.id,
    form: "reply",
    ...repoContext(payload, installationId),
    pullNumber: payload.pull_request.number,
    commentId: comment.id,
    inReplyToId: comment.in_reply_to_id,
    body: comment.body,
    senderLogin: payload.sender.login,
  });
};

/**
 * `issue_comment.created` on a pull request: a `/diffward …` comment by a person becomes one `command`
 * job (conversation form). Comments on plain issues are ignored.
 */
export const onIssueCommentCreated: EventHandler<ConversationEvent> = async (
  deps,
  context,
  installationId,
) => {
  const { payload } = context;
  if (!payload.issue.pull_request) return;
  if (isBot(payload.sender) || isBot(payload.comment.user)) return;
  if (!looksLikeCommand(payload.comment.body)) return;
  await enqueue(deps, context.id, {
    deliveryId: context.id,
    form: "conversation",
    ...repoContext(payload, installationId),
    pullNumber: payload.issue.number,
    commentId: payload.comment.id,
    body: payload.comment.body,
    senderLogin: payload.sender.login,
  });
};
