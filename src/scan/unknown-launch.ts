import type { Job } from "bullmq";
import type { Runtime } from "../runtime/runtime.js";
import { unknownOutcomeSince } from "../stores/scan-state.js";
import type { ScanListItem } from "../scanner/schemas.js";
import type { ScannerTenant } from "../tenants/index.js";
import { presetsOf } from "../tenants/presets.js";
import { cancelUnlessEnded } from "./cancel-scan.js";
import { bindCap, releaseCap } from "./launch-cap.js";
import { enqueueSettle } from "./settle.js";
import type { LaunchJobData } from "../job-catalogue/index.js";

/** How far back (ms) before the attempt's start a scan in the list still counts as ours (clock skew). */
const LOOKUP_SKEW_MS = 60_000;

/**
 * Finds the scan an earlier attempt created, in the service's scan list (spec §Scans, `GET
 * /projects/{projectId}/scans`, newest first; the service offers no idempotency key and no filter by commit,
 * so the list is read until its scans are older than `since`, less {@link LOOKUP_SKEW_MS}).
 * @param anyOfHead match any scan of the repository and head commit (a check run resumed after a state loss,
 *   whose launch parameters may have been an explicit request's); otherwise the same merge base and preset too.
 * @throws the client's errors (`src/scanner/errors.ts`) of the list read.
 */
export async function findLaunchedScan(
  tenant: ScannerTenant,
  d: Pick<LaunchJobData, "repositoryId" | "headSha" | "mergeBase" | "presetRef">,
  since: number,
  anyOfHead: boolean,
): Promise<ScanListItem | undefined> {
  const presets = anyOfHead ? [] : await presetsOf(tenant).catch(() => []);
  const presetName = presets.find((p) => p.ref === d.presetRef)?.name;
  for await (const scan of tenant.client.iterateScans(tenant.projectId, { limit: 100 })) {
    if (Date.parse(scan.createdAt) < since - LOOKUP_SKEW_MS) return undefined;
    if (scan.repositoryId !== d.repositoryId) continue;
    if (!scan.commitHash || !d.headSha.startsWith(scan.commitHash)) continue;
    if (anyOfHead) return scan;
    if ((scan.baseCommit ?? null) !== d.mergeBase) continue;
    if (presetName !== undefined && scan.presetName !== presetName) continue;
    return scan;
  }
  return undefined;
}

/**
 * Ends a launch its target no longer follows whose earlier attempt's outcome is unknown (`since`, ms since epoch,
 * {@link unknownOutcomeSince}): the scan it may have created is looked up ({@link findLaunchedScan}); a found scan
 * is cancelled unless it has ended ({@link cancelUnlessEnded}: spec `POST …/scans/{scanId}/cancel`, never a
 * finished scan), then counted under `creditCap.monthly` (the reservation bound to it) and settled from the
 * usage ledger (a ledger-only `settle` job: a cancelled scan spent part of its budget); when the list shows no
 * such scan, the reservation goes back. Either way the launch key is forgotten, as a stop does.
 * Safe to run again: the cancel reads the scan's status first and a cancelled scan has ended.
 * @returns `cancelled` or `ended` for a found scan, `none` when the attempt never reached the service.
 * @throws the client's errors of the list read or the cancel (the launch job waits out an outage and runs again).
 */
export async function withdrawLaunch(
  rt: Runtime,
  job: Job<LaunchJobData>,
  tenant: ScannerTenant,
  since: number,
  log: Runtime["log"],
): Promise<"cancelled" | "ended" | "none"> {
  const d = job.data;
  const found = await findLaunchedScan(tenant, d, since, false);
  if (!found) {
    await releaseCap(rt, job);
    await rt.stores.scans.deleteLaunch(d.launchKey);
    log.info("launch no longer wanted; its attempt of unknown outcome never reached the service");
    return "none";
  }
  const done = await cancelUnlessEnded(rt, tenant.client, tenant.projectId, found.id);
  await bindCap(rt, job, found.id, undefined);
  await enqueueSettle(
    rt,
    { ...d, scanId: found.id, launchedAt: Date.parse(found.createdAt), mergeGroup: true },
    0,
  );
  await rt.stores.scans.deleteLaunch(d.launchKey);
  log.warn(
    { scanId: found.id, done },
    "launch no longer wanted; the scan its attempt of unknown outcome created is stopped and settled",
  );
  return done;
}

/**
 * Stops a launch its target no longer follows (a stop: newer head, closed, group destroyed, newer baseline):
 * - one whose attempt's outcome is unknown ({@link unknownOutcomeSince}) while its job still runs or waits is
 *   left to that job, woken now if delayed: the job withdraws it ({@link withdrawLaunch}) as soon as the service
 *   answers, and its launch key and `creditCap.monthly` reservation stay until then;
 * - otherwise its job, while it waits (delayed, waiting, prioritized), is removed and its reservation given back
 *   (nothing was launched), and, with `forget`, its launch key is forgotten (the head may be launched again).
 * A job that just started is left to find the stop itself.
 * @returns `resolving` when the launch is left to its job, else `stopped`.
 */
export async function stopLaunch(
  rt: Runtime,
  launch: { launchJobId?: string | undefined; launchKey?: string | undefined },
  { forget }: { forget: boolean },
): Promise<"resolving" | "stopped"> {
  const job: Job<LaunchJobData> | undefined = launch.launchJobId
    ? await rt.queues.launch.getJob(launch.launchJobId)
    : undefined;
  const state = job ? await job.getState().catch(() => "unknown") : "unknown";
  const waits = state === "delayed" || state === "waiting" || state === "prioritized";
  const record = launch.launchKey ? await rt.stores.scans.getLaunch(launch.launchKey) : {};
  if (job && unknownOutcomeSince(record) !== undefined && (waits || state === "active")) {
    if (state === "delayed") await job.promote().catch(() => undefined);
    return "resolving";
  }
  if (
    job &&
    waits &&
    (await job.remove().then(
      () => true,
      () => false,
    ))
  )
    await releaseCap(rt, job);
  if (forget && launch.launchKey) await rt.stores.scans.deleteLaunch(launch.launchKey);
  return "stopped";
}
