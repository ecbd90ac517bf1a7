/**
 * Two-person dismissals (README "Triage from the pull request"), the pure rules: with `triage.approval` set,
 * a dismissal (any resolution that stops a finding from blocking, {@link isDismissal}) of a finding at or
 * above `minSeverity` by a user below `approvers` is held as an approval request instead of being sent to the
 * service; a different user at or above `approvers` approves it (exactly one
 * `PATCH …/findings/{findingId}/resolution`) or it is rejected. Requests are keyed to the finding's identity (id,
 * then fingerprint: ./identity.ts) and survive pushes; a severity raise above the request's severity
 * invalidates it. Modelled on GitHub's delegated alert dismissal
 * (https://docs.github.com/en/code-security/code-scanning/managing-your-code-scanning-configuration/enabling-delegated-alert-dismissal-for-code-scanning).
 * The store is `src/triage/approvals.ts`.
 */
import { z } from "zod";
import { MinPermission, permissionAtLeast, type ApprovalConfig } from "../config/repo-config.js";
import { RESOLUTION_STATUSES, type ResolutionStatus, type Severity } from "../scanner/catalog.js";
import { identityOf, storedIdentity, type FingerprintInput } from "./identity.js";
import { STORED_RESOLUTION_FIELDS } from "./resolution.js";
import { atLeast, OPEN_RESOLUTIONS, severityRank } from "./verdict.js";
import { matchFindings } from "./identity.js";
import {
  checkCodeOwner,
  CodeOwnership,
  type ApproverOwnership,
  type NotOwnerRefusal,
} from "./code-owner-approval.js";

/**
 * A dismissal: any resolution that stops a finding from blocking, i.e. every status of the spec's catalog
 * but the open `NOT_STARTED` and `IN_PROGRESS` (`isRuledOut` in ./verdict.ts): `RESOLVED`, `MITIGATED`,
 * `WONT_FIX`, `FALSE_POSITIVE`, `DUPLICATE`. `RESOLVED` is one too: it clears the check as surely as
 * `FALSE_POSITIVE`, so it needs the same second person.
 */
export type DismissalStatus = Exclude<ResolutionStatus, "NOT_STARTED" | "IN_PROGRESS">;

/** The resolution statuses that dismiss a finding and can need approval, in catalog order. */
export const DISMISSAL_STATUSES = RESOLUTION_STATUSES.filter(
  (s): s is DismissalStatus => !OPEN_RESOLUTIONS.includes(s),
) as [DismissalStatus, ...DismissalStatus[]];

/** True for a dismissal status (one that stops a finding from blocking). */
export function isDismissal(status: string): status is DismissalStatus {
  return (DISMISSAL_STATUSES as readonly string[]).includes(status);
}

