import { baselineKey, groupKey, pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import type { PullState } from "../stores/pull-state.js";
import { WritesWithdrawnError } from "../runtime/apply-writes.js";
import type { LaunchJobData, PollJobData } from "../job-catalogue/index.js";

/**
 * The scan target's parts of the launch and poll jobs: where its state lives and whether its
 * scan is still wanted. A pull request keeps its state under `pr:<owner/repo#n>`; a merge group under
 * `mg:<owner/repo@headSha>`; a default-branch baseline under `bl:<owner/repo^baseline>`. Everything else of
 * launching, polling and reporting is shared.
 */
type TargetData = Pick<LaunchJobData, "owner" | "repo" | "pullNumber" | "headSha" | "target">;

/** True for a merge group scan. */
export function isGroupScan(d: Pick<LaunchJobData, "target">): boolean {
  return d.target?.kind === "merge-group";
}

/** True for a default-branch baseline scan. */
export function isBaselineScan(d: Pick<LaunchJobData, "target">): boolean {
  return d.target?.kind === "baseline";
}

/**
 * The key of the target's state and lock: `owner/repo#n` for a pull request, `owner/repo@sha` for a group,
 * `owner/repo^baseline` for a baseline.
 */
export function targetKey(d: TargetData): string {
  if (isBaselineScan(d)) return baselineKey(d.owner, d.repo);
  return isGroupScan(d) ? groupKey(d.owner, d.repo, d.headSha) : pullKey(d.owner, d.repo, d.pullNumber);
}

/**
 * Whether a launch is still wanted (called under the target's lock): a pull request that is open, on this
 * head and with this launch key (explicit requests too), and whose close was not received after the event it
 * follows (noted by the webhook handler, `noteClose` in `src/stores/pull-state.ts`: the close's job may still wait for
 * the lock); a merge group not
 * destroyed and with this launch key; a baseline still on this commit and launch key (a newer push moved it).
 */
export async function launchWanted(rt: Runtime, d: LaunchJobData): Promise<boolean> {
  if (isBaselineScan(d)) {
    const b = await rt.stores.baselines.get(targetKey(d));
    return Boolean(b && b.headSha === d.headSha && b.launchKey === d.launchKey);
  }
  if (isGroupScan(d)) {
    const g = await rt.stores.pulls.getGroup(targetKey(d));
    return Boolean(g && !g.destroyed && g.launchKey === d.launchKey);
  }
  const key = targetKey(d);
  const pr = await rt.stores.pulls.getPull(key);
  if (!pr || pr.closed || pr.headSha !== d.headSha || pr.launchKey !== d.launchKey) return false;
  // a close received after the followed event, whose job has not run yet
  return !(await rt.stores.pulls.closedSince(key, pr.updatedAt));
}

/**
 * Records the launched scan in the target's state (when the state still follows this head).
 * @returns the pull request's state as saved, `undefined` for a baseline, a merge group or a head no longer
 *   followed.
 */
export async function rememberScan(
  rt: Runtime,
  d: TargetData,
  scan: { scanId: string; projectId: string },
): Promise<PullState | undefined> {
  const key = targetKey(d);
  if (isBaselineScan(d)) {
    const b = await rt.stores.baselines.get(key);
    if (b && b.headSha === d.headSha) await rt.stores.baselines.set(key, { ...b, ...scan });
    return undefined;
  }
  if (isGroupScan(d)) {
    const g = await rt.stores.pulls.getGroup(key);
    if (g && !g.destroyed) await rt.stores.pulls.setGroup(key, { ...g, ...scan });
    return undefined;
  }
  const pr = await rt.stores.pulls.getPull(key);
  if (!pr || pr.headSha !== d.headSha) return undefined;
  const saved = { ...pr, ...scan };
  await rt.stores.pulls.setPull(key, saved);
  return saved;
}

/**
 * Whether a poll or report job still follows its scan: not once diffward recorded a stop of the scan
 * (`PullStateStore.recordScanStop`: a newer head, a close, an uninstall), nor when the pull request closed or
 * moved to another scan, nor when the merge group was destroyed or moved to another scan, nor when the baseline moved to another
 * commit or scan. With no state of
 * the target (lost with Redis), the scan is followed.
 */
export async function stillFollowed(rt: Runtime, d: PollJobData): Promise<boolean> {
  if ((await rt.stores.scans.getScanEnd(d.scanId)).stop) return false;
  if (isBaselineScan(d)) {
    const b = await rt.stores.baselines.get(targetKey(d));
    return !b || (b.headSha === d.headSha && (b.scanId === undefined || b.scanId === d.scanId));
  }
  if (isGroupScan(d)) {
    const g = await rt.stores.pulls.getGroup(targetKey(d));
    return !g || (!g.destroyed && (g.scanId === undefined || g.scanId === d.scanId));
  }
  const pr = await rt.stores.pulls.getPull(targetKey(d));
  return !(pr && (pr.closed || (pr.scanId !== undefined && pr.scanId !== d.scanId)));
}

/**
 * `rt` for a poll or report job's writes: before each GitHub write is sent (`Runtime.writeGuard`), the scan
 * must still be followed ({@link stillFollowed}), else `WritesWithdrawnError` stops the job's writes. So a
 * head superseded, closed or uninstalled while its report waits for the write lane gets no write after the
 * stop (its check run stays as the stop concluded it, no review is posted on it).
 */
export function followedOnly(rt: Runtime, d: PollJobData): Runtime {
  return {
    ...rt,
    writeGuard: async () => {
      if (!(await stillFollowed(rt, d)))
        throw new WritesWithdrawnError(`scan ${d.scanId} is no longer followed: its writes are withdrawn`);
    },
  };
}

/**
 * Runs a poll or report job's `work` on its scan while the scan is still followed: checked first
 * ({@link stillFollowed}), then before each of the job's writes (`work` gets `rt` wrapped by {@link followedOnly}).
 * A scan no longer followed, before or while `work` runs (`WritesWithdrawnError`), is no longer in flight
 * (nothing reports it any more, also when the stop that left it crashed before that), and the outcome is
 * `"superseded"`, logged with `what` (how the job ends, e.g. "not reported"). Other errors are rethrown.
 */
export async function whileFollowed<T>(
  rt: Runtime,
  d: PollJobData,
  log: Runtime["log"],
  what: string,
  work: (followed: Runtime) => Promise<T>,
): Promise<T | "superseded"> {
  const notFollowed = async (): Promise<"superseded"> => {
    log.info(`scan no longer followed (superseded)${what ? `: ${what}` : ""}`);
    await rt.stores.scans.finishScan(d.installationId, d.scanId);
    return "superseded";
  };
  if (!(await stillFollowed(rt, d))) return notFollowed();
  try {
    return await work(followedOnly(rt, d));
  } catch (error) {
    if (error instanceof WritesWithdrawnError) return notFollowed();
    throw error;
  }
}

/**
 * A pull request job's state key and its child logger, bound to the webhook delivery, the pull request and
 * the installation, then `more` (one child logger per job, bound once).
 */
export function pullJobLog(
  rt: Runtime,
  d: { deliveryId: string; owner: string; repo: string; pullNumber: number; installationId: number },
  more: Record<string, unknown>,
): { key: string; log: Runtime["log"] } {
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  return {
    key,
    log: rt.log.child({ delivery: d.deliveryId, pull: key, installation: d.installationId, ...more }),
  };
}
