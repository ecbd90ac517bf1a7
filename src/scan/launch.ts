import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import type { ScannerTenant } from "../tenants/index.js";
import { classifyLaunchError, initializingDelay } from "./launch-errors.js";
import { preflight } from "../policy/preflight.js";
import { capRefusal, readMonthSeed, readSettledSpends } from "../policy/credit-cap.js";
import type { Runtime } from "../runtime/runtime.js";
import { LockBusyError } from "../stores/pull-state.js";
import { unknownOutcomeSince } from "../stores/scan-state.js";
import { updateCheck } from "../github/writes.js";
import { renderLaunchError } from "../render/check-run.js";
import { ScannerApiError, isServiceOutage } from "../scanner/errors.js";
import { admitLaunch, parkLaunch, recordOutage } from "../job-kit/service-outage.js";
import { applyWrites } from "../runtime/apply-writes.js";
import {
  decideLaunchError,
  decideLaunchStart,
  launchRequest,
  planLaunchRefused,
  planNoToken,
  type LaunchStartFacts,
} from "./decide-launch.js";
import { bindCap, capHoldId, releaseCap } from "./launch-cap.js";
import { findLaunchedScan, withdrawLaunch } from "./unknown-launch.js";
import type { LaunchJobData } from "../job-catalogue/index.js";
import { isBaselineScan, isGroupScan, launchWanted, targetKey } from "../job-kit/target.js";
import { endLaunchOfClosed } from "./lifecycle.js";
import { followScan, reportScanAgain } from "./follow-scan.js";

export { renderServiceError } from "./decide-launch.js";

/** What a launch job did. */
export type LaunchOutcome =
  | "launched"
  | "found-existing"
  | "already-launched"
  | "reported-again"
  | "superseded"
  | "concluded"
  | "no-token";

/**
 * Launches the diff scan of one head, at most once per launch key (a scan is never paid twice):
 * 1. a key that already has a scan id is done: its scan is followed, or, when it completed, its report posted
 *    again in this check run ({@link reportScanAgain});
 * 2. a key with an earlier attempt of unknown outcome (crash, timeout, 5xx) is first looked up in the
 *    service's scan list (newest first: same `commitHash`, `baseCommit` and `presetName`, created after the
 *    attempt began), and only sent again when nothing matches; a launch for a check run reconciliation
 *    resumed after a state loss (`lookupSince`) follows any scan of the repository and head created since
 *    the check run (an explicit request's preset or budget were lost with the state);
 * 3. otherwise the attempt is marked in Redis, then `POST /projects/{projectId}/scans` is sent.
 * Errors follow {@link classifyLaunchError}. Waits (`Retry-After`, initializing) use `moveToDelayed`,
 * which does not count as an attempt.
 */
export async function processLaunch(
  rt: Runtime,
  job: Job<LaunchJobData>,
  token?: string,
): Promise<LaunchOutcome> {
  const d = job.data;
  const key = targetKey(d);
  const log = rt.log.child({ pull: key, installation: d.installationId, sha: d.headSha, job: job.id });
  try {
    const gate = await admitLaunch(rt, job);
    if (gate.kind === "wait") return await waitForService(rt, job, token, gate.untilMs, log);
    return await rt.stores.pulls.withPullLock(key, () => launchLocked(rt, job, log));
  } catch (error) {
    if (error instanceof DelayedError) throw error;
    const untilMs = await recordOutage(rt, d.accountLogin, error);
    if (untilMs !== undefined) return await waitForService(rt, job, token, untilMs, log);
    if (isTokenRefused(error)) return await concludeTokenRefused(rt, job, error, log);
    if (error instanceof LockBusyError) return await waitForLock(rt, job, token);
    if (error instanceof WaitSignal) {
      await job.moveToDelayed(rt.now() + error.delayMs, token);
      throw new DelayedError();
    }
    throw error;
  }
}

/**
 * Another holder has the target's lock: the job looks again in 500 ms (`moveToDelayed`, no attempt spent).
 * @throws DelayedError always (BullMQ's signal for a job moved to delayed).
 */
