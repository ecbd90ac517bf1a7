import { isTerminalScanStatus } from "../scanner/catalog.js";
import type { ScannerClient } from "../scanner/client.js";
import type { Runtime } from "../runtime/runtime.js";
import type { EndedScanStatus } from "../runtime/state.js";

/**
 * Cancels a scan diffward stops following, unless it has ended: only a `QUEUED` or `PROCESSING` scan can be
 * cancelled (spec §Scan status; `POST /projects/{projectId}/scans/{scanId}/cancel` of a `COMPLETED` or
 * `FAILED` scan answers 400), so nothing is sent when diffward recorded the scan's terminal status
 * (`StateStore.recordScanEnded`, by the poll) or when the service says so now (spec
 * `GET /projects/{projectId}/scans/{scanId}`; the status read is recorded). A refused read (429 before its
 * `Retry-After`, 5xx, network) does not stop the cancel: a running scan left running spends for nothing.
 * @returns `ended` when the scan had ended (no cancel sent), `cancelled` once the service accepted the cancel.
 * @throws ScannerApiError or ScannerError of the cancel request.
 */
export async function cancelUnlessEnded(
  rt: Pick<Runtime, "state">,
  client: Pick<ScannerClient, "getScan" | "cancelScan">,
  projectId: string,
  scanId: string,
): Promise<"ended" | "cancelled"> {
  if ((await rt.state.getScanEnd(scanId)).status) return "ended";
  const status = await client
    .getScan(projectId, scanId)
    .then(({ scan }) => scan.status)
    .catch(() => undefined);
  if (status !== undefined && isTerminalScanStatus(status)) {
    await rt.state.recordScanEnded(scanId, status as EndedScanStatus);
    return "ended";
  }
  await client.cancelScan(projectId, scanId);
  await rt.state.recordScanEnded(scanId, "CANCELLED");
  return "cancelled";
}
