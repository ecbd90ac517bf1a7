/**
 * `/approve` and `/reject`: the second person of a two-person dismissal (`triage.approval` in
 * `.github/diffward.yml`; rules in `src/domain/dismissal-approval.ts`; README "Triage from the pull request").
 *
 * - `/approve [text]` (reply in the finding's thread, or `/diffward approve <label>`): a user other than
 *   the requester, at or above `approvers` (the stricter of the role recorded in the request and the one
 *   configured now), applies the held dismissal: exactly one `PATCH …/findings/{findingId}/resolution` (spec
 *   §Findings) with the requested status and its reason code or note, and a note naming both people; then the
 *   decision is remembered, the comment, thread, code scanning alert and check run follow, as for a direct
 *   dismissal. A severity raise above the request's severity invalidates it (it is dropped, nothing set).
 *   With `triage.approval.codeowners` (now, or when the dismissal was held), the approver must also be a code
 *   owner of the finding's file, read from the base branch's CODEOWNERS at the moment
 *   (`src/domain/code-owner-approval.ts`); a refusal names the file's owners.
 * - `/reject` drops the request; nothing is sent to the service. Who may reject: the requester (withdrawing
 *   their own request) or anyone who could approve it (at or above `approvers`); others are refused.
 *
 * Two approvals of one request never both apply it: the request is claimed by one command comment first
 * (`claim` in the store); a redelivered comment runs once (the command job's claim of the comment).
 */
import { z } from "zod";
import {
  approverFloor,
  checkApproval,
  requestFor,
  type ApprovalRequest,
} from "../../domain/dismissal-approval.js";
import { fingerprint, identityOf } from "../../domain/identity.js";
import { permissionAtLeast, type MinPermission } from "../../config/repo-config.js";
import { who } from "../../render/command-answers.js";
import { approvedByOwnerSentence, notOwnerSentence } from "../../render/code-owner-sentences.js";
import { inlineCode } from "../../render/escape.js";
import { severityName, statusName } from "../../render/glossary.js";
import type { ResolutionStatus } from "../../scanner/catalog.js";
import { findingLabel } from "../../scanner/labels.js";
import type { Decision } from "../../domain/decision.js";
import {
  capped,
  finding,
  joinText,
  needsPermission,
  noteText,
  unexpected,
  type VerbArgs,
} from "../verb-parts.js";
import type { ErrorCommand } from "../verb-parts.js";
import { answerOnly, appliedOr, defineVerb, targetOf, VERB_NEEDS, writeFindingOnce } from "../verb-module.js";
import type { CommandAudit, CommandIO, CommandOutcome, FindingIdentity, VerbInput } from "../verb-module.js";
import { checkSentence, requestedChange, untilSentence } from "./resolution.js";
import { acceptanceLine, expiryText } from "../../domain/acceptance.js";
import { codeOwnersAudit } from "../../domain/code-owner-approval.js";
import type { CodeOwnership, CodeOwnershipRead } from "../../domain/code-owner-approval.js";
import { parseLocation } from "../../domain/location.js";

/** `/approve [text]` or `/reject` of a finding's pending dismissal request. */
export const ApprovalCommand = z.object({
  kind: z.literal("approval"),
  verb: z.enum(["approve", "reject"]),
  ...needsPermission,
  ...finding,
  /** the approver's own words, added to the note naming both people (`/approve` only) */
  note: noteText.optional(),
});
export type ApprovalCommand = z.infer<typeof ApprovalCommand>;

function parseApproval(a: VerbArgs): ApprovalCommand | ErrorCommand {
  const verb = a.verb === "reject" ? "reject" : "approve";
  const base: ApprovalCommand = {
    kind: "approval",
    verb,
    requiresPermission: true,
    ...(a.ref ? { ref: a.ref } : {}),
  };
  if (verb === "reject") return a.args.trim() ? unexpected(verb, a.args.trim(), a.syntax) : base;
  const text = joinText(a.args, a.rest);
  if (!text) return base;
  return capped(verb, text) ?? { ...base, note: text };
}

/**
 * What `/approve` and `/reject` read: the commenter's role, the finding's pending request, and, when code
 * owners approve (`triage.approval.codeowners`, now or when requested), the file's owners read now and
 * whether the commenter is one.
 */
export interface ApprovalFacts {
  role: string;
  request?: ApprovalRequest;
  codeOwners?: CodeOwnershipRead;
}

