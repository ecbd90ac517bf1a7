/**
 * `ScannerClient`: the typed client of the whole scanning-service API (spec §Endpoints). One method per
 * endpoint, documented here; the request each one sends is in the endpoint module of its resource
 * (`account-`, `repository-`, `scan-`, `finding-endpoints.ts`), and the HTTP, caps and typed errors in
 * ./transport.ts. Inputs are checked with zod before any request, answers are parsed with zod at the
 * boundary, and every failure is a typed `ScannerError` (./errors.ts).
 */
import { inspect } from "node:util";
import * as account from "./account-endpoints.js";
import * as findings from "./finding-endpoints.js";
import type {
  AuditAreaListOptions,
  CreateAuditAreaInput,
  FindingListOptions,
  LaunchScanOptions,
  PageOptions,
  PublishScanInput,
  PutGuidanceInput,
  SummaryOptions,
  UsageOptions,
} from "./inputs.js";
import * as repositories from "./repository-endpoints.js";
import * as scans from "./scan-endpoints.js";
import type { GetScanResult } from "./scan-endpoints.js";
import type {
  AuditAreaList,
  Balance,
  CancelResult,
  CreatedAuditArea,
  DeleteAuditAreaResult,
  FindingDetail,
  FindingListItem,
  FindingPage,
  Guidance,
  GuidanceWriteResult,
  LaunchResult,
  PublishedArtifact,
  Repository,
  ScanListItem,
  ScanPage,
  ScanPreset,
  Summary,
  Token,
  Usage,
} from "./schemas.js";
import { ScannerTransport, type ClientLimits, type ScannerClientOptions } from "./transport.js";

/**
 * Typed client of the scanning service. Every method:
 * - throws `ScannerRequestError` for bad input, before any request (nothing is sent, nothing spent);
 * - throws `ScannerApiError` when the service answers non-2xx (spec §Errors: `code`, `status`,
 *   `retryAfterSeconds` from `Retry-After`, `retryable`);
 * - throws `ScannerNetworkError` / `ScannerTimeoutError` when no answer arrives;
 * - throws `ScannerResponseError` when a 2xx body does not fit the spec (names the field path);
 * - throws `ScannerLimitError` when an answer is over the client's caps: a body over
 *   `maxResponseBytes` (read as a stream, aborted at the cap), a listing over `maxPages` or `maxItems`.
 *   Finding text fields are cut at parse time (`FINDING_TEXT_MAX_CHARS` in ./schemas.ts).
 *
 * Path parameters are `encodeURIComponent`ed. Finding ids may be full ids or labels (spec §Finding label).
 */
