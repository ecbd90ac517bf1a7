import type { FindingCommentOptions } from "../../render/inline-comment.js";
import type { Note } from "../../scanner/schemas.js";
import type { ApprovalRequest } from "../../domain/dismissal-approval.js";

/**
 * What a finding comment shows beyond the finding, for the report and the command job alike:
 * the service's notes only with `disclosure: full` (author name and date, never the e-mail), and the
 * pending approval request of the finding, if any. Pure.
 */
export function findingCommentOptions(input: {
  labelPrefix: string;
  /** the service's public web address: links to it in finding text stay links */
  publicUrl?: string | undefined;
  disclosure: "full" | "summary";
  notes?: readonly Note[];
  pending?: ApprovalRequest;
  decision?: FindingCommentOptions["decision"];
}): FindingCommentOptions {
  const p = input.pending;
  return {
    labelPrefix: input.labelPrefix,
    publicUrl: input.publicUrl,
    ...(input.decision ? { decision: input.decision } : {}),
    ...(input.disclosure === "full" && input.notes?.length
      ? {
          notes: input.notes.map((n) => ({
            body: n.body,
            createdAt: n.createdAt,
            authorName: n.author.name,
          })),
        }
      : {}),
    ...(p
      ? {
          pendingApproval: {
            resolutionStatus: p.resolutionStatus,
            ...((p.reason ?? p.reasonCode) ? { reason: (p.reason ?? p.reasonCode)! } : {}),
            requestedBy: p.requestedBy,
            requestedAt: p.requestedAt,
            approvers: p.approvers,
          },
        }
      : {}),
  };
}
