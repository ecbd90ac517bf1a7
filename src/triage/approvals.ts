/**
 * Two-person dismissal requests (rules: `src/domain/dismissal-approval.ts`): one Redis document per pull request
 * (`src/stores/pull-approvals.ts`), changed under the pull request's lock.
 */
import type { Logger } from "pino";
import {
  ApprovalRequest,
  planApprovalsForScan,
  requestFor,
  type ClaimResult,
} from "../domain/dismissal-approval.js";
import type { Runtime } from "../runtime/runtime.js";
import { StoredRecordError } from "../stores/stored-record.js";
import { waitingForPullLock } from "./decisions.js";

export * from "../domain/dismissal-approval.js";

/**
 * Reads a pull request's pending requests. A document that does not fit the schema is treated as empty
 * and logged, never a crash.
 */
export async function readApprovals(rt: Runtime, key: string, log?: Logger): Promise<ApprovalRequest[]> {
  try {
    return (await rt.stores.approvals.get(key)) ?? [];
  } catch (error) {
    if (!(error instanceof StoredRecordError)) throw error;
    (log ?? rt.log).warn(
      { pull: key, err: error },
      "stored approval requests do not fit the schema: ignored",
    );
    return [];
  }
}

/**
 * Changes the pull request's requests under its lock (`waitingForPullLock`: ~2 s of waiting, then
 * `LockBusyError` and the job retries). `change` returns the new list and a value handed back, so a
 * take-and-remove is atomic: two approvals of one request never both win.
 */
export async function updateApprovals<T>(
  rt: Runtime,
  key: string,
  change: (requests: ApprovalRequest[]) => { requests: ApprovalRequest[]; result: T },
): Promise<T> {
  return waitingForPullLock(rt, key, async () => {
    const out = change(await readApprovals(rt, key));
    await rt.stores.approvals.put(key, out.requests);
    await rt.stores.orgRecords.recordHeldApprovals(key, out.requests.length > 0);
    return out.result;
  });
}

/**
 * Stores `request`, replacing any earlier request of the same finding identity.
 * @returns the request it replaced, or `undefined` when there was none (the caller says so: a pending
 *   request is never replaced unannounced).
 */
export async function storeApprovalRequest(
  rt: Runtime,
  key: string,
  request: ApprovalRequest,
): Promise<ApprovalRequest | undefined> {
  const r = ApprovalRequest.parse(request);
  return updateApprovals(rt, key, (all) => ({
    requests: [...withoutRequest(all, r), r],
    result: requestFor(all, { id: r.findingId, fingerprint: r.fingerprint }),
  }));
}

/**
 * Claims the request of `finding` (by id, else fingerprint) for one approving command comment, atomically
 * under the pull request's lock: `claimed` when it was free or already this comment's (a retried job),
 * `busy` when another comment is applying it, `none` when there is no request.
 */
export async function claimApprovalRequest(
  rt: Runtime,
  key: string,
  finding: { id: string; fingerprint: string },
  claim: { commentId: number; by: string },
): Promise<ClaimResult> {
  return updateApprovals<ClaimResult>(rt, key, (all) => {
    const r = requestFor(all, finding);
    if (!r) return { requests: all, result: { kind: "none" as const } };
    if (r.claim && r.claim.commentId !== claim.commentId)
      return { requests: all, result: { kind: "busy" as const, by: r.claim.by } };
    const claimed = { ...r, claim };
    return {
      requests: [...withoutRequest(all, r), claimed],
      result: { kind: "claimed" as const, request: claimed },
    };
  });
}

/**
 * Releases the claim of `commentId` on the request of `finding` (the approval failed before it was
 * applied, e.g. the service refused it): another approval may then try. No-op when the request is gone or
 * claimed by another comment.
 */
export async function releaseApprovalClaim(
  rt: Runtime,
  key: string,
  finding: { id: string; fingerprint: string },
  commentId: number,
): Promise<void> {
  await updateApprovals(rt, key, (all) => {
    const r = requestFor(all, finding);
    if (!r || r.claim?.commentId !== commentId) return { requests: all, result: undefined };
    const { claim: _claim, ...free } = r;
    return { requests: [...withoutRequest(all, r), free], result: undefined };
  });
}

/** Removes the request of `finding` (by id, else fingerprint); returns it, or `undefined` when there was none. */
export async function dropApprovalRequest(
  rt: Runtime,
  key: string,
  finding: { id: string; fingerprint: string },
): Promise<ApprovalRequest | undefined> {
  return updateApprovals(rt, key, (all) => {
    const r = requestFor(all, finding);
    return { requests: r ? withoutRequest(all, r) : all, result: r };
  });
}

function withoutRequest(all: readonly ApprovalRequest[], r: { findingId: string; fingerprint: string }) {
  return all.filter((x) => x.findingId !== r.findingId && x.fingerprint !== r.fingerprint);
}

/**
 * The report hook: carries the pending requests to the new scan's findings ({@link planApprovalsForScan})
 * and stores the result; logs the invalidated ones. Returns the kept requests (for the comments' pending
 * lines). No service or GitHub call.
 */
export async function carryApprovals(
  rt: Runtime,
  key: string,
  findings: Parameters<typeof planApprovalsForScan>[1],
  log: Logger,
): Promise<ApprovalRequest[]> {
  if ((await readApprovals(rt, key, log)).length === 0) return [];
  return updateApprovals(rt, key, (all) => {
    const plan = planApprovalsForScan(all, findings);
    for (const x of plan.invalidated)
      log.info(
        { finding: x.request.findingId, from: x.request.severity, to: x.severity },
        "approval request invalidated: severity rose",
      );
    for (const r of plan.settled)
      log.info(
        { finding: r.findingId, status: r.resolutionStatus, requestedBy: r.requestedBy },
        "approval request dropped: the finding was decided on the service meanwhile",
      );
    return { requests: plan.keep, result: plan.keep };
  });
}
