/**
 * `ScannerClient`: the typed client of the whole scanning-service API (spec §Endpoints). One method per
 * endpoint; inputs are checked with zod before any request, answers are parsed with zod at the boundary,
 * and every failure is a typed {@link ScannerError}.
 */
import { inspect } from "node:util";
import type { z } from "zod";
import {
  ErrorBody,
  ScannerApiError,
  ScannerConfigError,
  ScannerLimitError,
  ScannerNetworkError,
  ScannerRequestError,
  ScannerResponseError,
  ScannerTimeoutError,
  parseRetryAfter,
} from "./errors.js";
import {
  normalizeAuditAreaList,
  normalizeCreatedAuditArea,
  normalizeGuidance,
  normalizeRepositories,
  formatPath,
  zodIssues,
  type Normalized,
} from "./envelopes.js";
import {
  AuditAreaListOptions,
  CreateAuditAreaInput,
  FindingListOptions,
  LaunchScanOptions,
  NoteContent,
  PageOptions,
  PublishFindingInput,
  PublishScanInput,
  PutGuidanceInput,
  SetResolutionInput,
  SeverityOverride,
  SummaryOptions,
  UsageOptions,
} from "./inputs.js";
import {
  AddNoteResult,
  Balance,
  CancelResult,
  DeleteAuditAreaResult,
  FindingEnvelope,
  FindingPage,
  GuidanceWriteResult,
  LaunchResult,
  PresetList,
  PublishedArtifact,
  ResolutionResult,
  ScanEnvelope,
  ScanPage,
  SeverityResult,
  Summary,
  Token,
  Usage,
  type AuditAreaList,
  type CreatedAuditArea,
  type FindingDetail,
  type FindingListItem,
  type Guidance,
  type Repository,
  type ScanDetail,
  type ScanListItem,
  type ScanPreset,
} from "./schemas.js";

/**
 * A write to one finding (spec §Findings): its method, the schemas of the caller's input and of the answer,
 * and, for an input that is one value, the body field it is sent in (else the checked input is the body; a
 * field left `undefined` is not sent).
 */
interface FindingWrite {
  method: "POST" | "PATCH";
  input: z.ZodType;
  answer: z.ZodType;
  field?: string;
}

/** The writes to one finding, by the route's last segment. */
const FINDING_WRITES = {
  notes: { method: "POST", input: NoteContent, answer: AddNoteResult, field: "content" },
  severity: { method: "PATCH", input: SeverityOverride, answer: SeverityResult, field: "severity" },
  resolution: { method: "PATCH", input: SetResolutionInput, answer: ResolutionResult },
  publish: { method: "POST", input: PublishFindingInput, answer: PublishedArtifact },
} as const satisfies Record<string, FindingWrite>;

/** Default per-request timeout, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_USER_AGENT = "diffward-scanner-client";
/**
 * Default cap on one response body, in bytes (16 MiB). The service's answers are untrusted input: a
 * spec-shaped page of 100 findings is tens of kilobytes, so the cap only stops answers that would
 * otherwise take the process's memory.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Default cap on the pages one listing follows (`iterateScans`, `iterateFindings`). */
export const DEFAULT_MAX_PAGES = 100;
/** Default cap on the items one listing yields: 10,000 (twice GitHub's 5,000 SARIF results per run). */
export const DEFAULT_MAX_ITEMS = 10_000;

/** What {@link ScannerClientOptions.onResponse} receives for every answered request. */
export interface ResponseInfo {
  method: string;
  /** path template, e.g. `/projects/{projectId}/scans` (no ids, safe as a metric label) */
  route: string;
  status: number;
  /** from sending to the full body read, in milliseconds */
  durationMs: number;
}

