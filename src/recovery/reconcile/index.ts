/**
 * Reconciliation after a start: every scan diffward had in flight followed again, by what it resumes: the
 * scans the intact state counts in flight (`in-flight.ts`), or after a state loss the full sweep of every
 * installation's repositories (`sweep.ts`), each repository's pull requests (`pull-requests.ts`), merge groups
 * (`merge-groups.ts`) and baseline (`baselines.ts`), with the steps they share to find a scan
 * (`find-scan.ts`) and follow it again (`resume-scan.ts`); and the acceptance expiries (`expiries.ts`).
 */
export { RECONCILE_WINDOW_MS, enqueueReconcile, reconcile } from "./run.js";
export type { ReconcileSummary } from "./summary.js";
export type { ReconcileOptions } from "./sweep.js";
