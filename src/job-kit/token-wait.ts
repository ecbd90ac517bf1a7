import { DelayedError, type Job } from "bullmq";
import { planTokenMissing } from "../checks/endings.js";
import type { Runtime } from "../runtime/runtime.js";
import { applyWrites } from "../runtime/apply-writes.js";
import type { ScannerTenant } from "../tenants/index.js";
import { targetKey, whileFollowed } from "./target.js";
import type { PollJobData } from "../job-catalogue/index.js";

/** How often a job waiting for its account's token looks again, in ms (at most; less near the end). */
export const TOKEN_RECHECK_MS = 5_000;

/** A poll or report job running on a scan still followed: `rt`'s writes each check that it still is. */
export interface FollowedJob<J extends PollJobData> {
  rt: Runtime;
  job: Job<J>;
  /** BullMQ's lock token of the job (to move it to delayed) */
  token: string | undefined;
  tenant: ScannerTenant;
  /** the job's logger, bound to the target, the scan and the installation */
  log: Runtime["log"];
}

/**
 * Runs a poll or report job's `work` on its scan while the scan is followed ({@link whileFollowed}; `what`
 * says how the job ends when it is not), with the account's tenant once it has a scanner token
 * ({@link tenantOrWait}).
 * @returns `work`'s outcome, `superseded`, or `no-token` once the check run was concluded.
 * @throws DelayedError while the job waits for the token.
 */
export async function withFollowedTenant<J extends PollJobData, T>(
  rt: Runtime,
  job: Job<J>,
  token: string | undefined,
  what: string,
  work: (followed: FollowedJob<J>) => Promise<T>,
): Promise<T | "superseded" | "no-token"> {
  const d = job.data;
  const log = rt.log.child({ pull: targetKey(d), scanId: d.scanId, installation: d.installationId });
  return whileFollowed(rt, d, log, what, async (followed) => {
    const tenant = await tenantOrWait(followed, job, token, log);
    return tenant === "no-token" ? tenant : work({ rt: followed, job, token, tenant, log });
  });
}

/**
 * The account's scanner tenant for a job that follows a launched scan (poll, report). The scan is paid and
 * runs on whether or not diffward has the account's token, so a token missing from the settings
 * (`SCANNER_TOKEN`, the tokens file: being rewritten, an entry removed for a moment) does not end the job:
 * it looks again every {@link TOKEN_RECHECK_MS} (`job.moveToDelayed`, which spends no attempt) until
 * `settings.tokenGapWaitMs` have passed since the token was first missed (`tokenMissingSince` in the job's
 * data, cleared once the token is back). Past that, the check run is concluded `failure` with the reason
 * ({@link planTokenMissing}) and the scan leaves the installation's scans in flight; it is not cancelled
 * (that needs the token), its result stays in the service.
 * @returns the tenant, or `no-token` once the check run was concluded.
 * @throws DelayedError while the job waits for the token (BullMQ's signal for a job moved to delayed).
 */
export async function tenantOrWait(
  rt: Runtime,
  job: Job<PollJobData>,
  token: string | undefined,
  log: Runtime["log"],
): Promise<ScannerTenant | "no-token"> {
  const d = job.data;
  const tenant = await rt.scanner.forAccount(d.accountLogin);
  if (tenant) {
    if (d.tokenMissingSince !== undefined) {
      const { tokenMissingSince: _gone, ...rest } = job.data;
      await job.updateData(rest);
      log.info("scanner token back: following the scan again");
    }
    return tenant;
  }
  const now = rt.now();
  const since = d.tokenMissingSince ?? now;
  const left = since + rt.settings.tokenGapWaitMs - now;
  if (left > 0) {
    if (d.tokenMissingSince === undefined) {
      await job.updateData({ ...job.data, tokenMissingSince: since });
      log.warn({ account: d.accountLogin }, "no scanner token for the account: waiting for it");
    }
    await job.moveToDelayed(now + Math.min(TOKEN_RECHECK_MS, left), token);
    throw new DelayedError();
  }
  await applyWrites(rt, d.installationId, planTokenMissing(d, now - since));
  await rt.stores.scans.finishScan(d.installationId, d.scanId);
  log.warn({ account: d.accountLogin, waitedMs: now - since }, "no scanner token: check run concluded");
  return "no-token";
}