async function waitForLock(rt: Runtime, job: Job<LaunchJobData>, token: string | undefined): Promise<never> {
  await job.moveToDelayed(rt.now() + 500, token);
  throw new DelayedError();
}

/**
 * Waits for an unavailable scanning service ({@link parkLaunch}: parked on the tenant's circuit breaker, the check
 * run saying so) while the launch is still wanted; a launch no longer wanted stops here, and one that waited past
 * the limit concluded its check run: either gives back its cap reservation. A launch whose last attempt's outcome
 * is unknown ({@link unknownOutcomeSince}: its scan may exist and spend) waits however long the service stays
 * unavailable, wanted or not, and keeps its reservation: the next run reads the service's scan list first and
 * follows the scan, or withdraws it ({@link withdrawLaunch}), or launches once when the list shows none.
 * Whether the launch is wanted is read under the target's lock, as {@link launchLocked} reads it: the job that
 * enqueues a launch holds that lock until it has saved the state naming it, and the launch may start before
 * then; read without the lock, a launch just enqueued would look superseded and its check run never end. A
 * busy lock is waited for ({@link waitForLock}).
 */
async function waitForService(
  rt: Runtime,
  job: Job<LaunchJobData>,
  token: string | undefined,
  untilMs: number,
  log: Runtime["log"],
): Promise<LaunchOutcome> {
  const facts = await rt.stores.pulls
    .withPullLock(targetKey(job.data), async () => ({
      wanted: await launchWanted(rt, job.data),
      unknownOutcome: unknownOutcomeSince(await rt.stores.scans.getLaunch(job.data.launchKey)) !== undefined,
    }))
    .catch((error: unknown) => {
      if (error instanceof LockBusyError) return waitForLock(rt, job, token);
      throw error;
    });
  const { wanted } = facts;
  if (facts.unknownOutcome) return parkLaunch(rt, job, token, untilMs, log, { wanted, unknownOutcome: true });
  if (!wanted) {
    log.info("launch no longer wanted while the scanning service was unavailable: nothing spent");
    await releaseCap(rt, job);
    return "superseded";
  }
  await parkLaunch(rt, job, token, untilMs, log);
  await releaseCap(rt, job);
  return "concluded";
}

/** A `GET /token` the service refused (spec §Authentication 4: `unauthorized`; a scope, a 4xx): no retry helps. */
function isTokenRefused(error: unknown): error is ScannerApiError {
  return error instanceof ScannerApiError && !error.retryable && error.endpoint === "GET /token";
}

/**
 * Concludes the check run `failure` when the service refused the account's token at launch (it could not be
 * read while the service was unavailable, so the pull-request job planned the launch without it).
 */
async function concludeTokenRefused(
  rt: Runtime,
  job: Job<LaunchJobData>,
  error: ScannerApiError,
  log: Runtime["log"],
): Promise<LaunchOutcome> {
  const d = job.data;
  await applyWrites(rt, d.installationId, [
    updateCheck(d, d.checkRunId, {
      conclusion: "failure",
      output: renderLaunchError("unauthorized", { message: error.serviceMessage }),
    }),
  ]);
  await releaseCap(rt, job);
  log.warn({ err: error }, "scanner token refused by the service at launch: check run concluded");
  return "no-token";
}

class WaitSignal extends Error {
  constructor(readonly delayMs: number) {
    super("wait");
  }
}

