/**
 * A decision, reflected on GitHub: diffward's comment of the finding re-rendered with its current state
 * and the stored decision, and the finding's review thread resolved or reopened.
 */
import type { Logger } from "pino";
import type { ReportFinding } from "../domain/finding-types.js";
import { getReviewComment } from "../github/reviews.js";
import { findReviewThread } from "../github/threads.js";
import type { InstallationOctokit } from "../github/octokit-types.js";
import type { ApplyWrites } from "../github/writes.js";
import { renderFindingComment } from "../render/inline-comment.js";
import type { FindingDetail } from "../scanner/schemas.js";
import type { ScannerTenant } from "../tenants/index.js";
import type { Decision } from "../domain/decision.js";
import type { ApprovalRequest } from "../domain/dismissal-approval.js";
import { findingCommentOptions } from "../report/decide/finding-comment.js";

type PullRef = { owner: string; repo: string; pullNumber: number };

/** A finding's detail (spec §Finding (detail) adds) as the comment renderer sees it. */
export function detailToReportFinding(detail: FindingDetail): ReportFinding {
  return {
    id: detail.id,
    displayId: detail.displayId,
    title: detail.title,
    location: detail.location,
    severity: detail.severity,
    category: detail.category,
    triageStatus: detail.triageStatus,
    confirmationEvidence: detail.confirmationEvidence ?? null,
    resolutionStatus: detail.resolutionStatus,
    notesCount: detail.notesCount,
    description: detail.description,
    recommendedFix: detail.recommendedFix ?? null,
    pocReport: detail.pocReport ?? null,
  };
}

/** What a refreshed finding comment shows beyond the finding. */
export interface CommentContext {
  /** the effective disclosure: the service's notes are shown with `full` only */
  disclosure: "full" | "summary";
  /** the pending approval request of the finding, if any */
  pending?: ApprovalRequest;
}

/**
 * Re-reads the finding from the service (`GET …/findings/{findingId}`) and, when diffward has a comment
 * of it on the pull request, re-renders that comment with the current state, the stored decision, the
 * service's notes (`disclosure: full`) and a pending approval request (GitHub REST "Update a review
 * comment", a planned write applied with `apply`; skipped when the body is unchanged).
 * Links to `publicUrl` (`SCANNER_PUBLIC_URL`) in the finding text stay links.
 * @returns the finding as the service has it now.
 */
export async function refreshFindingComment(
  octokit: InstallationOctokit,
  apply: ApplyWrites,
  tenant: ScannerTenant,
  pull: PullRef,
  target: { detail: FindingDetail; commentId?: number },
  decisions: () => Promise<Decision[]>,
  labelPrefix: string,
  publicUrl?: string,
  context: (detail: FindingDetail) => Promise<CommentContext> = async () => ({ disclosure: "full" }),
): Promise<ReportFinding> {
  const detail = await tenant.client.getFinding(tenant.projectId, target.detail.id);
  const plain = detailToReportFinding(detail);
  if (target.commentId === undefined) return plain;
  const decision = (await decisions()).find((x) => x.findingId === plain.id);
  // a decision carried by fingerprint or shape says so on the finding (src/domain/identity.ts)
  const f: ReportFinding =
    decision?.carriedFrom && (decision.carriedBy === "fingerprint" || decision.carriedBy === "recurring")
      ? { ...plain, matchedTo: { findingId: decision.carriedFrom, by: decision.carriedBy } }
      : plain;
  const ctx = await context(detail);
  const body = renderFindingComment(
    f,
    findingCommentOptions({
      labelPrefix,
      publicUrl,
      disclosure: ctx.disclosure,
      notes: detail.notes,
      ...(ctx.pending ? { pending: ctx.pending } : {}),
      ...(decision
        ? {
            decision: {
              resolutionStatus: decision.resolutionStatus,
              ...(decision.reason ? { reason: decision.reason } : {}),
              ...(decision.note ? { note: decision.note } : {}),
              by: decision.by,
              ...(decision.approvedBy ? { approvedBy: decision.approvedBy } : {}),
              at: decision.at,
              ...(decision.expiresAt ? { expiresAt: decision.expiresAt } : {}),
            },
          }
        : {}),
    }),
  );
  const existing = await getReviewComment(octokit, pull, target.commentId);
  if (existing && existing.body !== body)
    await apply([
      { kind: "update-review-comment", repo: pull, commentId: target.commentId, body, purpose: "answer" },
    ]);
  return f;
}

/**
 * Resolves (`resolved: true`) or reopens the review thread of a comment (GitHub GraphQL
 * `resolveReviewThread`/`unresolveReviewThread`, a planned write applied with `apply`); never fatal: a failure
 * is logged and ignored.
 */
export async function setThreadResolved(
  octokit: InstallationOctokit,
  apply: ApplyWrites,
  pull: PullRef,
  commentId: number,
  resolved: boolean,
  log: Logger,
): Promise<void> {
  try {
    const thread = await findReviewThread(octokit, pull, commentId);
    if (!thread) {
      log.warn({ commentId }, "review thread not found");
      return;
    }
    if (thread.isResolved !== resolved)
      await apply([{ kind: "set-review-thread-resolved", threadId: thread.id, resolved, purpose: "answer" }]);
  } catch (error) {
    log.warn({ err: error, resolved }, "could not change the review thread: ignored");
  }
}
