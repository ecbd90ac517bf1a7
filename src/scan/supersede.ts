import type { Job } from "bullmq";
import { renderLaunchError } from "../render/check-run.js";
import { getCheckRun } from "../github/check-runs.js";
import { updateCheck, type GitHubWrite } from "../github/writes.js";
import { jobId } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import type { PullState } from "../stores/pull-state.js";
import type { ScanStop } from "../stores/scan-state.js";
import { cancelFollowedScan } from "./cancel-scan.js";
import { stopLaunch } from "./unknown-launch.js";

/** What a stop logs of its scan's cancel. */
const STOP_LOG = {
  cancelled: "cancelled scan",
  ended: "scan had ended",
  deferred: "no scanner token for the account: the cancel waits for it",
} as const;

/** Why a pull request's current scan stops ({@link ScanStop}). */
export type StopReason = ScanStop;

/**
 * Stops what diffward was doing for `prev`'s head, outside GitHub. First records the stop on the scan
 * (`PullStateStore.recordScanStop`): a poll or report of the scan that runs meanwhile, or later, writes nothing
 * from then on (each checks it right before each of its writes). Then stops the launch ({@link stopLaunch}: one
 * still waiting is removed, nothing spent, and its launch key forgotten (a launched scan's key is forgotten
 * once the cancel tells whether it completed: {@link forgetUnlessCompleted}); one whose attempt's outcome is unknown
 * is left to its job, which withdraws the scan it may have created), removes the scan's poll and report jobs
 * while they wait, cancels a launched scan
 * unless it has ended (`cancelUnlessEnded`; spec `POST …/scans/{scanId}/cancel`: reserved credits are
 * released; when the account's scanner token is missing for the moment, a `cancel` job does it once the token
 * is back: {@link cancelFollowedScan}). The check run's conclusion is planned apart ({@link planStopWrites}).
 * Errors while cancelling are logged, never thrown: the new head must not wait on the old one.
 */
export async function stopCurrent(
  rt: Runtime,
  prev: PullState,
  reason: StopReason,
  accountLogin: string,
): Promise<void> {
  const log = rt.log.child({ pull: `${prev.owner}/${prev.repo}#${prev.pullNumber}`, scanId: prev.scanId });
  if (prev.scanId) await rt.stores.scans.recordScanStop(prev.scanId, reason);
  if ((await stopLaunch(rt, prev, { forget: !prev.scanId })) === "resolving")
    log.warn(
      { reason: reason.kind },
      "launch of unknown outcome stopped: its job looks its scan up to withdraw it",
    );
  if (prev.scanId) {
    await removeWaiting(await rt.queues.scans.getJob(jobId("poll", prev.scanId)));
    await removeWaiting(await rt.queues.reports.getJob(jobId("report", prev.scanId)));
    try {
      const done = await cancelFollowedScan(rt, prev.scanId, accountLogin, prev);
      log.info({ reason: reason.kind, done }, STOP_LOG[done]);
    } catch (error) {
      log.warn({ err: error }, "could not cancel scan");
    }
    await rt.stores.scans.finishScan(prev.installationId, prev.scanId);
    await forgetUnlessCompleted(rt, prev.launchKey, prev.scanId);
  }
}

/**
 * Forgets the launch key of a stopped scan (the same head may be launched again later) unless the scan is known
 * to have completed (spec §Scan status `COMPLETED`, as the poll or the stop's cancel read it): then the key
 * keeps it, and a launch of the same head, merge base, preset and audit areas reports it again instead of
 * paying for a second scan (`reportScanAgain` in ./follow-scan.ts).
 */
async function forgetUnlessCompleted(
  rt: Runtime,
  launchKey: string | undefined,
  scanId: string,
): Promise<void> {
  if (!launchKey) return;
  if ((await rt.stores.scans.getScanEnd(scanId)).status === "COMPLETED") return;
  await rt.stores.scans.deleteLaunch(launchKey);
}

/**
 * Removes a job that waits (delayed, waiting or prioritized); a running one is left to find the stop itself.
 * Errors are ignored (the job may have just started or ended).
 */
async function removeWaiting(job: Job | undefined): Promise<void> {
  if (!job) return;
  const state = await job.getState().catch(() => "unknown");
  if (state === "delayed" || state === "waiting" || state === "prioritized")
    await job.remove().catch(() => undefined);
}

/**
 * The GitHub write that ends `prev`'s check run: concluded `cancelled`, titled with the reason (none when
 * it has no check run). Best effort: a failure is logged and the new head goes on. Pure.
 */
export function planStopWrites(prev: PullState, reason: StopReason): GitHubWrite[] {
  if (!prev.checkRunId) return [];
  const output =
    reason.kind === "superseded"
      ? renderLaunchError("superseded", {
          bySha: reason.bySha,
          ...(reason.sameHead ? { sameHead: true } : {}),
        })
      : renderLaunchError("scan_cancelled", {
          scanId: prev.scanId ?? "(not launched)",
          cause: { kind: reason.kind },
        });
  return [{ ...updateCheck(prev, prev.checkRunId, { conclusion: "cancelled", output }), bestEffort: true }];
}

/**
 * Whether `prev`'s check run is already completed on GitHub (GitHub REST "Get a check run"); a completed
 * report is never concluded again as cancelled. A failed read counts as not completed (the stop write is
 * best effort, and a check run left unfinished is the worse outcome).
 */
export async function checkRunCompleted(rt: Runtime, prev: PullState): Promise<boolean> {
  if (!prev.checkRunId) return false;
  try {
    const octokit = await rt.octokit(prev.installationId);
    return (await getCheckRun(octokit, prev, prev.checkRunId)).status === "completed";
  } catch (error) {
    rt.log.warn({ err: error, checkRun: prev.checkRunId }, "could not read check run");
    return false;
  }
}