export interface ScannerClientOptions {
  /** base address of a deployment; its path must end in `/api/v1` (spec §Versioning) */
  baseUrl: string;
  /** bearer token (spec §Authentication); kept private: never in errors, logs or `inspect` output */
  token: string;
  /** per-request timeout in milliseconds, body read included; default 30,000 */
  timeoutMs?: number;
  userAgent?: string;
  /** default the global (undici) `fetch` */
  fetch?: typeof fetch;
  /** Called after every answered request (any status), e.g. for metrics. Exceptions it throws are ignored. */
  onResponse?: (info: ResponseInfo) => void;
  /** Largest response body read, in bytes; default {@link DEFAULT_MAX_RESPONSE_BYTES}. */
  maxResponseBytes?: number;
  /** Most pages one listing follows; default {@link DEFAULT_MAX_PAGES}. */
  maxPages?: number;
  /** Most items one listing yields; default {@link DEFAULT_MAX_ITEMS}. */
  maxItems?: number;
}

export interface GetScanResult {
  scan: ScanDetail;
  /** the answer's advisory `Retry-After`, in whole seconds; the service omits it for terminal scans */
  retryAfterSeconds?: number;
}

type Query = Record<string, string | number | undefined>;

/**
 * What a request sends besides its path: a query (`undefined` values are not sent) and a JSON body
 * (`undefined` sends none).
 */
interface Payload {
  query?: Query;
  body?: unknown;
}

/** Caller input, given the endpoint to name in its error: checked, then made into the request's payload. */
type CheckedInput = (endpoint: string) => Payload;

interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** relative to the base URL, e.g. `/projects/{projectId}/scans/{scanId}` */
  route: string;
  params?: Record<string, string>;
  /** the caller's input ({@link checked}), checked before anything is sent; none sends no query and no body */
  input?: CheckedInput;
}

interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  endpoint: string;
}

/**
 * Typed client of the scanning service. Every method:
 * - throws {@link ScannerRequestError} for bad input, before any request (nothing is sent, nothing spent);
 * - throws {@link ScannerApiError} when the service answers non-2xx (spec §Errors: `code`, `status`,
 *   `retryAfterSeconds` from `Retry-After`, `retryable`);
 * - throws {@link ScannerNetworkError} / {@link ScannerTimeoutError} when no answer arrives;
 * - throws {@link ScannerResponseError} when a 2xx body does not fit the spec (names the field path);
 * - throws {@link ScannerLimitError} when an answer is over the client's caps: a body over
 *   `maxResponseBytes` (read as a stream, aborted at the cap), a listing over `maxPages` or `maxItems`.
 *   Finding text fields are cut at parse time (`FINDING_TEXT_MAX_CHARS` in ./schemas.ts).
 *
 * Path parameters are `encodeURIComponent`ed. Finding ids may be full ids or labels (spec §Finding label).
 */
