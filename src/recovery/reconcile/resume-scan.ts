/**
 * Following a found scan again (any target): its state, scan link and `poll-<scanId>` job rebuilt under its
 * lock ({@link resumeLocked}), the launch record kept ({@link resumedLaunch}), then counted, logged and its scan
 * id written on its check run ({@link afterResume}).
 */
import { WALK_PRIORITY } from "../../runtime/fairness.js";
import { addJob, type PollJobData } from "../../job-catalogue/index.js";
import { jobId } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { applyWrites } from "../../runtime/apply-writes.js";
import { planLaunched } from "../../scan/index.js";
import type { Resumable } from "./find-scan.js";
import { withLockWaiting, type RepoPart } from "./repository-pass.js";
import type { ReconcileSummary } from "./summary.js";

/** Where a resumed scan reports: the target fields of its `poll-<scanId>` job and of its scan link. */
export interface ResumeTarget {
  pullNumber: number;
  /** absent for a pull request's scan */
  target?: NonNullable<PollJobData["target"]>;
  headSha: string;
  mergeBase: string | null;
  presetRef: string;
  creditBudget: number | undefined;
}

/**
 * Follows a found scan again under `key`'s lock: nothing when its `poll-<scanId>` job exists (added
 * meanwhile: `followed`); else `writeState` rebuilds the target's state, or answers why the scan is not
 * resumed, and the scan link (`PullStateStore.linkScan`, for cancel on uninstall and commands) and the poll job are
 * written (`resumed`).
 */
export async function resumeLocked<Refusal extends string>(
  rt: Runtime,
  r: RepoPart,
  key: string,
  { run, scanId, config, tenant }: Resumable,
  t: ResumeTarget,
  writeState: () => Promise<Refusal | undefined>,
): Promise<"followed" | "resumed" | Refusal> {
  const { creditBudget, ...where } = t;
  const data: PollJobData = {
    ...r,
    ...where,
    checkRunId: run.id,
    scanId,
    projectId: tenant.projectId,
    ...(creditBudget !== undefined ? { creditBudget } : {}),
    config,
    launchedAt: rt.now(),
  };
  return withLockWaiting(rt, key, async () => {
    if (await rt.queues.scans.getJob(jobId("poll", scanId))) return "followed" as const;
    const refusal = await writeState();
    if (refusal !== undefined) return refusal;
    await rt.stores.scans.linkScan({
      scanId,
      projectId: tenant.projectId,
      installationId: r.installationId,
      accountLogin: r.accountLogin,
      owner: r.owner,
      repo: r.repo,
      pullNumber: t.pullNumber,
      headSha: t.headSha,
      checkRunId: run.id,
      ...(t.target?.kind === "merge-group" ? { mergeGroup: true } : {}),
      ...(t.target?.kind === "baseline" ? { baseline: true } : {}),
    });
    await addJob(rt, "poll", data, {
      jobId: jobId("poll", scanId),
      delay: rt.settings.firstPollDelayMs,
      priority: WALK_PRIORITY,
    });
    return "resumed" as const;
  });
}

/**
 * A resumed launch: records the launch key's scan when its launch record lost it (so the launch job never
 * starts it again), and returns the fields a pull request's or a baseline's state keeps of its launch.
 */
export async function resumedLaunch(
  rt: Runtime,
  r: RepoPart,
  { run, scanId, tenant }: Resumable,
  at: { headSha: string; launchKey: string },
) {
  if (!(await rt.stores.scans.getLaunch(at.launchKey)).scanId)
    await rt.stores.scans.recordLaunch(at.launchKey, { scanId, projectId: tenant.projectId });
  return {
    installationId: r.installationId,
    owner: r.owner,
    repo: r.repo,
    headSha: at.headSha,
    checkRunId: run.id,
    launchKey: at.launchKey,
    launchJobId: jobId("launch", at.launchKey),
    scanId,
    projectId: tenant.projectId,
  };
}

/**
 * What a resume does once its lock is released ({@link resumeLocked}'s `outcome`): counts the scan as already
 * followed (a poll job existed) or as resumed, logs why it was not resumed otherwise, and writes the scan id on
 * a check run whose scan was found in the service, now that its poll job exists, so a later state loss finds
 * the scan by it.
 */
export async function afterResume(
  rt: Runtime,
  summary: ReconcileSummary,
  r: RepoPart,
  { run, scanId, presetRef, log }: Pick<Resumable, "run" | "scanId" | "log"> & { presetRef: string },
  outcome: string,
  resumedMessage: string,
  notResumedMessage = "reconcile: scan not resumed",
): Promise<void> {
  if (outcome === "followed") {
    summary.alreadyFollowed.push(scanId);
    return;
  }
  if (outcome !== "resumed") {
    log.info({ why: outcome }, notResumedMessage);
    return;
  }
  summary.resumed.push(scanId);
  log.info({ checkRunId: run.id }, resumedMessage);
  if (!run.externalId)
    await applyWrites(
      rt,
      r.installationId,
      planLaunched({ ...r, checkRunId: run.id, presetRef }, scanId, undefined),
    );
}
