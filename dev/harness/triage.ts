/**
 * Helpers that play a person writing a slash command against the dev harness (demo, tests): the comment is
 * added to the GitHub stand-in (so diffward can react to it and reply) and the real webhook payload from
 * `@octokit/webhooks-examples` is sent, signed, with its ids pointing at diffward's comments.
 */
import type { Harness } from "./harness.js";
import { webhookExample } from "./examples.js";
import { parseFindingMarker } from "../../src/render/inline-comment.js";

/** Where a command is written. */
export interface PullTarget {
  owner: string;
  repo: string;
  pullNumber: number;
}

/** A webhook payload edited in place (`@octokit/webhooks-examples` objects are loosely typed). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a raw webhook payload
type Payload = any;

function userOf(h: Harness, login: string, type: "User" | "Bot") {
  return { login, type, id: h.github.state.userId(login) };
}

/**
 * Writes a reply in the review thread of comment `parentId` as `login` and returns the
 * `pull_request_review_comment.created` payload announcing it (send it with `h.send`).
 */
export function writeReviewReply(
  h: Harness,
  at: PullTarget & { parentId: number; login: string; body: string; type?: "User" | "Bot" },
): Payload {
  const state = h.github.state;
  const parent = state.reviewComments(at.owner, at.repo).find((c) => c.id === at.parentId);
  if (!parent) throw new Error(`no review comment ${at.parentId} in ${at.owner}/${at.repo}`);
  const now = new Date().toISOString();
  const user = userOf(h, at.login, at.type ?? "User");
  const id = state.newId();
  state.reviewComments(at.owner, at.repo).push({
    ...parent,
    id,
    inReplyToId: parent.id,
    body: at.body,
    createdAt: now,
    updatedAt: now,
    user,
  });
  const p: Payload = webhookExample("pull_request_review_comment", "created");
  p.repository.owner.login = at.owner;
  p.repository.name = at.repo;
  p.pull_request.number = at.pullNumber;
  p.installation.id = state.repository(at.owner, at.repo)?.installationId ?? p.installation.id;
  Object.assign(p.comment, { id, in_reply_to_id: parent.id, body: at.body, path: parent.path });
  p.comment.user = { ...p.comment.user, login: at.login, type: user.type, id: user.id };
  p.sender = { ...p.sender, login: at.login, type: user.type, id: user.id };
  return p;
}

/**
 * Writes a conversation comment on the pull request as `login` and returns the `issue_comment.created`
 * payload announcing it (with `issue.pull_request` set, as GitHub sends for pull requests).
 */
export function writeConversationComment(
  h: Harness,
  at: PullTarget & { login: string; body: string; type?: "User" | "Bot" },
): Payload {
  const state = h.github.state;
  const now = new Date().toISOString();
  const user = userOf(h, at.login, at.type ?? "User");
  const id = state.newId();
  state.issueComments(at.owner, at.repo).push({
    id,
    issueNumber: at.pullNumber,
    body: at.body,
    createdAt: now,
    updatedAt: now,
    user,
  });
  const p: Payload = webhookExample("issue_comment", "created");
  p.repository.owner.login = at.owner;
  p.repository.name = at.repo;
  p.issue.number = at.pullNumber;
  p.issue.pull_request = {
    url: `https://api.github.com/repos/${at.owner}/${at.repo}/pulls/${at.pullNumber}`,
  };
  p.installation.id = state.repository(at.owner, at.repo)?.installationId ?? p.installation.id;
  Object.assign(p.comment, { id, body: at.body });
  p.comment.user = { ...p.comment.user, login: at.login, type: user.type, id: user.id };
  p.sender = { ...p.sender, login: at.login, type: user.type, id: user.id };
  return p;
}

/** diffward's finding comments on a pull request (top-level review comments carrying the marker). */
export function findingComments(h: Harness, at: PullTarget) {
  return h.github.state
    .reviewComments(at.owner, at.repo, at.pullNumber)
    .filter((c) => c.inReplyToId === null && parseFindingMarker(c.body) !== undefined)
    .map((c) => ({ id: c.id, findingId: parseFindingMarker(c.body)!.id, body: c.body, path: c.path }));
}

/**
 * Replies `body` as `login` under comment `parentId`, sends the webhook, and waits (up to 20 s; `what`
 * names the wait in the timeout error) for diffward's answer in that thread, which it returns.
 */
async function replyAndAwait(
  h: Harness,
  at: PullTarget,
  parentId: number,
  login: string,
  body: string,
  what: string,
) {
  const payload = writeReviewReply(h, { ...at, parentId, login, body });
  await h.send("pull_request_review_comment", payload);
  return h.waitFor(
    () =>
      h.github.state
        .reviewComments(at.owner, at.repo, at.pullNumber)
        .find((c) => c.inReplyToId === parentId && c.user.type === "Bot" && c.id > payload.comment.id),
    20_000,
    what,
  );
}

