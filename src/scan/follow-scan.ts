/**
 * What a launch does once its scan is known: follow it (the poll job) or, for a launch key whose scan
 * completed before, post that scan's report again in this launch's check run.
 */
import type { ScannerTenant } from "../tenants/index.js";
import { addJob, type LaunchJobData, type PollJobData } from "../job-catalogue/index.js";
import { repoContextOf } from "../job-kit/types.js";
import { isBaselineScan, isGroupScan, rememberScan } from "../job-kit/target.js";
import { enqueueReport } from "../report/job.js";
import { applyWrites } from "../runtime/apply-writes.js";
import { jobId } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import type { PullState } from "../stores/pull-state.js";
import { planLaunched } from "./decide-launch.js";

/**
 * Remembers the scan (Redis: the pull request's state and the scan link), starts following it (the poll
 * job, `poll-<scanId>`), then writes the scan id on the check run (`external_id`). The poll never waits on
 * that write: a scan is polled on time whatever the installation's write lane is doing, and a
 * check run that shows a scan id always has its poll job (reconciliation relies on it). A scan launched while
 * its installation was being removed is cancelled at once instead (spec `POST …/scans/{scanId}/cancel`).
 * With a write lane the scan-id write is not awaited (a progress write, see the body).
 */
export async function followScan(
  rt: Runtime,
  d: LaunchJobData,
  tenant: ScannerTenant,
  scanId: string,
  creditBudget: number | undefined,
): Promise<void> {
  const followed = await linkFollowed(rt, d, tenant, scanId);
  if (followed === "removed") return;
  await addJob(rt, "poll", pollDataOf(rt, d, tenant, scanId, creditBudget), {
    jobId: jobId("poll", scanId),
    delay: rt.settings.firstPollDelayMs,
    fair: true,
  });
  const launched = applyWrites(
    rt,
    d.installationId,
    planLaunched(d, scanId, creditBudget, followed?.rerunAgain),
  );
  // With a write lane, the scan id is a progress write: it waits at the lane's lowest priority and a later
  // update of the check run (the completion carries the scan id too) may take it over, so the launch (and
  // the pull request's lock) does not wait for it.
  if (rt.lane)
    void launched.catch((e: Error) =>
      rt.log.warn({ err: e, scanId, installation: d.installationId }, "scan id write failed"),
    );
  else await launched;
}

/**
 * Posts the report of a launch key's scan that completed before in this launch's check run, launching
 * nothing: a head that comes back (a pull request reopened with no new commit, a force-push back to a
 * reported commit) with the same merge base, preset and audit areas would get the same findings from a second
 * scan, paid for nothing. The scan is read again (spec `GET /projects/{projectId}/scans/{scanId}`, free), the
 * stop diffward recorded when it stopped following it is forgotten (so the report writes), the target's state
 * and the scan link name it again, and its `report` job is added with this check run's own job id
 * (`report-<scanId>-c<checkRunId>`: the first report's job may still be kept). The report reads the findings
 * as they are now, triage included, and completes the check run (its completion is marked per check run).
 * @throws the client's errors of the scan read (the launch job retries them, waiting out an outage).
 */
export async function reportScanAgain(
  rt: Runtime,
  d: LaunchJobData,
  tenant: ScannerTenant,
  { scanId, creditBudget }: { scanId: string; creditBudget: number | undefined },
): Promise<void> {
  const { scan } = await tenant.client.getScan(tenant.projectId, scanId);
  await rt.stores.scans.clearScanStop(scanId);
  if ((await linkFollowed(rt, d, tenant, scanId)) === "removed") return;
  const data = { ...pollDataOf(rt, d, tenant, scanId, creditBudget), terminalAt: rt.now() };
  await enqueueReport(rt, data, scan, jobId("report", scanId, `c${d.checkRunId}`));
  rt.log.info(
    { scanId, checkRun: d.checkRunId, sha: d.headSha },
    "launch key's scan completed before: its report is posted again, nothing launched",
  );
}

/**
 * Names the scan in the target's state and its scan link, adding it to the installation's scans in flight.
 * When the installation was removed meanwhile, the scan is cancelled at once (unless it has ended) and
 * `removed` returned.
 */
async function linkFollowed(
  rt: Runtime,
  d: LaunchJobData,
  tenant: ScannerTenant,
  scanId: string,
): Promise<PullState | undefined | "removed"> {
  const followed = await rememberScan(rt, d, { scanId, projectId: tenant.projectId });
  await rt.stores.scans.linkScan({
    scanId,
    projectId: tenant.projectId,
    installationId: d.installationId,
    accountLogin: d.accountLogin,
    owner: d.owner,
    repo: d.repo,
    pullNumber: d.pullNumber,
    headSha: d.headSha,
    checkRunId: d.checkRunId,
    ...(isGroupScan(d) ? { mergeGroup: true } : {}),
    ...(isBaselineScan(d) ? { baseline: true } : {}),
  });
  // The uninstall job marks the installation removed, then cancels the scans it finds in flight. A launch
  // that passed its own look at the mark just before can still reach the service after the uninstall job
  // read the scans in flight; looked at again now that this scan is in flight, one of the two always
  // cancels it.
  if (await rt.stores.pulls.isInstallationRemoved(d.installationId)) {
    await tenant.client
      .cancelScan(tenant.projectId, scanId)
      .catch((e: Error) =>
        rt.log.warn({ scanId, err: e }, "could not cancel scan of uninstalled installation"),
      );
    await rt.stores.scans.finishScan(d.installationId, scanId);
    rt.log.info({ scanId }, "installation removed while the scan was launched: cancelled");
    return "removed";
  }
  return followed;
}

/** The poll (and report) job's data of a launch's scan. */
function pollDataOf(
  rt: Runtime,
  d: LaunchJobData,
  tenant: ScannerTenant,
  scanId: string,
  creditBudget: number | undefined,
): PollJobData {
  return {
    ...repoContextOf(d),
    pullNumber: d.pullNumber,
    ...(d.target ? { target: d.target } : {}),
    headSha: d.headSha,
    mergeBase: d.mergeBase,
    checkRunId: d.checkRunId,
    scanId,
    projectId: tenant.projectId,
    presetRef: d.presetRef,
    ...(creditBudget !== undefined ? { creditBudget } : {}),
    config: d.config,
    launchedAt: rt.now(),
    ...(d.configProblemsInPull ? { configProblemsInPull: d.configProblemsInPull } : {}),
    ...(d.floorRaised?.length ? { floorRaised: d.floorRaised } : {}),
    ...(d.policySources ? { policySources: d.policySources } : {}),
    ...(d.guidanceChange ? { guidanceChange: d.guidanceChange } : {}),
    ...(d.wholeRepository ? { wholeRepository: true } : {}),
  };
}