export class ScannerClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly userAgent: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;
  readonly #onResponse: ((info: ResponseInfo) => void) | undefined;
  /** Caps on untrusted answers: bytes per response, pages and items per listing. */
  readonly limits: { maxResponseBytes: number; maxPages: number; maxItems: number };

  /**
   * @throws {ScannerConfigError} when `baseUrl` is not an http(s) URL ending in `/api/v1`, `token` is empty
   * or `timeoutMs` is not a positive integer.
   */
  constructor(options: ScannerClientOptions) {
    this.baseUrl = checkBaseUrl(options.baseUrl, "baseUrl");
    if (typeof options.token !== "string" || options.token.trim() === "") {
      throw new ScannerConfigError("token", "expected a non-empty bearer token");
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      throw new ScannerConfigError(
        "timeoutMs",
        `expected a positive integer of milliseconds, got ${timeoutMs}`,
      );
    }
    this.timeoutMs = timeoutMs;
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.#token = options.token;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#onResponse = options.onResponse;
    const limit = (name: "maxResponseBytes" | "maxPages" | "maxItems", fallback: number) => {
      const v = options[name] ?? fallback;
      if (!Number.isInteger(v) || v <= 0)
        throw new ScannerConfigError(name, `expected a positive integer, got ${v}`);
      return v;
    };
    this.limits = {
      maxResponseBytes: limit("maxResponseBytes", DEFAULT_MAX_RESPONSE_BYTES),
      maxPages: limit("maxPages", DEFAULT_MAX_PAGES),
      maxItems: limit("maxItems", DEFAULT_MAX_ITEMS),
    };
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
    return this.#json(Token, { method: "GET", route: "/token" });
  }

  // ── spec §Repositories: repositories, guidance, audit areas ──────────────────────────────────────

  /**
   * `GET /projects/{projectId}/repositories`. The envelope is not shown by the spec; the repositories
   * are found by shape (`normalizeRepositories`). A restricted token sees only its repositories.
   */
  async listRepositories(projectId: string): Promise<Repository[]> {
    return this.#normalized(normalizeRepositories, {
      method: "GET",
      route: "/projects/{projectId}/repositories",
      params: { projectId },
    });
  }

  /**
   * `GET /projects/{projectId}/repositories/{repositoryId}/guidance` (payload not shown; spec §Guidance):
   * the stored guidance, `content: null` when none is stored, plus the raw body.
   */
  async getGuidance(projectId: string, repositoryId: string): Promise<Guidance> {
    return this.#normalized(normalizeGuidance, {
      method: "GET",
      route: "/projects/{projectId}/repositories/{repositoryId}/guidance",
      params: { projectId, repositoryId },
    });
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
    return this.#json(GuidanceWriteResult, {
      method: "PUT",
      route: "/projects/{projectId}/repositories/{repositoryId}/guidance",
      params: { projectId, repositoryId },
      input: checked(PutGuidanceInput, input, asBody),
    });
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
    return this.#normalized(normalizeAuditAreaList, {
      method: "GET",
      route: "/projects/{projectId}/repositories/{repositoryId}/audit-areas",
      params: { projectId, repositoryId },
      input: checked(AuditAreaListOptions, options, asQuery),
    });
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
    return this.#normalized(normalizeCreatedAuditArea, {
      method: "POST",
      route: "/projects/{projectId}/repositories/{repositoryId}/audit-areas",
      params: { projectId, repositoryId },
      input: checked(CreateAuditAreaInput, input, asBody),
    });
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
    return this.#json(DeleteAuditAreaResult, {
      method: "DELETE",
      route: "/projects/{projectId}/repositories/{repositoryId}/audit-areas/{areaKey}",
      params: { projectId, repositoryId, areaKey },
    });
  }

  // ── spec §Scans, §Scan presets ───────────────────────────────────────────────────────────────────

  /** `GET /projects/{projectId}/scans`, scope `read`: one page, newest first (`page` ≥ 1, `limit` 1–100). */
  async listScans(projectId: string, options: PageOptions = {}): Promise<ScanPage> {
    return this.#json(ScanPage, {
      method: "GET",
      route: "/projects/{projectId}/scans",
      params: { projectId },
      input: checked(PageOptions, options, asQuery),
    });
  }

  /** Every scan of the project, newest first, page by page with `limit` (1–100, default 100). */
  async *iterateScans(projectId: string, options: { limit?: number } = {}): AsyncGenerator<ScanListItem> {
    const limit = options.limit ?? 100;
    checkInput(PageOptions, { limit }, "GET /projects/{projectId}/scans");
    yield* paginate(
      (page) => this.listScans(projectId, { page, limit }),
      this.limits,
      "GET /projects/{projectId}/scans",
    );
  }

  /**
   * `POST /projects/{projectId}/scans`, scope `scans:launch` (and its launch rules). Checked first:
   * `commitHash` 7–40 hex, `creditBudget` integer ≥ 1 (credits), `guidance` ≤ 100,000 characters; the
   * three states of `guidance` (absent / string / null) are kept in the body. Service errors include 402
   * `insufficient_credits`, 409 `repository_initializing`, 429 `rate_limited`, 400 `diff_base_*`, 422
   * `diff_empty`, 404 `not_found`.
   */
  async launchScan(projectId: string, options: LaunchScanOptions): Promise<LaunchResult> {
    return this.#json(LaunchResult, {
      method: "POST",
      route: "/projects/{projectId}/scans",
      params: { projectId },
      // The body is the caller's keys in the caller's order, those left `undefined` not sent.
      input: checked(LaunchScanOptions, options, () => ({
        body: Object.fromEntries(Object.entries(options).filter(([, val]) => val !== undefined)),
      })),
    });
  }

  /**
   * `GET /projects/{projectId}/scans/{scanId}`, scope `read`: the scan and `retryAfterSeconds`, the
   * advisory poll delay (whole seconds) the service sends while the scan is not terminal.
   */
  async getScan(projectId: string, scanId: string): Promise<GetScanResult> {
    const answer = await this.#send({
      method: "GET",
      route: "/projects/{projectId}/scans/{scanId}",
      params: { projectId, scanId },
    });
    const { scan } = parseBody(ScanEnvelope, answer);
    const retryAfterSeconds = parseRetryAfter(answer.headers.get("retry-after"));
    return retryAfterSeconds === undefined ? { scan } : { scan, retryAfterSeconds };
  }

  /**
   * `POST /projects/{projectId}/scans/{scanId}/cancel`, scope `scans:launch`, no body. A `COMPLETED` or
   * `FAILED` scan gives 400 `bad_request`.
   */
  async cancelScan(projectId: string, scanId: string): Promise<CancelResult> {
    return this.#json(CancelResult, {
      method: "POST",
      route: "/projects/{projectId}/scans/{scanId}/cancel",
      params: { projectId, scanId },
    });
  }

  /** `POST /projects/{projectId}/scans/{scanId}/publish`, scope `publish`; the scan must be `COMPLETED`. */
  async publishScan(projectId: string, scanId: string, input: PublishScanInput): Promise<PublishedArtifact> {
    return this.#json(PublishedArtifact, {
      method: "POST",
      route: "/projects/{projectId}/scans/{scanId}/publish",
      params: { projectId, scanId },
      input: checked(PublishScanInput, input, asBody),
    });
  }

  /** `GET /projects/{projectId}/scan-presets`, scope `read`: the scan types. */
  async listPresets(projectId: string): Promise<ScanPreset[]> {
    const list = await this.#json(PresetList, {
      method: "GET",
      route: "/projects/{projectId}/scan-presets",
      params: { projectId },
    });
    return list.presets;
  }

  // ── spec §Findings ───────────────────────────────────────────────────────────────────────────────

  /**
   * `GET /projects/{projectId}/findings`, scope `read`: one page, most severe first, optionally of one scan.
   */
  async listFindings(projectId: string, options: FindingListOptions = {}): Promise<FindingPage> {
    return this.#json(FindingPage, {
      method: "GET",
      route: "/projects/{projectId}/findings",
      params: { projectId },
      input: checked(FindingListOptions, options, asQuery),
    });
  }

  /** Every finding (optionally of `scanId`), page by page with `limit` (1–100, default 100). */
  async *iterateFindings(
    projectId: string,
    options: { scanId?: string; limit?: number } = {},
  ): AsyncGenerator<FindingListItem> {
    const limit = options.limit ?? 100;
    const scanId = options.scanId;
    checkInput(FindingListOptions, { limit, scanId }, "GET /projects/{projectId}/findings");
    yield* paginate(
      (page) => this.listFindings(projectId, { page, limit, scanId }),
      this.limits,
      "GET /projects/{projectId}/findings",
    );
  }

  /** `GET /projects/{projectId}/findings/{findingId}`, scope `read`; `findingId` is an id or a label. */
  async getFinding(projectId: string, findingId: string): Promise<FindingDetail> {
    const { finding } = await this.#json(FindingEnvelope, {
      method: "GET",
      route: "/projects/{projectId}/findings/{findingId}",
      params: { projectId, findingId },
    });
    return finding;
  }

  /** `POST /projects/{projectId}/findings/{findingId}/notes`, scope `findings:write`: a Markdown comment. */
  readonly addNote = this.#findingWrite("notes");

  /**
   * `PATCH /projects/{projectId}/findings/{findingId}/severity`, scope `findings:write`. `null` clears the
   * override. The response is not shown by the spec: any JSON object is returned as is.
   */
  readonly setSeverity = this.#findingWrite("severity");

  /**
   * `PATCH /projects/{projectId}/findings/{findingId}/resolution`, scope `findings:write`. Its rules:
   * `note` wins over `reason` (1); both are ignored for `NOT_STARTED`/`IN_PROGRESS` (2); a reason of
   * another status gives 400 `bad_request` with the valid list (4).
   */
  readonly setResolution = this.#findingWrite("resolution");

  /** `POST /projects/{projectId}/findings/{findingId}/publish`, scope `publish`; `noteId` pins a note. */
  readonly publishFinding = this.#findingWrite("publish");

  // ── spec §Billing (all amounts in credits) ───────────────────────────────────────────────────────

  /** `GET /projects/{projectId}/billing/balance`, scope `read`: organization-wide balance, in credits. */
  async getBalance(projectId: string): Promise<Balance> {
    return this.#json(Balance, {
      method: "GET",
      route: "/projects/{projectId}/billing/balance",
      params: { projectId },
    });
  }

  /**
   * `GET /projects/{projectId}/billing/usage`, scope `read`: ledger events of this project, newest first;
   * window `from`/`to` (default the last 30 days), `limit` 1–1000.
   */
  async getUsage(projectId: string, options: UsageOptions = {}): Promise<Usage> {
    const iso = (d: Date | string | undefined) => (d instanceof Date ? d.toISOString() : d);
    return this.#json(Usage, {
      method: "GET",
      route: "/projects/{projectId}/billing/usage",
      params: { projectId },
      input: checked(UsageOptions, options, ({ from, to, limit }) => ({
        query: { from: iso(from), to: iso(to), limit },
      })),
    });
  }

  /** `GET /projects/{projectId}/billing/summary`, scope `read`: per-month net spend and purchases. */
  async getSummary(projectId: string, options: SummaryOptions = {}): Promise<Summary> {
    return this.#json(Summary, {
      method: "GET",
      route: "/projects/{projectId}/billing/summary",
      params: { projectId },
      input: checked(SummaryOptions, options, asQuery),
    });
  }

  // ── Transport ────────────────────────────────────────────────────────────────────────────────────

  async #json<S extends z.ZodType>(schema: S, spec: RequestSpec): Promise<z.output<S>> {
    return parseBody(schema, await this.#send(spec));
  }

  /**
   * The method of a write to one finding, `<method> /projects/{projectId}/findings/{findingId}/<action>`
   * ({@link FINDING_WRITES}): the input is checked before any request ({@link checked}; a one-value input
   * is named by its body field in the error), then sent as the body.
   * @throws ScannerRequestError for an input the spec refuses; the request's errors as {@link #send} throws them.
   */
  #findingWrite<A extends keyof typeof FINDING_WRITES>(action: A) {
    type Write = (typeof FINDING_WRITES)[A];
    const { method, input: schema, answer, field } = FINDING_WRITES[action] as FindingWrite;
    const route = `/projects/{projectId}/findings/{findingId}/${action}` as const;
    return async (
      projectId: string,
      findingId: string,
      input: z.input<Write["input"]>,
    ): Promise<z.output<Write["answer"]>> => {
      const answered = await this.#json(answer, {
        method,
        route,
        params: { projectId, findingId },
        input: checked(schema, input, (v) => ({ body: field === undefined ? v : { [field]: v } }), field),
      });
      return answered as z.output<Write["answer"]>;
    };
  }

  async #normalized<T>(normalize: (body: unknown) => Normalized<T>, spec: RequestSpec): Promise<T> {
    const answer = await this.#send(spec);
    const r = normalize(answer.body);
    if (!r.ok) throw new ScannerResponseError(answer.endpoint, answer.status, r.issues);
    return r.value;
  }

  async #send(spec: RequestSpec): Promise<RawAnswer> {
    const endpoint = `${spec.method} ${spec.route}`;
    const { query, body: payload } = spec.input?.(endpoint) ?? {};
    const url = new URL(this.baseUrl + buildPath(spec, endpoint));
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));

    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#token}`,
      accept: "application/json",
      "user-agent": this.userAgent,
    };
    if (payload !== undefined) headers["content-type"] = "application/json";

    const started = performance.now();
    const signal = AbortSignal.timeout(this.timeoutMs);
    let status: number;
    let resHeaders: Headers;
    let text: string;
    try {
      const res = await this.#fetch(url, {
        method: spec.method,
        headers,
        body: payload === undefined ? undefined : JSON.stringify(payload),
        signal,
        redirect: "error",
      });
      status = res.status;
      resHeaders = res.headers;
      text = await readCapped(res, this.limits.maxResponseBytes, endpoint);
    } catch (err) {
      if (err instanceof ScannerLimitError) throw err;
      throw this.#transportError(err, endpoint, signal);
    }
    const durationMs = performance.now() - started;
    try {
      this.#onResponse?.({ method: spec.method, route: spec.route, status, durationMs });
    } catch {
      // A metrics hook must never turn an answered request into a failure (e.g. a launched scan).
    }

    let body: unknown = undefined;
    let jsonError: string | undefined;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch (err) {
        jsonError = err instanceof Error ? err.message : String(err);
      }
    }

    if (status < 200 || status >= 300) throw apiError(endpoint, status, resHeaders, body);
    if (jsonError !== undefined || text === "") {
      throw new ScannerResponseError(endpoint, status, [
        {
          path: "(body)",
          message: text === "" ? "expected a JSON body, got none" : `not JSON: ${jsonError}`,
        },
      ]);
    }
    return { status, headers: resHeaders, body, endpoint };
  }

  #transportError(err: unknown, endpoint: string, signal: AbortSignal): Error {
    const name = err instanceof Error || err instanceof DOMException ? err.name : "";
    if (name === "TimeoutError" || (signal.aborted && (name === "AbortError" || name === "TimeoutError"))) {
      return new ScannerTimeoutError(endpoint, this.timeoutMs, err);
    }
    return new ScannerNetworkError(endpoint, systemCode(err), err);
  }
}