export class ScannerClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly userAgent: string;
  /** Caps on untrusted answers: bytes per response, pages and items per listing. */
  readonly limits: ClientLimits;
  /** Sends every request; holds the token, which nothing of the client shows. */
  readonly #transport: ScannerTransport;

  /**
   * @throws {ScannerConfigError} when `baseUrl` is not an http(s) URL ending in `/api/v1`, `token` is empty
   * or `timeoutMs` is not a positive integer.
   */
  constructor(options: ScannerClientOptions) {
    this.#transport = new ScannerTransport(options);
    ({
      baseUrl: this.baseUrl,
      timeoutMs: this.timeoutMs,
      userAgent: this.userAgent,
      limits: this.limits,
    } = this.#transport);
  }

  // toString, toJSON and util.inspect never show the token
  toString(): string {
    return `ScannerClient(${this.baseUrl})`;
  }

  toJSON(): { baseUrl: string; timeoutMs: number; userAgent: string } {
    return { baseUrl: this.baseUrl, timeoutMs: this.timeoutMs, userAgent: this.userAgent };
  }

  [inspect.custom](): string {
    return `ScannerClient { baseUrl: '${this.baseUrl}', timeoutMs: ${this.timeoutMs}, token: '[redacted]' }`;
  }

  // ── spec §Token ──────────────────────────────────────────────────────────────────────────────────

  /** `GET /token`: the calling token, its project and organization. Any valid token. */
  async getToken(): Promise<Token> {
    return account.getToken(this.#transport);
  }

  // ── spec §Repositories: repositories, guidance, audit areas ──────────────────────────────────────

  /**
   * `GET /projects/{projectId}/repositories`. The envelope is not shown by the spec; the repositories
   * are found by shape (`normalizeRepositories`). A restricted token sees only its repositories.
   */
  async listRepositories(projectId: string): Promise<Repository[]> {
    return repositories.listRepositories(this.#transport, projectId);
  }

  /**
   * `GET /projects/{projectId}/repositories/{repositoryId}/guidance` (payload not shown; spec §Guidance):
   * the stored guidance, `content: null` when none is stored, plus the raw body.
   */
  async getGuidance(projectId: string, repositoryId: string): Promise<Guidance> {
    return repositories.getGuidance(this.#transport, projectId, repositoryId);
  }

  /**
   * `PUT /projects/{projectId}/repositories/{repositoryId}/guidance`, scope `guidance:write`. `content`
   * (≤ 100,000 characters) or `null` to clear. `expectedContent` omitted → last writer wins (the key is
   * not sent); string or `null` → compare-and-set (409 `conflict` on mismatch).
   */
  async putGuidance(
    projectId: string,
    repositoryId: string,
    input: PutGuidanceInput,
  ): Promise<GuidanceWriteResult> {
    return repositories.putGuidance(this.#transport, projectId, repositoryId, input);
  }

  /**
   * `GET /projects/{projectId}/repositories/{repositoryId}/audit-areas`, scope `read`. Areas in the
   * service's order with their unnamed flag/files/lines fields normalized (`inCurrentMap`, `files`,
   * `lines`), plus the branch the sizes were read from and whether it has a stored map.
   */
  async listAuditAreas(
    projectId: string,
    repositoryId: string,
    options: AuditAreaListOptions = {},
  ): Promise<AuditAreaList> {
    return repositories.listAuditAreas(this.#transport, projectId, repositoryId, options);
  }

  /**
   * `POST /projects/{projectId}/repositories/{repositoryId}/audit-areas`, scope `guidance:write`:
   * creates a `custom` area. The response is not shown beyond the created area's `key`.
   */
  async createAuditArea(
    projectId: string,
    repositoryId: string,
    input: CreateAuditAreaInput,
  ): Promise<CreatedAuditArea> {
    return repositories.createAuditArea(this.#transport, projectId, repositoryId, input);
  }

  /**
   * `DELETE /projects/{projectId}/repositories/{repositoryId}/audit-areas/{areaKey}`, scope
   * `guidance:write`. Only `custom` areas; a discovered one gives 409 `conflict`.
   */
  async deleteAuditArea(
    projectId: string,
    repositoryId: string,
    areaKey: string,
  ): Promise<DeleteAuditAreaResult> {
    return repositories.deleteAuditArea(this.#transport, projectId, repositoryId, areaKey);
  }

  // ── spec §Scans, §Scan presets ───────────────────────────────────────────────────────────────────

  /** `GET /projects/{projectId}/scans`, scope `read`: one page, newest first (`page` ≥ 1, `limit` 1–100). */
  async listScans(projectId: string, options: PageOptions = {}): Promise<ScanPage> {
    return scans.listScans(this.#transport, projectId, options);
  }

  /** Every scan of the project, newest first, page by page with `limit` (1–100, default 100). */
  iterateScans(projectId: string, options: { limit?: number } = {}): AsyncGenerator<ScanListItem> {
    return scans.iterateScans(this.#transport, projectId, options);
  }

  /**
   * `POST /projects/{projectId}/scans`, scope `scans:launch` (and its launch rules). Checked first:
   * `commitHash` 7–40 hex, `creditBudget` integer ≥ 1 (credits), `guidance` ≤ 100,000 characters; the
   * three states of `guidance` (absent / string / null) are kept in the body. Service errors include 402
   * `insufficient_credits`, 409 `repository_initializing`, 429 `rate_limited`, 400 `diff_base_*`, 422
   * `diff_empty`, 404 `not_found`.
   */
  async launchScan(projectId: string, options: LaunchScanOptions): Promise<LaunchResult> {
    return scans.launchScan(this.#transport, projectId, options);
  }

  /**
   * `GET /projects/{projectId}/scans/{scanId}`, scope `read`: the scan and `retryAfterSeconds`, the
   * advisory poll delay (whole seconds) the service sends while the scan is not terminal.
   */
  async getScan(projectId: string, scanId: string): Promise<GetScanResult> {
    return scans.getScan(this.#transport, projectId, scanId);
  }

  /**
   * `POST /projects/{projectId}/scans/{scanId}/cancel`, scope `scans:launch`, no body. A `COMPLETED` or
   * `FAILED` scan gives 400 `bad_request`.
   */
  async cancelScan(projectId: string, scanId: string): Promise<CancelResult> {
    return scans.cancelScan(this.#transport, projectId, scanId);
  }

  /** `POST /projects/{projectId}/scans/{scanId}/publish`, scope `publish`; the scan must be `COMPLETED`. */
  async publishScan(projectId: string, scanId: string, input: PublishScanInput): Promise<PublishedArtifact> {
    return scans.publishScan(this.#transport, projectId, scanId, input);
  }

  /** `GET /projects/{projectId}/scan-presets`, scope `read`: the scan types. */
  async listPresets(projectId: string): Promise<ScanPreset[]> {
    return scans.listPresets(this.#transport, projectId);
  }

  // ── spec §Findings ───────────────────────────────────────────────────────────────────────────────

  /**
   * `GET /projects/{projectId}/findings`, scope `read`: one page, most severe first, optionally of one scan.
   */
  async listFindings(projectId: string, options: FindingListOptions = {}): Promise<FindingPage> {
    return findings.listFindings(this.#transport, projectId, options);
  }

  /** Every finding (optionally of `scanId`), page by page with `limit` (1–100, default 100). */
  iterateFindings(
    projectId: string,
    options: { scanId?: string; limit?: number } = {},
  ): AsyncGenerator<FindingListItem> {
    return findings.iterateFindings(this.#transport, projectId, options);
  }

  /** `GET /projects/{projectId}/findings/{findingId}`, scope `read`; `findingId` is an id or a label. */
  async getFinding(projectId: string, findingId: string): Promise<FindingDetail> {
    return findings.getFinding(this.#transport, projectId, findingId);
  }

  /** `POST /projects/{projectId}/findings/{findingId}/notes`, scope `findings:write`: a Markdown comment. */
  readonly addNote = findings.findingWrite(() => this.#transport, "notes");

  /**
   * `PATCH /projects/{projectId}/findings/{findingId}/severity`, scope `findings:write`. `null` clears the
   * override. The response is not shown by the spec: any JSON object is returned as is.
   */
  readonly setSeverity = findings.findingWrite(() => this.#transport, "severity");

  /**
   * `PATCH /projects/{projectId}/findings/{findingId}/resolution`, scope `findings:write`. Its rules:
   * `note` wins over `reason` (1); both are ignored for `NOT_STARTED`/`IN_PROGRESS` (2); a reason of
   * another status gives 400 `bad_request` with the valid list (4).
   */
  readonly setResolution = findings.findingWrite(() => this.#transport, "resolution");

  /** `POST /projects/{projectId}/findings/{findingId}/publish`, scope `publish`; `noteId` pins a note. */
  readonly publishFinding = findings.findingWrite(() => this.#transport, "publish");

  // ── spec §Billing (all amounts in credits) ───────────────────────────────────────────────────────

  /** `GET /projects/{projectId}/billing/balance`, scope `read`: organization-wide balance, in credits. */
  async getBalance(projectId: string): Promise<Balance> {
    return account.getBalance(this.#transport, projectId);
  }

  /**
   * `GET /projects/{projectId}/billing/usage`, scope `read`: ledger events of this project, newest first;
   * window `from`/`to` (default the last 30 days), `limit` 1–1000.
   */
  async getUsage(projectId: string, options: UsageOptions = {}): Promise<Usage> {
    return account.getUsage(this.#transport, projectId, options);
  }

  /** `GET /projects/{projectId}/billing/summary`, scope `read`: per-month net spend and purchases. */
  async getSummary(projectId: string, options: SummaryOptions = {}): Promise<Summary> {
    return account.getSummary(this.#transport, projectId, options);
  }
}
