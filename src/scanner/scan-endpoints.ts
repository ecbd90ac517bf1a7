/**
 * The requests about a project's scans (spec §Scans, §Scan presets): list, launch, read, cancel and
 * publish a scan, and the scan types a launch may name.
 */
import { parseRetryAfter } from "./errors.js";
import { LaunchScanOptions, PageOptions, PublishScanInput } from "./inputs.js";
import { paginate } from "./paginate.js";
import { asBody, asQuery, checkInput, checked } from "./request-input.js";
import {
  CancelResult,
  LaunchResult,
  PresetList,
  PublishedArtifact,
  ScanEnvelope,
  ScanPage,
  type ScanDetail,
  type ScanListItem,
  type ScanPreset,
} from "./schemas.js";
import { parseBody, type ScannerTransport } from "./transport.js";

export interface GetScanResult {
  scan: ScanDetail;
  /** the answer's advisory `Retry-After`, in whole seconds; the service omits it for terminal scans */
  retryAfterSeconds?: number;
}

const LIST_SCANS = "GET /projects/{projectId}/scans";

/** `GET /projects/{projectId}/scans`: one page. */
export function listScans(t: ScannerTransport, projectId: string, options: PageOptions): Promise<ScanPage> {
  return t.json(ScanPage, {
    method: "GET",
    route: "/projects/{projectId}/scans",
    params: { projectId },
    input: checked(PageOptions, options, asQuery),
  });
}

/** Every scan of the project, page by page with `limit` (default 100), under the transport's caps. */
export async function* iterateScans(
  t: ScannerTransport,
  projectId: string,
  options: { limit?: number },
): AsyncGenerator<ScanListItem> {
  const limit = options.limit ?? 100;
  checkInput(PageOptions, { limit }, LIST_SCANS);
  yield* paginate((page) => listScans(t, projectId, { page, limit }), t.limits, LIST_SCANS);
}

/** `POST /projects/{projectId}/scans`. */
export function launchScan(
  t: ScannerTransport,
  projectId: string,
  options: LaunchScanOptions,
): Promise<LaunchResult> {
  return t.json(LaunchResult, {
    method: "POST",
    route: "/projects/{projectId}/scans",
    params: { projectId },
    // The body is the caller's keys in the caller's order, those left `undefined` not sent.
    input: checked(LaunchScanOptions, options, () => ({
      body: Object.fromEntries(Object.entries(options).filter(([, val]) => val !== undefined)),
    })),
  });
}

/** `GET /projects/{projectId}/scans/{scanId}`, with the answer's `Retry-After` in whole seconds. */
export async function getScan(
  t: ScannerTransport,
  projectId: string,
  scanId: string,
): Promise<GetScanResult> {
  const answer = await t.send({
    method: "GET",
    route: "/projects/{projectId}/scans/{scanId}",
    params: { projectId, scanId },
  });
  const { scan } = parseBody(ScanEnvelope, answer);
  const retryAfterSeconds = parseRetryAfter(answer.headers.get("retry-after"));
  return retryAfterSeconds === undefined ? { scan } : { scan, retryAfterSeconds };
}

/** `POST /projects/{projectId}/scans/{scanId}/cancel`, no body. */
export function cancelScan(t: ScannerTransport, projectId: string, scanId: string): Promise<CancelResult> {
  return t.json(CancelResult, {
    method: "POST",
    route: "/projects/{projectId}/scans/{scanId}/cancel",
    params: { projectId, scanId },
  });
}

/** `POST /projects/{projectId}/scans/{scanId}/publish`. */
export function publishScan(
  t: ScannerTransport,
  projectId: string,
  scanId: string,
  input: PublishScanInput,
): Promise<PublishedArtifact> {
  return t.json(PublishedArtifact, {
    method: "POST",
    route: "/projects/{projectId}/scans/{scanId}/publish",
    params: { projectId, scanId },
    input: checked(PublishScanInput, input, asBody),
  });
}

/** `GET /projects/{projectId}/scan-presets`: the presets out of their envelope. */
export async function listPresets(t: ScannerTransport, projectId: string): Promise<ScanPreset[]> {
  const list = await t.json(PresetList, {
    method: "GET",
    route: "/projects/{projectId}/scan-presets",
    params: { projectId },
  });
  return list.presets;
}