/** An approved dismissal: what is sent to the service and remembered. */
export interface ApprovePlan {
  kind: "approve";
  request: ApprovalRequest;
  identity: FindingIdentity;
  /** the body of the ONE `PATCH …/resolution` */
  resolution: { resolutionStatus: ResolutionStatus; reason?: string; note?: { content: string } };
  /** the note naming both people (`POST …/notes`) when the resolution carries none */
  note?: string;
  decision: Decision;
  /** `codeScanning.upload` is on: the finding's alert is dismissed too (README "GitHub code scanning") */
  alert: boolean;
  summary: string;
  /** the code owners of the finding's file read for this decision (for the audit trail) */
  codeOwners?: CodeOwnership;
}

/** The plan of `/approve` or `/reject`. */
export type ApprovalPlan =
  | ApprovePlan
  /** `codeOwners`: the owners a refusal named (for the audit trail) */
  | { kind: "answer"; answer: string; codeOwners?: CodeOwnership }
  /** the request is dropped (rejected, or invalidated by a severity raise); nothing is sent to the service */
  | { kind: "drop"; identity: FindingIdentity; request: ApprovalRequest; answer: string };

/**
 * Plans `/approve` or `/reject` (pure) from the finding's pending request and the commenter's role. See
 * the module comment for the rules.
 */
export function planApproval(input: VerbInput<ApprovalCommand>, facts: ApprovalFacts): ApprovalPlan {
  const { cmd, sender } = input;
  const detail = targetOf(input).detail;
  const label = inlineCode(findingLabel(detail.id, input.labelPrefix));
  const r = facts.request;
  if (!r)
    return {
      kind: "answer",
      answer: `No dismissal of ${label} is awaiting approval, so there is nothing to ${cmd.verb}; nothing was changed.`,
    };
  const identity = { id: detail.id, fingerprint: fingerprint(detail) };
  const configured = input.config?.triage.approval?.approvers;
  const floor = approverFloor(r, configured);
  const asked = `the ${statusName(r.resolutionStatus)} dismissal ${who(r.requestedBy)} asked for`;

  if (cmd.verb === "reject") return planReject(input, facts.role, { r, identity, label, floor, asked });
  const check = checkApproval(r, {
    login: sender,
    role: facts.role,
    severity: detail.severity,
    ...(configured ? { approvers: configured } : {}),
    codeOwners: { configured: input.config?.triage.approval?.codeowners === true, ...facts.codeOwners },
  });
  if (!check.ok) {
    if (check.why === "self")
      return {
        kind: "answer",
        answer:
          `You asked for this dismissal, ${who(sender)}, so you cannot approve it too: a different user with the ` +
          `${inlineCode(floor)} role or above must (\`triage.approval\`). Nothing was changed.`,
      };
    if (check.why === "below")
      return {
        kind: "answer",
        answer:
          `Approving ${asked} on ${label} needs the ${inlineCode(check.approvers)} role or above on this repository ` +
          `(you have ${inlineCode(check.role)}), so nothing was changed.`,
      };
    if (check.why === "not-owner")
      return {
        kind: "answer",
        answer: `Approving ${asked} on ${label} needs ${notOwnerSentence(check, sender)}`,
        ...(facts.codeOwners ? { codeOwners: facts.codeOwners.ownership } : {}),
      };
    return {
      kind: "drop",
      identity,
      request: r,
      answer:
        `${label} is now **${severityName(check.to)}**, above the ${severityName(check.from)} it had when ` +
        `${who(r.requestedBy)} asked for the ${statusName(r.resolutionStatus)} dismissal, so that request no longer ` +
        `holds and was dropped. Nothing was changed; dismiss the finding again if it is still right.`,
    };
  }

  if (r.expiresAt && Date.parse(r.expiresAt) <= input.now)
    return {
      kind: "drop",
      identity,
      request: r,
      answer:
        `Expired before approval: ${asked} on ${label} was to last until ${expiryText(r.expiresAt)}, which has passed, so the request was ` +
        "dropped and nothing was changed. Dismiss the finding again with a later expiry if it is still right.",
    };
  return planApproved(input, r, {
    identity,
    label,
    ...(facts.codeOwners ? { codeOwners: facts.codeOwners } : {}),
  });
}

/** What the approval plans share about the pending request. */
interface PendingFacts {
  r: ApprovalRequest;
  identity: Extract<ApprovalPlan, { kind: "drop" }>["identity"];
  /** the finding's label, as inline code */
  label: string;
  /** the least role that may approve it */
  floor: MinPermission;
  /** "the <status> dismissal <who> asked for" */
  asked: string;
}

