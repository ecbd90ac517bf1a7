import { renderLaunchError } from "../render/check-run.js";
import { getCheckRun } from "../github/checks.js";
import { updateCheck, type GitHubWrite } from "../github/writes.js";
import { jobId } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import type { PullState } from "../runtime/state.js";

/** Why a pull request's current scan stops. */
/** `sameHead`: an explicit request (Re-run, Scan anyway, rescan) of the same commit replaces the scan. */
export type StopReason =
  { kind: "superseded"; bySha: string; sameHead?: boolean } | { kind: "closed" } | { kind: "uninstalled" };

/**
 * Stops what diffward was doing for `prev`'s head, outside GitHub: removes a launch still waiting in its
 * debounce window (nothing spent), cancels a launched scan (spec `POST …/scans/{scanId}/cancel`: reserved
 * credits are released), removes its poll job and forgets its launch key. The check run's conclusion is
 * planned apart ({@link planStopWrites}). Errors while cancelling are logged, never thrown: the new head
 * must not wait on the old one.
 */
export async function stopCurrent(
  rt: Runtime,
  prev: PullState,
  reason: StopReason,
  accountLogin: string,
): Promise<void> {
  const log = rt.log.child({ pull: `${prev.owner}/${prev.repo}#${prev.pullNumber}`, scanId: prev.scanId });
  if (prev.launchJobId) {
    const job = await rt.queues.launch.getJob(prev.launchJobId);
    if (job && (await job.isDelayed().catch(() => false))) await job.remove().catch(() => undefined);
  }
  if (prev.scanId) {
    const poll = await rt.queues.scans.getJob(jobId("poll", prev.scanId));
    if (poll && (await poll.isDelayed().catch(() => false))) await poll.remove().catch(() => undefined);
    try {
      const tenant = await rt.scanner.forAccount(accountLogin);
      if (tenant) {
        await tenant.client.cancelScan(prev.projectId ?? tenant.projectId, prev.scanId);
        log.info({ reason: reason.kind }, "cancelled scan");
      }
    } catch (error) {
      // 400 when the scan already completed or failed: nothing to release.
      log.warn({ err: (error as Error).message }, "could not cancel scan");
    }
    await rt.state.finishScan(prev.installationId, prev.scanId);
  }
  if (prev.launchKey) await rt.state.deleteLaunch(prev.launchKey);
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
          message: reason.kind === "closed" ? "The pull request was closed." : "diffward was uninstalled.",
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
    rt.log.warn({ err: (error as Error).message, checkRun: prev.checkRunId }, "could not read check run");
    return false;
  }
}
