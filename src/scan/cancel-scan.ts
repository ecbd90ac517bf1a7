import { DelayedError, type Job } from "bullmq";
import { isTerminalScanStatus } from "../scanner/catalog.js";
import { addJob, type CancelJobData } from "../job-catalogue/index.js";
import { jobId } from "../runtime/names.js";
import type { ScannerClient } from "../scanner/client.js";
import type { Runtime } from "../runtime/runtime.js";
import type { EndedScanStatus } from "../stores/scan-state.js";

/**
 * Cancels a scan diffward stops following, unless it has ended: only a `QUEUED` or `PROCESSING` scan can be
 * cancelled (spec §Scan status; `POST /projects/{projectId}/scans/{scanId}/cancel` of a `COMPLETED` or
 * `FAILED` scan answers 400), so nothing is sent when diffward recorded the scan's terminal status
 * (`PullStateStore.recordScanEnded`, by the poll) or when the service says so now (spec
 * `GET /projects/{projectId}/scans/{scanId}`; the status read is recorded). A refused read (429 before its
 * `Retry-After`, 5xx, network) does not stop the cancel: a running scan left running spends for nothing.
 * @returns `ended` when the scan had ended (no cancel sent), `cancelled` once the service accepted the cancel.
 * @throws ScannerApiError or ScannerError of the cancel request.
 */
export async function cancelUnlessEnded(
  rt: Pick<Runtime, "stores">,
  client: Pick<ScannerClient, "getScan" | "cancelScan">,
  projectId: string,
  scanId: string,
): Promise<"ended" | "cancelled"> {
  if ((await rt.stores.scans.getScanEnd(scanId)).status) return "ended";
  const status = await client
    .getScan(projectId, scanId)
    .then(({ scan }) => scan.status)
    .catch(() => undefined);
  if (status !== undefined && isTerminalScanStatus(status)) {
    await rt.stores.scans.recordScanEnded(scanId, status as EndedScanStatus);
    return "ended";
  }
  await client.cancelScan(projectId, scanId);
  await rt.stores.scans.recordScanEnded(scanId, "CANCELLED");
  return "cancelled";
}

/**
 * {@link cancelOrDefer} of `scanId` for what follows it (a pull request's or a merge group's state, a scan
 * link): its installation and, when known, its service project (else the account's tenant's).
 */
export function cancelFollowedScan(
  rt: Pick<Runtime, "stores" | "scanner" | "queues">,
  scanId: string,
  accountLogin: string,
  by: { installationId: number; projectId?: string | undefined },
): Promise<"ended" | "cancelled" | "deferred"> {
  const { installationId, projectId } = by;
  return cancelOrDefer(rt, { installationId, accountLogin, ...(projectId ? { projectId } : {}), scanId });
}

/** How often a `cancel` job waiting for its account's token looks again, in ms (at most). */
const CANCEL_RECHECK_MS = 1_000;

/**
 * Cancels a scan diffward stops following, unless it has ended ({@link cancelUnlessEnded}), with the
 * account's scanner token. When the account has no token now (its entry missing from the tokens file for a
 * moment), the scan still runs and spends: the cancel is handed to a `cancel` job (job id
 * `cancel-<scanId>`, {@link processCancel}) that waits for the token. The caller does the rest of the stop
 * at once.
 * @returns `ended` or `cancelled` as {@link cancelUnlessEnded}; `deferred` when the `cancel` job was added.
 * @throws ScannerApiError or ScannerError of the cancel request.
 */
export async function cancelOrDefer(
  rt: Pick<Runtime, "stores" | "scanner" | "queues">,
  scan: Omit<CancelJobData, "tokenMissingSince">,
): Promise<"ended" | "cancelled" | "deferred"> {
  const tenant = await rt.scanner.forAccount(scan.accountLogin);
  if (tenant) return cancelUnlessEnded(rt, tenant.client, scan.projectId ?? tenant.projectId, scan.scanId);
  await addJob(rt, "cancel", scan, { jobId: jobId("cancel", scan.scanId) });
  return "deferred";
}

/**
 * The `cancel` job: cancels the scan unless it has ended ({@link cancelUnlessEnded}) once the account's
 * scanner token is back, looking again every {@link CANCEL_RECHECK_MS} (`job.moveToDelayed`, which spends
 * no attempt) until `settings.tokenGapWaitMs` have passed since the token was first missed; past that it
 * gives up (logged): without the token nothing can be sent for the account. Service errors are thrown (the
 * job retries them with backoff).
 * @returns `cancelled`, `ended`, or `no-token` when it gave up.
 * @throws DelayedError while it waits for the token.
 */
export async function processCancel(
  rt: Runtime,
  job: Job<CancelJobData>,
  token?: string,
): Promise<"ended" | "cancelled" | "no-token"> {
  const d = job.data;
  const log = rt.log.child({ scanId: d.scanId, installation: d.installationId });
  const tenant = await rt.scanner.forAccount(d.accountLogin);
  if (tenant) {
    const done = await cancelUnlessEnded(rt, tenant.client, d.projectId ?? tenant.projectId, d.scanId);
    log.info({ done }, done === "cancelled" ? "cancelled scan once the token was back" : "scan had ended");
    return done;
  }
  const now = rt.now();
  const since = d.tokenMissingSince ?? now;
  const left = since + rt.settings.tokenGapWaitMs - now;
  if (left <= 0) {
    log.warn({ account: d.accountLogin, waitedMs: now - since }, "no scanner token: scan left uncancelled");
    return "no-token";
  }
  if (d.tokenMissingSince === undefined) await job.updateData({ ...d, tokenMissingSince: since });
  await job.moveToDelayed(now + Math.min(CANCEL_RECHECK_MS, left), token);
  throw new DelayedError();
}