/** `/reject`: the requester withdraws it, or a user at or above the approvers' floor rejects it. Pure. */
function planReject(input: VerbInput<ApprovalCommand>, role: string, p: PendingFacts): ApprovalPlan {
  const { r, identity, label, floor, asked } = p;
  const detail = targetOf(input).detail;
  const own = r.requestedBy.toLowerCase() === input.sender.toLowerCase();
  if (!own && !permissionAtLeast(role, floor))
    return {
      kind: "answer",
      answer:
        `Only ${who(r.requestedBy)} (who asked) or a user with the ${inlineCode(floor)} role or above can reject ` +
        `${asked} on ${label} (you have ${inlineCode(role)}), so nothing was changed.`,
    };
  return {
    kind: "drop",
    identity,
    request: r,
    answer:
      `${own ? "Withdrawn" : "Rejected"}: ${asked} on ${label} is dropped. The finding stays ` +
      `**${statusName(detail.resolutionStatus)}** on the scanning service and the check is unchanged.`,
  };
}

/**
 * `/approve` that passed its checks: the resolution with the requester's note (or reason), who asked and
 * who approved, the decision to record, and the answer. Pure.
 */
function planApproved(
  input: VerbInput<ApprovalCommand>,
  r: ApprovalRequest,
  p: Pick<PendingFacts, "identity" | "label"> & { codeOwners?: CodeOwnershipRead },
): ApprovalPlan {
  const { cmd, sender, pull } = input;
  const detail = targetOf(input).detail;
  const { identity, label } = p;
  const reasonCode = r.reason ?? r.reasonCode;
  const people = `requested by GitHub user @${r.requestedBy} and approved by GitHub user @${sender} via diffward (${pull.owner}/${pull.repo}#${pull.pullNumber})`;
  // an expiry asked with the dismissal is kept: in the note's parseable line and in the decision
  const line = r.expiresAt ? `\n\n${acceptanceLine(r.expiresAt, r.requestedBy)}` : "";
  const approverWords = `${cmd.note ? `\n\nApprover's note: ${cmd.note}` : ""}${line}`;
  const resolution: ApprovePlan["resolution"] = { resolutionStatus: r.resolutionStatus };
  let note: string | undefined;
  if (r.note) {
    resolution.note = { content: `${r.note.trim()}${approverWords}\n\n— ${people}` };
  } else {
    if (r.reason) resolution.reason = r.reason;
    const why = r.reason ? ` (reason \`${r.reason}\`)` : "";
    note = `${statusName(r.resolutionStatus)}${why}: dismissal ${people}.${approverWords}`;
  }
  return {
    kind: "approve",
    request: r,
    identity,
    resolution,
    ...(note ? { note } : {}),
    decision: {
      findingId: detail.id,
      ...identityOf(detail),
      severity: detail.severity,
      resolutionStatus: r.resolutionStatus,
      ...(reasonCode ? { reason: reasonCode } : {}),
      ...(r.note ? { note: r.note } : {}),
      by: r.requestedBy,
      approvedBy: sender,
      at: new Date(input.now).toISOString(),
      ...(r.expiresAt ? { expiresAt: r.expiresAt } : {}),
    },
    alert: input.config?.codeScanning.upload === true,
    summary:
      `${label} is now **${statusName(r.resolutionStatus)}**${reasonCode ? ` with reason ${inlineCode(reasonCode)}` : ""}: ` +
      `requested by ${who(r.requestedBy)}, approved by ${who(sender)}.` +
      (r.expiresAt ? ` ${untilSentence(r.expiresAt, r.requestedBy)}` : "") +
      approvedByOwnerSentence(p.codeOwners),
    ...(p.codeOwners ? { codeOwners: p.codeOwners.ownership } : {}),
  };
}

/** `/approve` and `/reject` (rows of the verb table). */
export const approvalVerb = defineVerb(ApprovalCommand, VERB_NEEDS.approval, {
  parse: parseApproval,
  describe: (cmd) => (cmd.verb === "approve" ? "approve the dismissal" : "reject the dismissal"),
  async read(io, input) {
    const detail = targetOf(input).detail;
    const [role, requests] = await Promise.all([io.senderPermission(), io.approvals.list()]);
    const request = requestFor(requests, { id: detail.id, fingerprint: fingerprint(detail) });
    const codeOwners = needsCodeOwners(input, request, role)
      ? await io.codeOwnership(parseLocation(detail.location)?.path, input.sender)
      : undefined;
    return { role, ...(request ? { request } : {}), ...(codeOwners ? { codeOwners } : {}) };
  },
  plan: planApproval,
  async apply(io, plan, input) {
    if (plan.kind === "answer") return answerOnly(io, plan);
    if (plan.kind === "drop") {
      await io.approvals.drop(plan.identity);
      await io.refreshFindingComment(targetOf(input));
      io.log.info({ finding: plan.identity.id, verb: input.cmd.verb }, "approval request dropped");
      await io.answer(plan.answer);
      return "changed";
    }
    return applyApproval(io, plan, input);
  },
  audit: { action: (verb) => (verb === "reject" ? "reject" : "approve"), entry: auditApproval },
});

