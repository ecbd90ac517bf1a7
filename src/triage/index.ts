/**
 * Triage, one room: a finding's decisions stored per pull request and carried to later scans
 * (`./decisions.ts`), dismissals held for approval (`./approvals.ts`) and their code owners
 * (`./code-ownership.ts`), acceptances that expire (`./expiry.ts`; their job is `./job/acceptance-expiry.ts`),
 * a decision's reflection on the finding's comment and thread (`./reflect.ts`) and the check run recomputed
 * after it (`./check.ts`), inline `diffward-ignore` suppressions acted on at report time (`./suppressions.ts`). Other rooms use it through this file only.
 */
export {
  carryApprovals,
  claimApprovalRequest,
  dropApprovalRequest,
  readApprovals,
  releaseApprovalClaim,
  requestFor,
  storeApprovalRequest,
} from "./approvals.js";
export { recomputeCheck } from "./check.js";
export { readCodeOwnership } from "./code-ownership.js";
export {
  applyPullDecisions,
  readDecisions,
  recordSeverityOverride,
  waitingForPullLock,
} from "./decisions.js";
export {
  listAcceptanceExpiries,
  rebuildExpiries,
  resumeExpiries,
  writeDecisionWithExpiry,
} from "./expiry.js";
export { refreshFindingComment, setThreadResolved } from "./reflect.js";
export { applySuppressions, type SuppressionPull } from "./suppressions.js";