/** Read → decide ({@link decideLaunchStart}, pure) → write: how the launch starts, then the launch itself. */
async function launchLocked(
  rt: Runtime,
  job: Job<LaunchJobData>,
  log: Runtime["log"],
): Promise<LaunchOutcome> {
  const d = job.data;
  const { facts, tenant } = await readLaunchStart(rt, d);
  const start = decideLaunchStart(d, facts);
  if (start.kind === "withdraw") {
    // decided only with the account's token, which readLaunchStart read for it
    if (tenant) await withdrawLaunch(rt, job, tenant, start.since, log);
    return "superseded";
  }
  if (start.kind === "superseded") {
    if (start.why === "unwanted")
      log.info("launch no longer wanted (newer head, closed, destroyed or replaced): nothing spent");
    else log.info("installation removed while the launch waited: nothing spent");
    // a close noted when it arrived, whose job has not ended this launch's check run
    if (start.why === "unwanted" && !isGroupScan(d) && !isBaselineScan(d)) await endLaunchOfClosed(rt, d);
    await releaseCap(rt, job);
    return "superseded";
  }
  if (start.kind === "no-token" || !tenant) {
    await applyWrites(rt, d.installationId, planNoToken(d));
    return "no-token";
  }
  if (start.kind === "already-launched") {
    await followScan(rt, d, tenant, start.scanId, start.creditBudget);
    return "already-launched";
  }
  if (start.kind === "report-again") {
    await reportScanAgain(rt, d, tenant, start);
    return "reported-again";
  }
  if (start.kind === "look-up" && (await followEarlierLaunch(rt, job, tenant, start, log)))
    return "found-existing";
  const held = await holdLaunch(rt, job, tenant, log);
  if (!held.ok) return "concluded";
  return sendLaunch(rt, job, tenant, held.creditBudget, log);
}

/**
 * Reads, in order, what {@link decideLaunchStart} needs: whether the target still follows the launch
 * (a pull request's head, open, this launch; a merge group not destroyed, this launch), whether the
 * installation was removed meanwhile, the account's scanner token and the launch key's record. Stops at
 * the first fact that ends the launch, then reads only the record and, when an attempt's outcome is unknown,
 * the token to withdraw it with.
 */
async function readLaunchStart(
  rt: Runtime,
  d: LaunchJobData,
): Promise<{ facts: LaunchStartFacts; tenant: ScannerTenant | undefined }> {
  const wanted = await launchWanted(rt, d);
  const removed = wanted && (await rt.stores.pulls.isInstallationRemoved(d.installationId));
  if (!wanted || removed) {
    const record = await rt.stores.scans.getLaunch(d.launchKey);
    if (unknownOutcomeSince(record) === undefined)
      return { facts: { wanted, removed, record }, tenant: undefined };
    const tenant = (await rt.scanner.forAccount(d.accountLogin)) ?? undefined;
    return { facts: { wanted, removed, record, tokenFound: tenant !== undefined }, tenant };
  }
  const tenant = (await rt.scanner.forAccount(d.accountLogin)) ?? undefined;
  if (!tenant) return { facts: { wanted: true, removed: false, tokenFound: false }, tenant };
  const record = await rt.stores.scans.getLaunch(d.launchKey);
  const ended = record.scanId ? (await rt.stores.scans.getScanEnd(record.scanId)).status : undefined;
  return {
    facts: { wanted: true, removed: false, tokenFound: true, record, ...(ended ? { ended } : {}) },
    tenant,
  };
}

/**
 * Follows the scan an earlier attempt of unknown outcome created, or any scan of the head since a check run
 * resumed after a state loss, when the service's scan list has one ({@link findLaunchedScan}).
 * @returns whether a scan was found and is now followed.
 */
async function followEarlierLaunch(
  rt: Runtime,
  job: Job<LaunchJobData>,
  tenant: ScannerTenant,
  lookup: { since: number; anyOfHead: boolean },
  log: Runtime["log"],
): Promise<boolean> {
  const d = job.data;
  const found = await findLaunchedScan(tenant, d, lookup.since, lookup.anyOfHead);
  if (!found) return false;
  log.warn({ scanId: found.id }, "earlier launch attempt had reached the service: following its scan");
  await rt.stores.scans.recordLaunch(d.launchKey, { scanId: found.id, projectId: tenant.projectId });
  await bindCap(rt, job, found.id, job.data.capHold?.credits);
  await followScan(rt, d, tenant, found.id, undefined);
  return true;
}

/**
 * Holds the launch back before any credit is reserved when the service would refuse it or the repository
 * caps it ({@link preflight}), then reserves its maximum spend under `creditCap.monthly` atomically before
 * the POST ({@link reserveUnderCap}). A refusal concludes the check run.
 * @returns the budget to send (the one reserved under the cap, else the job's), or `ok: false` when refused.
 */