/**
 * Reads a response body as UTF-8 text, at most `maxBytes` bytes: a `Content-Length` over the cap is
 * refused before reading, and a body that grows past it is cancelled at the cap (the rest is never read).
 *
 * @throws {ScannerLimitError} (`response-bytes`) past the cap.
 */
async function readCapped(res: Response, maxBytes: number, endpoint: string): Promise<string> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new ScannerLimitError(endpoint, "response-bytes", maxBytes);
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ScannerLimitError(endpoint, "response-bytes", maxBytes);
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join("");
}

/**
 * Yields every item of every page until `total` is reached or a page comes back short or empty, at most
 * `maxPages` pages and `maxItems` items.
 *
 * @throws {ScannerLimitError} (`pages` or `items`) when the listing goes on past a cap.
 */
async function* paginate<T>(
  fetchPage: (page: number) => Promise<{ items: T[]; total: number; limit: number }>,
  caps: { maxPages: number; maxItems: number },
  endpoint: string,
): AsyncGenerator<T> {
  let seen = 0;
  for (let page = 1; ; page++) {
    if (page > caps.maxPages) throw new ScannerLimitError(endpoint, "pages", caps.maxPages);
    const p = await fetchPage(page);
    if (seen + p.items.length > caps.maxItems) throw new ScannerLimitError(endpoint, "items", caps.maxItems);
    yield* p.items;
    seen += p.items.length;
    if (p.items.length === 0 || seen >= p.total || p.items.length < p.limit) return;
  }
}