/** What {@link demoReplyCommand} showed. */
export interface DemoReplyResult {
  command: string;
  login: string;
  findingId: string;
  /** diffward's finding comment before and after the command */
  commentBefore: string;
  commentAfter: string;
  /** diffward's answer in the thread */
  answer: string;
  /** the check run's conclusion after the command */
  conclusion: string | null;
  resolutionStatus: string | undefined;
}

/**
 * Shows one reply command end to end on a reported pull request: `login` (given `write` permission)
 * replies `command` (default `/fp not_reachable`) to diffward's first finding comment, and the function
 * waits for diffward's answer in the thread. For `npm run demo` and its HTML page.
 * @throws Error when the pull request has no finding comment or diffward does not answer within 20 s.
 */
export async function demoReplyCommand(
  h: Harness,
  at: PullTarget & { login?: string; command?: string; findingId?: string },
): Promise<DemoReplyResult> {
  const login = at.login ?? "octo-reviewer";
  const command = at.command ?? "/fp not_reachable";
  const comments = findingComments(h, at);
  const target = at.findingId ? comments.find((c) => c.findingId === at.findingId) : comments[0];
  if (!target) throw new Error("the pull request has no diffward finding comment to reply to");
  h.github.state.setPermission(at.owner, at.repo, login, "write");
  const answer = await replyAndAwait(
    h,
    at,
    target.id,
    login,
    command,
    "diffward's answer to the reply command",
  );
  const after = h.github.state.reviewComments(at.owner, at.repo).find((c) => c.id === target.id)!;
  const checks = h.github.state.checkRuns(at.owner, at.repo);
  return {
    command,
    login,
    findingId: target.findingId,
    commentBefore: target.body,
    commentAfter: after.body,
    answer: answer.body,
    conclusion: checks[checks.length - 1]?.conclusion ?? null,
    resolutionStatus: h.sandbox.state.findings.get(target.findingId)?.resolutionStatus,
  };
}

/** The `triage.approval` block the demo turns on (two-person dismissals). */
export const DEMO_APPROVAL_CONFIG = "triage:\n  approval:\n    minSeverity: high\n    approvers: maintain";

/** What {@link demoApproval} showed. */
export interface DemoApprovalResult {
  findingId: string;
  severity: string;
  requester: string;
  approver: string;
  command: string;
  /** diffward's answer to the requester, and the finding's resolution on the service right after it */
  heldAnswer: string;
  statusWhileHeld: string | undefined;
  /** the finding comment while the request is pending */
  commentWhileHeld: string;
  /** diffward's answer to the approver, and the finding's resolution after it */
  approvedAnswer: string;
  statusAfter: string | undefined;
}

/**
 * Shows a two-person dismissal on a reported pull request: turns `triage.approval` on in the repository's
 * `.github/diffward.yml` (default branch; `baseConfig` is the rest of the file), then `requester` (`write`)
 * replies `command` (default `/wontfix risk_accepted`) to the comment of an open HIGH or CRITICAL finding,
 * which diffward holds; `approver` (`maintain`) replies `/approve` in the same thread, which sets it.
 * For `npm run demo` and its test.
 * @throws Error when no open HIGH/CRITICAL finding has a comment, or diffward does not answer within 20 s.
 */
export async function demoApproval(
  h: Harness,
  at: PullTarget & {
    defaultBranch: string;
    baseConfig: (extra: string) => string;
    requester?: string;
    approver?: string;
    command?: string;
  },
): Promise<DemoApprovalResult> {
  const requester = at.requester ?? "octo-reviewer";
  const approver = at.approver ?? "octo-lead";
  const command = at.command ?? "/wontfix risk_accepted";
  h.github.state.setFile(
    at.owner,
    at.repo,
    at.defaultBranch,
    ".github/diffward.yml",
    at.baseConfig(DEMO_APPROVAL_CONFIG),
  );
  h.github.state.setPermission(at.owner, at.repo, requester, "write");
  h.github.state.setPermission(at.owner, at.repo, approver, "maintain");
  const finding = (id: string) => h.sandbox.state.findings.get(id);
  const target = findingComments(h, at).find((c) => {
    const f = finding(c.findingId);
    return f && (f.severity === "HIGH" || f.severity === "CRITICAL") && f.resolutionStatus === "NOT_STARTED";
  });
  if (!target) throw new Error("no open HIGH or CRITICAL finding with a diffward comment to dismiss");
  const answerTo = async (login: string, body: string) =>
    (await replyAndAwait(h, at, target.id, login, body, `diffward's answer to ${body}`)).body;
  const heldAnswer = await answerTo(requester, command);
  const statusWhileHeld = finding(target.findingId)?.resolutionStatus;
  // the answer is posted right after the comment is refreshed: the pending request is on it already
  const commentWhileHeld = h.github.state
    .reviewComments(at.owner, at.repo)
    .find((c) => c.id === target.id)!.body;
  const approvedAnswer = await answerTo(approver, "/approve");
  return {
    findingId: target.findingId,
    severity: finding(target.findingId)?.severity ?? "?",
    requester,
    approver,
    command,
    heldAnswer,
    statusWhileHeld,
    commentWhileHeld,
    approvedAnswer,
    statusAfter: finding(target.findingId)?.resolutionStatus,
  };
}