/** A dismissal waiting for a second person. */
export const ApprovalRequest = z.object({
  /** the finding's identity, its severity when the dismissal was requested, `reason` and the requester's `note` */
  ...STORED_RESOLUTION_FIELDS,
  /** a dismissal only (the note is sent with both people named) */
  resolutionStatus: z.enum(DISMISSAL_STATUSES),
  /** the reason code stated in `note`, for display */
  reasonCode: z.string().optional(),
  /** GitHub login of the requester */
  requestedBy: z.string().min(1),
  /** ISO 8601 date-time */
  requestedAt: z.string(),
  /** least repository role of an approver, as configured when requested */
  approvers: MinPermission,
  /**
   * `triage.approval.codeowners` was on when requested: the approver must also be a code owner of the
   * finding's file (./code-owner-approval.ts), even if the setting is turned off meanwhile
   */
  codeowners: z.boolean().optional(),
  /** the code owners of the finding's file when requested, as the held message named them */
  codeOwners: CodeOwnership.optional(),
  /** the acceptance's expiry (`/wontfix … until …`), ISO 8601 UTC: kept through the approval */
  expiresAt: z.string().optional(),
  /**
   * set while an approval is being applied: the approving command comment and its author. Another
   * comment cannot approve a claimed request, so two approvals never send two PATCHes; a retry of the
   * same command (same comment) goes on.
   */
  claim: z.object({ commentId: z.number().int().positive(), by: z.string().min(1) }).optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

/**
 * The outcome of claiming a request for one approving command comment (the store's
 * `claimApprovalRequest`): `claimed` when it was free or already this comment's (a retried job), `busy`
 * when another comment is applying it, `none` when there is no request.
 */
export type ClaimResult =
  { kind: "claimed"; request: ApprovalRequest } | { kind: "busy"; by: string } | { kind: "none" };

/** Every pending request of one pull request, one per finding identity, newest last. */
export const PullApprovals = z.object({ requests: z.array(ApprovalRequest) });
export type PullApprovals = z.infer<typeof PullApprovals>;

/**
 * Whether a resolution set by a user of role `role` must wait for approval (pure): `triage.approval` is
 * set, the status is a dismissal ({@link isDismissal}: it would stop the finding from blocking), the
 * finding's effective severity is at or above `minSeverity`, and the user is below `approvers`. Everything
 * else (reopen, in-progress, lower severities, approvers themselves) goes through at once.
 */
export function needsApproval(
  approval: ApprovalConfig | undefined,
  input: { status: ResolutionStatus; severity: Severity; role: string },
): boolean {
  if (!approval || !isDismissal(input.status)) return false;
  if (!atLeast(input.severity, approval.minSeverity)) return false;
  return !permissionAtLeast(input.role, approval.approvers);
}

/** Why an approval is refused. */
export type ApprovalRefusal =
  | { ok: false; why: "self" }
  | { ok: false; why: "below"; role: string; approvers: MinPermission }
  | { ok: false; why: "severity-rose"; from: Severity; to: Severity }
  | NotOwnerRefusal;

/** The code owners of the finding's file read for a decision, and whether the approver is one. */
export interface CodeOwnerFacts {
  /** `triage.approval.codeowners` as configured now */
  configured?: boolean;
  ownership?: CodeOwnership;
  approver?: ApproverOwnership;
}

/**
 * Whether `login` (role `role`) may approve `request` for a finding now at `severity` (pure): never the
 * requester ("two-person"), only at or above the request's `approvers` role (the stricter of the role
 * asked for and the one configured now), only a code owner of the finding's file when the request or the
 * config asks for one (./code-owner-approval.ts), and not when the finding's severity rose above the request's.
 */
export function checkApproval(
  request: ApprovalRequest,
  input: {
    login: string;
    role: string;
    severity: Severity;
    approvers?: MinPermission;
    codeOwners?: CodeOwnerFacts;
  },
): { ok: true } | ApprovalRefusal {
  if (request.requestedBy.toLowerCase() === input.login.toLowerCase()) return { ok: false, why: "self" };
  const floor = approverFloor(request, input.approvers);
  if (!permissionAtLeast(input.role, floor))
    return { ok: false, why: "below", role: input.role, approvers: floor };
  const c = input.codeOwners;
  const owner = checkCodeOwner(
    { requested: request.codeowners === true, configured: c?.configured === true },
    c?.ownership,
    c?.approver,
  );
  if (!owner.ok) return owner;
  if (severityRank(input.severity) > severityRank(request.severity))
    return { ok: false, why: "severity-rose", from: request.severity, to: input.severity };
  return { ok: true };
}

/**
 * The least role that may approve `request` now (pure): the stricter of the role recorded in the request
 * and `configured` (`triage.approval.approvers` now), so loosening the config never lowers a pending
 * request's bar.
 */
export function approverFloor(
  request: ApprovalRequest,
  configured: MinPermission | undefined,
): MinPermission {
  return configured && permissionRankOf(configured) > permissionRankOf(request.approvers)
    ? configured
    : request.approvers;
}

function permissionRankOf(p: MinPermission): number {
  return MinPermission.options.indexOf(p);
}

/** The request of a finding (by id, else by fingerprint), if any. Pure. */
export function requestFor(
  requests: readonly ApprovalRequest[],
  finding: { id: string; fingerprint: string },
): ApprovalRequest | undefined {
  return (
    requests.find((r) => r.findingId === finding.id) ??
    requests.find((r) => r.fingerprint === finding.fingerprint)
  );
}

/** The plan of {@link planApprovalsForScan}. */
export interface ApprovalsPlan {
  /** the requests to keep, re-keyed to the new scan's finding ids */
  keep: ApprovalRequest[];
  /** dropped: the finding's severity rose above the request's */
  invalidated: Array<{ request: ApprovalRequest; severity: Severity }>;
  /** dropped: the finding was decided meanwhile (its resolution is no longer open) */
  settled: ApprovalRequest[];
}

/**
 * Carries the pull request's pending requests to a new scan's findings (pure): a request matching a
 * finding (id, then fingerprint, then shape for a finding the service triaged `RECURRING`/`DUPLICATE`;
 * one-to-one, ./identity.ts) follows it to its new id; it is invalidated when the
 * finding's severity is above the request's, and dropped when the finding already left the open states.
 * A request that matches no finding is kept as it is (a later scan may report the finding again).
 */
export function planApprovalsForScan(
  requests: readonly ApprovalRequest[],
  findings: ReadonlyArray<
    {
      id: string;
      severity: Severity;
      resolutionStatus: string;
      triageStatus?: string;
      fingerprint?: string;
    } & FingerprintInput
  >,
): ApprovalsPlan {
  const previous = requests.map((r) => ({ ...storedIdentity(r), r }));
  const current = findings.map((f) => {
    const identity = identityOf(f);
    return {
      id: f.id,
      fingerprint: f.fingerprint ?? identity.fingerprint,
      shape: identity.shape,
      ...(f.triageStatus !== undefined ? { triageStatus: f.triageStatus } : {}),
      location: f.location,
      title: f.title,
      category: f.category,
      f,
    };
  });
  const plan: ApprovalsPlan = { keep: [], invalidated: [], settled: [] };
  const matched = new Set<ApprovalRequest>();
  for (const m of matchFindings(previous, current)) {
    const r = m.previous.r;
    const f = m.current.f;
    matched.add(r);
    if (severityRank(f.severity) > severityRank(r.severity))
      plan.invalidated.push({ request: r, severity: f.severity });
    else if (!OPEN_RESOLUTIONS.includes(f.resolutionStatus)) plan.settled.push(r);
    else
      plan.keep.push({ ...r, findingId: f.id, fingerprint: m.current.fingerprint, shape: m.current.shape });
  }
  for (const r of requests) if (!matched.has(r)) plan.keep.push(r);
  return plan;
}