async function holdLaunch(
  rt: Runtime,
  job: Job<LaunchJobData>,
  tenant: ScannerTenant,
  log: Runtime["log"],
): Promise<{ ok: true; creditBudget: number | undefined } | { ok: false }> {
  const d = job.data;
  const pre = await preflight(tenant, {
    repositoryId: d.repositoryId,
    presetRef: d.presetRef,
    ...(d.creditBudget !== undefined ? { creditBudget: d.creditBudget } : {}),
    ...(d.auditAreaKeys ? { auditAreaKeys: d.auditAreaKeys } : {}),
    defaultBranch: d.defaultBranch,
  });
  if (!pre.ok) {
    await applyWrites(rt, d.installationId, planLaunchRefused(d, pre));
    log.info({ title: pre.title }, "launch refused before reserving credits");
    await releaseCap(rt, job);
    return { ok: false };
  }
  const cap = d.config.creditCap.monthly;
  if (cap === undefined) return { ok: true, creditBudget: d.creditBudget };
  const held = await reserveUnderCap(rt, job, tenant, cap, pre.minCredits ?? 0);
  if (!held.ok) {
    await applyWrites(rt, d.installationId, planLaunchRefused(d, held.verdict));
    log.info({ cap, title: held.verdict.title }, "launch refused by creditCap.monthly: nothing reserved");
    return { ok: false };
  }
  return { ok: true, creditBudget: held.credits };
}

/**
 * Marks the attempt in Redis, then sends `POST /projects/{projectId}/scans` ({@link launchRequest}),
 * remembers the scan and follows it. An error goes to {@link onLaunchError}.
 */
async function sendLaunch(
  rt: Runtime,
  job: Job<LaunchJobData>,
  tenant: ScannerTenant,
  creditBudget: number | undefined,
  log: Runtime["log"],
): Promise<LaunchOutcome> {
  const d = job.data;
  await rt.stores.scans.markLaunchAttempt(d.launchKey, rt.now());
  try {
    const res = await tenant.client.launchScan(tenant.projectId, launchRequest(d, creditBudget));
    await rt.stores.scans.recordLaunch(d.launchKey, {
      scanId: res.scanId,
      projectId: tenant.projectId,
      creditBudget: res.creditBudget,
    });
    await bindCap(rt, job, res.scanId, res.creditBudget);
    log.info({ scanId: res.scanId, creditBudget: res.creditBudget }, "scan launched");
    await followScan(rt, d, tenant, res.scanId, res.creditBudget);
    return "launched";
  } catch (error) {
    return onLaunchError(rt, job, tenant, error, log);
  }
}

/**
 * What a launch error leads to ({@link classifyLaunchError}, then {@link decideLaunchError}): its writes,
 * then a retry (the error thrown again), a wait ({@link WaitSignal}: `moveToDelayed`, which does not count
 * as an attempt) or the launch concluded. Only an unknown outcome keeps the attempt's mark (the next
 * attempt looks the scan up first).
 */
async function onLaunchError(
  rt: Runtime,
  job: Job<LaunchJobData>,
  tenant: ScannerTenant,
  error: unknown,
  log: Runtime["log"],
): Promise<LaunchOutcome> {
  const d = job.data;
  const tries = d.initializingTries ?? 0;
  const action = classifyLaunchError(error, initializingDelay(tries, rt.settings.initializingBaseDelayMs));
  if (action.kind === "ambiguous")
    log.warn(
      { err: error, attempt: job.attemptsMade + 1 },
      "launch outcome unknown: will look up, then retry",
    );
  else await rt.stores.scans.clearLaunchAttempt(d.launchKey);
  // An unavailable service is waited for on its tenant's breaker (processLaunch), never counted as an attempt.
  if (isServiceOutage(error)) throw error;
  const balance =
    action.kind === "conclude" && action.code === "insufficient_credits"
      ? await tenant.client.getBalance(tenant.projectId).catch(() => undefined)
      : undefined;
  const plan = decideLaunchError(action, {
    d,
    attempt: job.attemptsMade + 1,
    maxAttempts: job.opts.attempts ?? 1,
    now: rt.now(),
    initializingWindowMs: rt.settings.initializingWindowMs,
    ...(balance ? { balance } : {}),
  });
  await applyWrites(rt, d.installationId, plan.writes);
  switch (plan.next.kind) {
    case "retry":
      throw error;
    case "wait":
      // job.data, not d: it carries the cap reservation made by this run
      if (plan.next.data) await job.updateData({ ...job.data, ...plan.next.data });
      if (plan.next.data?.wholeRepository)
        log.info("preset refuses baseCommit: relaunching as a whole-repository scan");
      else
        log.info(
          { delayMs: plan.next.delayMs, why: action.kind === "wait" ? action.why : undefined },
          "launch waits, then retries",
        );
      throw new WaitSignal(plan.next.delayMs);
    case "concluded":
      // A definite refusal created no scan (an unknown outcome retries, never concludes): the reservation
      // goes back. A wait or a retry keeps it; the next run finds it again (idempotent per launch job).
      await releaseCap(rt, job);
      log.warn(
        { code: action.kind === "conclude" ? action.code : action.kind },
        "launch refused by the service",
      );
      return "concluded";
  }
}