function buildPath(spec: RequestSpec, endpoint: string): string {
  return spec.route.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = spec.params?.[name];
    if (typeof value !== "string" || value === "") {
      throw new ScannerRequestError(endpoint, name, "expected a non-empty string path parameter");
    }
    return encodeURIComponent(value);
  });
}

function parseBody<S extends z.ZodType>(schema: S, answer: RawAnswer): z.output<S> {
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success)
    throw new ScannerResponseError(answer.endpoint, answer.status, zodIssues(parsed.error));
  return parsed.data;
}

/** Sends the checked input as the request's JSON body (JSON leaves out a field left `undefined`). */
const asBody = (body: unknown): Payload => ({ body });

/** Sends the checked input as the request's query (a value left `undefined` is not sent). */
const asQuery = (query: Query): Payload => ({ query });

/**
 * Caller input for a {@link RequestSpec}: `value` is checked with `schema` ({@link checkInput}, naming the
 * endpoint of the request it is sent with, and `field` for a one-value input), then `send` makes the query
 * or body of the checked value.
 */
function checked<S extends z.ZodType>(
  schema: S,
  value: unknown,
  send: (checked: z.output<S>) => Payload,
  field?: string,
): CheckedInput {
  return (endpoint) => send(checkInput(schema, value, endpoint, field));
}

