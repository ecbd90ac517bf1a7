import type { Job } from "bullmq";
import { groupKey, pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { applyWrites } from "../runtime/apply-writes.js";
import { closedAfter, pullStateAt, type PullState } from "../stores/pull-state.js";
import { cancelFollowedScan } from "./cancel-scan.js";
import { checkRunCompleted, planStopWrites, stopCurrent } from "./supersede.js";
import type { LaunchJobData, PullClosedJobData, UninstallJobData } from "../job-catalogue/index.js";

/**
 * A closed pull request cancels its scan (or its launch still waiting in the debounce window) and
 * concludes its check run `cancelled`.
 */
export async function processPullClosed(
  rt: Runtime,
  job: Job<PullClosedJobData>,
): Promise<"cancelled" | "idle"> {
  const d = job.data;
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  return rt.stores.pulls.withPullLock(key, async () => {
    const prev = await rt.stores.pulls.getPull(key);
    // A close processed before the pull request's earlier events (deliveries run concurrently) leaves a
    // closed state with its `updated_at`, so those events, older than the close, are dropped as stale
    // instead of launching a scan for a closed pull request.
    if (!prev) {
      if (d.headSha && d.updatedAt)
        await rt.stores.pulls.setPull(key, { ...pullStateAt(d, d.headSha, d.updatedAt), closed: true });
      return "idle";
    }
    if (prev.closed || closeIsStale(d, prev)) return "idle";
    await stopCurrent(rt, prev, { kind: "closed" }, d.accountLogin);
    // The check run is concluded only when something was under way (a launch waiting or a scan) and it is
    // not completed already: a finished report is never rewritten by a later close or merge.
    // GitHub's check run is the truth, not diffward's memory of it.
    if ((prev.scanId || prev.launchJobId) && !(await checkRunCompleted(rt, prev)))
      await applyWrites(rt, d.installationId, planStopWrites(prev, { kind: "closed" }));
    const { scanId: _s, launchKey: _l, launchJobId: _j, ...rest } = prev;
    const updatedAt =
      d.updatedAt && (!rest.updatedAt || d.updatedAt > rest.updatedAt) ? d.updatedAt : rest.updatedAt;
    await rt.stores.pulls.setPull(key, { ...rest, closed: true, ...(updatedAt ? { updatedAt } : {}) });
    return "cancelled";
  });
}

/**
 * Whether a close is older than the event the state follows: the pull request was reopened (and maybe pushed)
 * after it, and those events were handled before the close's job ran (a retried job, after its worker was
 * killed, runs after later deliveries). Both times are GitHub's `pull_request.updated_at`, compared only when
 * the state was set by an automatic event: an explicit request (re-run, rescan) stamps the state with
 * diffward's clock, which says nothing about the order of GitHub's events. Pure.
 */
export function closeIsStale(d: Pick<PullClosedJobData, "updatedAt">, prev: PullState): boolean {
  if (!d.updatedAt || !prev.updatedAt || prev.explicitNonce !== undefined) return false;
  return Date.parse(d.updatedAt) < Date.parse(prev.updatedAt);
}

/**
 * Ends the launch of a pull request whose close was noted when it arrived, after the event the state follows
 * (`closedSince`), while the state is not closed yet: the close's job has not run, or an event older than the
 * close (an explicit request, which is never stale) ran after it and followed the head again. Called by the
 * launch job under the pull request's lock, in place of the close's job for this launch: the check run is
 * concluded `cancelled` as closed unless completed, and the state is marked closed at the close's `updated_at`,
 * so the close's job, when it runs, finds nothing left to do.
 * @returns whether the launch was ended so.
 */
export async function endLaunchOfClosed(
  rt: Runtime,
  d: Pick<LaunchJobData, "installationId" | "owner" | "repo" | "pullNumber" | "headSha" | "launchKey">,
): Promise<boolean> {
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  const prev = await rt.stores.pulls.getPull(key);
  if (!prev || prev.closed || prev.headSha !== d.headSha || prev.launchKey !== d.launchKey) return false;
  const closedAt = await rt.stores.pulls.closeNotedAt(key);
  if (!closedAt || !closedAfter(closedAt, prev.updatedAt)) return false;
  if (prev.checkRunId !== undefined && !(await checkRunCompleted(rt, prev)))
    await applyWrites(rt, d.installationId, planStopWrites(prev, { kind: "closed" }));
  const { scanId: _s, launchKey: _l, launchJobId: _j, ...rest } = prev;
  await rt.stores.pulls.setPull(key, { ...rest, closed: true, updatedAt: closedAt });
  return true;
}

/**
 * Cancels every scan diffward follows for an installation that uninstalled the app, unless it has ended
 * ({@link cancelFollowedScan}; spec `POST …/scans/{scanId}/cancel`: reserved credits are released; a scanner
 * token missing for the moment is waited for by a `cancel` job). GitHub can
 * no longer be written to.
 * @returns the number of scans cancelled.
 */
export async function processUninstall(rt: Runtime, job: Job<UninstallJobData>): Promise<number> {
  const d = job.data;
  // First, so a launch still waiting in its debounce window is dropped before it spends.
  await rt.stores.pulls.setInstallationRemoved(d.installationId, true, rt.now());
  let cancelled = 0;
  for (const scanId of await rt.stores.scans.inflightScans(d.installationId)) {
    // first: a poll or report of the scan running meanwhile writes nothing from now on
    await rt.stores.scans.recordScanStop(scanId, { kind: "uninstalled" });
    const link = await rt.stores.scans.getScanLink(scanId);
    try {
      const done = await cancelFollowedScan(rt, scanId, d.accountLogin, {
        installationId: d.installationId,
        projectId: link?.projectId,
      });
      if (done === "cancelled") cancelled += 1;
    } catch (error) {
      rt.log.warn({ scanId, err: error }, "could not cancel scan of uninstalled installation");
    }
    if (link?.baseline) {
      // a baseline has no pull request or group state: forgetting its scan here is enough
    } else if (link?.mergeGroup) {
      const key = groupKey(link.owner, link.repo, link.headSha);
      const g = await rt.stores.pulls.getGroup(key);
      if (g) await rt.stores.pulls.setGroup(key, { ...g, destroyed: true, uninstalled: true });
    } else if (link) {
      const key = pullKey(link.owner, link.repo, link.pullNumber);
      const pr = await rt.stores.pulls.getPull(key);
      if (pr) await rt.stores.pulls.setPull(key, { ...pr, closed: true, uninstalled: true });
    }
    await rt.stores.scans.finishScan(d.installationId, scanId);
  }
  rt.log.info({ installation: d.installationId, cancelled }, "installation removed: scans cancelled");
  return cancelled;
}