/**
 * Reserves this launch's maximum spend under `creditCap.monthly`, atomically, in the cap
 * ledger of the service repository and UTC month (`src/stores/cap-ledger.ts`):
 * - the amount is the launch's `creditBudget`; without one, what is left of the cap (at least the preset's
 *   `minCredits`, at least 1), which the launch then sends as its `creditBudget`, so the service's
 *   recommended budget can never pass the cap;
 * - a ledger with no data for the month (first use, Redis flushed) is first seeded from the service
 *   ({@link readMonthSeed});
 * - when the cap would be passed, scans counted at their budget whose settlement is in the usage ledger are
 *   settled first (a cancelled or finished scan gives back what it did not spend), then the reservation is
 *   tried once more;
 * - the reservation is remembered in the job's data, so a retried job (same job id) finds the same one.
 * @returns the credits reserved, or the `action_required` output of the refusal.
 * @throws the service's errors while seeding or settling (the job retries them).
 */
async function reserveUnderCap(
  rt: Runtime,
  job: Job<LaunchJobData>,
  tenant: ScannerTenant,
  cap: number,
  minCredits: number,
): Promise<{ ok: true; credits: number } | { ok: false; verdict: ReturnType<typeof capRefusal> }> {
  const d = job.data;
  const ledger = rt.stores.capLedger;
  const now = rt.now();
  const key =
    d.capHold?.key ?? ledger.keyOf({ projectId: tenant.projectId, repositoryId: d.repositoryId }, now);
  const min = Math.max(1, minCredits);
  const id = capHoldId(job);
  const reserve = () => ledger.reserve(key, id, cap, d.creditBudget, min, now);
  let res = await reserve();
  if (res.kind === "unseeded") {
    await ledger.seed(key, await readMonthSeed(tenant, d.repositoryId, now));
    res = await reserve();
  }
  if (res.kind === "refused") {
    const { unsettled } = await ledger.snapshot(key);
    const spends = await readSettledSpends(tenant, unsettled, now);
    for (const [scanId, spent] of spends) await ledger.settle(scanId, spent, key);
    if (spends.size > 0) res = await reserve();
  }
  switch (res.kind) {
    case "unseeded":
      throw new Error("the cap ledger lost its month's data while reserving: the launch retries");
    case "refused": {
      const snap = await ledger.snapshot(key);
      return {
        ok: false,
        verdict: capRefusal({
          cap,
          counted: res.counted,
          held: snap.inFlight + snap.reserved,
          wanted: d.creditBudget ?? min,
          now,
        }),
      };
    }
    case "bound":
      // This launch job already became a scan, though its launch record is gone: never pay twice.
      throw new UnrecoverableError("this launch job already launched a scan under creditCap.monthly");
    case "reserved":
      if (d.capHold?.key !== key || d.capHold.credits !== res.amount)
        await job.updateData({ ...job.data, capHold: { key, credits: res.amount } });
      return { ok: true, credits: res.amount };
  }
}