/**
 * Checks caller input with `schema`.
 * @throws {ScannerRequestError} naming the first offending field (prefixed by `field` for scalar inputs).
 */
function checkInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  endpoint: string,
  field?: string,
): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path: PropertyKey[] = [...(field ? [field] : []), ...(issue.path as PropertyKey[])];
  let message = issue.message;
  if (issue.code === "unrecognized_keys") {
    path.push(issue.keys[0]!);
    message = `unknown option (allowed: ${allowedKeys(schema).join(", ")})`;
  }
  throw new ScannerRequestError(endpoint, path.length ? formatPath(path) : "(input)", message);
}

function allowedKeys(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

function apiError(endpoint: string, status: number, headers: Headers, body: unknown): ScannerApiError {
  const retryAfterSeconds = parseRetryAfter(headers.get("retry-after"));
  const parsed = ErrorBody.safeParse(body);
  if (parsed.success) {
    const { code, message } = parsed.data.error;
    return new ScannerApiError({
      status,
      code,
      message,
      endpoint,
      ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    });
  }
  // Not spec §Errors' shape: keep whatever message there is, but never invent a code.
  const loose = body as { error?: { message?: unknown } } | undefined;
  const message =
    typeof loose?.error?.message === "string"
      ? loose.error.message
      : `HTTP ${status} without a spec error body`;
  return new ScannerApiError({
    status,
    code: "unknown",
    message,
    endpoint,
    ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
  });
}

/** The system error code (`ECONNREFUSED`, `ECONNRESET`, …) of a fetch failure, looking through causes. */
function systemCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
    if (e instanceof AggregateError) e = e.errors[0];
  }
  return undefined;
}

/**
 * Checks a deployment base address: an http(s) URL whose path ends in `/api/v1` (one trailing slash is
 * tolerated and removed). Returns it without trailing slash.
 * @throws {ScannerConfigError} naming `variable`.
 */
export function checkBaseUrl(value: unknown, variable: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ScannerConfigError(variable, "expected the service base URL, ending in /api/v1");
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ScannerConfigError(variable, `not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ScannerConfigError(variable, `expected an http or https URL, got ${url.protocol}`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ScannerConfigError(variable, "expected no credentials, query or fragment in the base URL");
  }
  const path = url.pathname.replace(/\/$/, "");
  if (!path.endsWith("/api/v1")) {
    throw new ScannerConfigError(
      variable,
      `expected the path to end in /api/v1, got ${JSON.stringify(url.pathname)}`,
    );
  }
  return `${url.origin}${path}`;
}
