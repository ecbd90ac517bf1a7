/**
 * Reconciliation after a start (`reconcile` job, {@link enqueueReconcile}): every scan diffward had in flight is
 * followed again, from what diffward's state says is in flight when it is intact (`in-flight.ts`), else from
 * GitHub's side (`sweep.ts`); then every acceptance expiry has its job (`expiries.ts`).
 */
import { WALK_PRIORITY } from "../../runtime/fairness.js";
import { addJob } from "../../job-catalogue/index.js";
import { jobId } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { resumeAllExpiries } from "./expiries.js";
import { reconcileInFlight } from "./in-flight.js";
import { emptySummary, logSummary, type ReconcileSummary } from "./summary.js";
import { sweepAll, type ReconcileOptions } from "./sweep.js";

/** Requests of a reconciliation within one window of this many ms collapse into one job. */
export const RECONCILE_WINDOW_MS = 10_000;

/**
 * Enqueues a reconciliation on the events queue. The job id is `reconcile-<window>`: every request within
 * one {@link RECONCILE_WINDOW_MS} window (all processes starting at once, say) collapses into one job.
 * @returns the job id; its result is the {@link ReconcileSummary} (kept one hour).
 */
export async function enqueueReconcile(rt: Pick<Runtime, "queues">, now = Date.now()): Promise<string> {
  const id = jobId("reconcile", Math.floor(now / RECONCILE_WINDOW_MS));
  await addJob(rt, "reconcile", {}, { jobId: id, priority: WALK_PRIORITY });
  return id;
}

/**
 * Makes sure every scan diffward had in flight is followed again after a start. Which way depends on the
 * state marker (`{prefix}:swept`, {@link PullStateStore.sweptAt}), written when a full sweep ends without an
 * error and renewed by every reconciliation:
 * - marker present, diffward's Redis state (and BullMQ's jobs beside it) intact: {@link reconcileInFlight}
 *   looks only at what the state says is in flight and asks GitHub only about what its jobs no longer follow;
 * - marker gone (a flush, a new Redis, a first start): {@link sweepAll} rebuilds it from GitHub's side.
 * @throws GitHub errors of the installations listing, Redis errors (the job is retried).
 */
export async function reconcile(rt: Runtime, opts: ReconcileOptions = {}): Promise<ReconcileSummary> {
  const log = rt.log.child({ job: "reconcile" });
  const intact = (await rt.stores.pulls.sweptAt()) !== undefined;
  const summary = emptySummary(intact ? "in-flight" : "full-sweep");
  if (intact) {
    await reconcileInFlight(rt, summary, log);
    await rt.stores.pulls.touchSwept();
  } else {
    await sweepAll(rt, opts, summary, log);
    // a sweep that could not read everything is done again at the next start
    if (summary.errors === 0) await rt.stores.pulls.markSwept(new Date(rt.now()).toISOString());
  }
  // every acceptance expiry still recorded has its job (one failed for good is retried)
  await resumeAllExpiries(rt, summary, log);
  logSummary(log, summary);
  return summary;
}