/**
 * The audit entry of `/approve` or `/reject` (pure). For a request it decided, `actor` is who asked for the
 * dismissal and `approver` who approved or rejected it (none when the requester withdrew it), `to` the
 * requested status with its reason and end; a refusal names the commenter only. An approval whose request a
 * severity raise invalidated is a refused `approve`.
 */
export function auditApproval(
  plan: ApprovalPlan,
  input: VerbInput<ApprovalCommand>,
  outcome: CommandOutcome,
): CommandAudit {
  const action = input.cmd.verb;
  const from = targetOf(input).detail.resolutionStatus;
  const consulted = plan.kind === "drop" ? undefined : plan.codeOwners;
  if (plan.kind === "answer") return { action, outcome: "refused", from, ...codeOwnersAudit(consulted) };
  const r = plan.request;
  const own = r.requestedBy.toLowerCase() === input.sender.toLowerCase();
  return {
    action,
    outcome: plan.kind === "drop" && action === "approve" ? "refused" : appliedOr(outcome),
    actor: r.requestedBy,
    ...(own ? {} : { approver: input.sender }),
    from,
    ...requestedChange(r),
    ...codeOwnersAudit(consulted),
  };
}

/**
 * Whether `/approve` must read the code owners (pure): a request is pending, held under
 * `triage.approval.codeowners` or with it on now, and the commenter passed the checks that come first
 * (not the requester, at or above the approvers' role); no GitHub read is spent on a refusal decided anyway.
 */
function needsCodeOwners(
  input: VerbInput<ApprovalCommand>,
  r: ApprovalRequest | undefined,
  role: string,
): boolean {
  if (!r || input.cmd.verb !== "approve") return false;
  const approval = input.config?.triage.approval;
  if (!(r.codeowners || approval?.codeowners)) return false;
  if (r.requestedBy.toLowerCase() === input.sender.toLowerCase()) return false;
  return permissionAtLeast(role, approverFloor(r, approval?.approvers));
}

/**
 * Claims the request for this comment, sends the ONE `PATCH …/resolution` (skipped when the finding already
 * has the status) and the note naming both people, each once whatever the job's retries (`CommandIO.once`),
 * then reflects the decision like a direct dismissal.
 * A failure before the service accepted the change releases the claim (another approval may try).
 */
async function applyApproval(
  io: CommandIO,
  plan: ApprovePlan,
  input: VerbInput<ApprovalCommand>,
): Promise<CommandOutcome> {
  const target = targetOf(input);
  const label = inlineCode(findingLabel(plan.identity.id, input.labelPrefix));
  const claim = await io.approvals.claim(plan.identity);
  if (claim.kind === "none") {
    await io.answer(
      `The dismissal of ${label} is no longer awaiting approval (decided or rejected meanwhile); nothing was changed.`,
    );
    return "answered";
  }
  if (claim.kind === "busy") {
    await io.answer(
      `${who(claim.by)} is approving the dismissal of ${label} already; nothing more was changed.`,
    );
    return "answered";
  }
  if (
    claim.request.requestedAt !== plan.request.requestedAt ||
    claim.request.resolutionStatus !== plan.request.resolutionStatus
  ) {
    await io.approvals.release(plan.identity);
    await io.answer(
      `The request on ${label} changed while you approved it; nothing was changed. Read it again and approve once more.`,
    );
    return "answered";
  }
  let written = false;
  try {
    // each write once (`once`), so a run after a busy lock or a 5xx neither repeats nor loses one; the
    // writes and the decision under the pull request's lock: an expiry never lands between them
    await io.decide(plan.decision, async () => {
      if (target.detail.resolutionStatus !== plan.resolution.resolutionStatus)
        await writeFindingOnce(io, input, plan.identity.id, {
          step: "resolution",
          resolution: plan.resolution,
        });
      if (plan.note) await writeFindingOnce(io, input, plan.identity.id, { step: "note", note: plan.note });
      written = true;
    });
  } catch (error) {
    if (!written) await io.approvals.release(plan.identity);
    throw error;
  }
  await io.approvals.drop(plan.identity);
  await io.refreshFindingComment(target);
  if (target.commentId !== undefined) await io.setThreadResolved(target.commentId, true);
  if (plan.alert) await io.syncCodeScanningAlert(plan.decision);
  const verdict = await io.recomputeCheck();
  io.log.info(
    {
      finding: plan.identity.id,
      status: plan.resolution.resolutionStatus,
      requestedBy: plan.request.requestedBy,
    },
    "dismissal approved",
  );
  await io.answer(`${plan.summary}${checkSentence(verdict)}`);
  return "changed";
}
