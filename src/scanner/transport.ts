/**
 * The transport of the scanning-service client: one HTTP request to the service (spec §Authentication,
 * §Errors, §Versioning) and its answer, read under the client's caps and turned into a typed
 * `ScannerError` (./errors.ts) when it fails. It knows routes and bodies only as the endpoint modules
 * (`*-endpoints.ts`) describe them. The bearer token is held privately: never in an error, a log line or
 * `inspect` output.
 */
import type { z } from "zod";
import { checkBaseUrl } from "./config.js";
import { type Normalized, zodIssues } from "./envelopes.js";
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
import type { CheckedInput } from "./request-input.js";

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

/** Caps on untrusted answers: bytes per response, pages and items per listing. */
export interface ClientLimits {
  maxResponseBytes: number;
  maxPages: number;
  maxItems: number;
}

/** One request to the service, as an endpoint module describes it. */
export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** relative to the base URL, e.g. `/projects/{projectId}/scans/{scanId}` */
  route: string;
  params?: Record<string, string>;
  /** the caller's input (`checked` in ./request-input.ts), checked before anything is sent; none sends no query and no body */
  input?: CheckedInput;
}

/** A 2xx answer: its status, headers and JSON body, and the endpoint (`METHOD /route`) errors name. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  endpoint: string;
}

/**
 * Sends {@link RequestSpec}s to one deployment of the service with one token. Every request:
 * - checks its input first and throws {@link ScannerRequestError} before anything is sent;
 * - throws {@link ScannerApiError} when the service answers non-2xx (spec §Errors: `code`, `status`,
 *   `retryAfterSeconds` from `Retry-After`, `retryable`);
 * - throws {@link ScannerNetworkError} / {@link ScannerTimeoutError} when no answer arrives within `timeoutMs`
 *   (body read included);
 * - throws {@link ScannerResponseError} when a 2xx body is not JSON or does not fit its schema;
 * - throws {@link ScannerLimitError} (`response-bytes`) for a body over `maxResponseBytes`.
 * Path parameters are `encodeURIComponent`ed; redirects are refused.
 */
export class ScannerTransport {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly userAgent: string;
  readonly limits: ClientLimits;
  readonly #token: string;
  readonly #fetch: typeof fetch;
  readonly #onResponse: ((info: ResponseInfo) => void) | undefined;

  /**
   * @throws {ScannerConfigError} when `baseUrl` is not an http(s) URL ending in `/api/v1`, `token` is empty,
   * or `timeoutMs`, `maxResponseBytes`, `maxPages` or `maxItems` is not a positive integer.
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
    const limit = (name: keyof ClientLimits, fallback: number) => {
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

  /**
   * Sends `spec` and parses the 2xx body with `schema`.
   * @throws the errors of {@link send}, and {@link ScannerResponseError} naming the field path.
   */
  async json<S extends z.ZodType>(schema: S, spec: RequestSpec): Promise<z.output<S>> {
    return parseBody(schema, await this.send(spec));
  }

  /**
   * Sends `spec` and finds its data in a body the spec leaves unnamed with `normalize` (./envelopes.ts).
   * @throws the errors of {@link send}, and {@link ScannerResponseError} with the normalizer's issues.
   */
  async normalized<T>(normalize: (body: unknown) => Normalized<T>, spec: RequestSpec): Promise<T> {
    const answer = await this.send(spec);
    const r = normalize(answer.body);
    if (!r.ok) throw new ScannerResponseError(answer.endpoint, answer.status, r.issues);
    return r.value;
  }

  /**
   * Sends `spec` and returns its 2xx answer with a JSON body. Calls `onResponse` for every answered
   * request (any status); what it throws is ignored.
   * @throws the typed errors the class lists.
   */
  async send(spec: RequestSpec): Promise<RawAnswer> {
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

function buildPath(spec: RequestSpec, endpoint: string): string {
  return spec.route.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = spec.params?.[name];
    if (typeof value !== "string" || value === "") {
      throw new ScannerRequestError(endpoint, name, "expected a non-empty string path parameter");
    }
    return encodeURIComponent(value);
  });
}

/**
 * Parses a 2xx answer's body with `schema`.
 * @throws {ScannerResponseError} naming the first field paths that do not fit.
 */
export function parseBody<S extends z.ZodType>(schema: S, answer: RawAnswer): z.output<S> {
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success)
    throw new ScannerResponseError(answer.endpoint, answer.status, zodIssues(parsed.error));
  return parsed.data;
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
