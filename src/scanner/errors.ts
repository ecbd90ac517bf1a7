/**
 * Typed errors of the scanning-service client. Every failure of a {@link ScannerClient} call is one of
 * these; anything else thrown is a bug.
 *
 * - {@link ScannerApiError}: the service answered with a non-2xx status (spec §Errors).
 * - {@link ScannerNetworkError}: no answer at all (connection refused, reset, DNS failure).
 * - {@link ScannerTimeoutError}: no complete answer within the per-request timeout.
 * - {@link ScannerResponseError}: a 2xx answer whose body does not fit the spec's shape.
 * - {@link ScannerRequestError}: the caller's input was refused before any request was sent.
 * - {@link ScannerConfigError}: the client or its deployment is misconfigured.
 */
import { z } from "zod";

/** The allowed `code` values of spec §Errors. */
export const ERROR_CODES = [
  "unauthorized",
  "forbidden",
  "not_found",
  "bad_request",
  "conflict",
  "insufficient_credits",
  "repository_initializing",
  "diff_base_required",
  "diff_base_not_allowed",
  "diff_base_invalid",
  "diff_empty",
  "rate_limited",
  "internal",
] as const;

export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** spec §Errors: `{error: {code, message}}`, both strings required. Unknown extra fields are kept. */
export const ErrorBody = z.looseObject({
  error: z.looseObject({ code: ErrorCode, message: z.string() }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export abstract class ScannerError extends Error {
  /** whether repeating the same request later may succeed */
  abstract readonly retryable: boolean;
  /** The endpoint template, e.g. `"POST /projects/{projectId}/scans"`; absent for configuration errors. */
  readonly endpoint: string | undefined;

  protected constructor(message: string, endpoint: string | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.endpoint = endpoint;
  }
}

export interface ScannerApiErrorInit {
  status: number;
  /** `"unknown"` when the body is not spec §Errors' shape */
  code: ErrorCode | "unknown";
  /** the service's message, or a generated one when the body carries none */
  message: string;
  /** the answer's `Retry-After`, in whole seconds (never negative), when present and parseable */
  retryAfterSeconds?: number;
  /** e.g. `"GET /projects/{projectId}/scans/{scanId}"` */
  endpoint: string;
}

/**
 * The service answered with an error status (spec §Errors).
 *
 * `retryable` is true for 429 (`rate_limited`), any 5xx and the `internal` code; false for every other
 * 4xx, including 402 `insufficient_credits` (more credits are needed, waiting does not help) and 409
 * `repository_initializing` (the caller decides whether to wait for readiness; spec §Scans, launch rule 4).
 */
export class ScannerApiError extends ScannerError {
  readonly status: number;
  readonly code: ErrorCode | "unknown";
  readonly retryAfterSeconds: number | undefined;
  readonly retryable: boolean;
  declare readonly endpoint: string;

  constructor(init: ScannerApiErrorInit) {
    super(`${init.endpoint} answered ${init.status} ${init.code}: ${init.message}`, init.endpoint);
    this.status = init.status;
    this.code = init.code;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.retryable = init.status === 429 || init.status >= 500 || init.code === "internal";
  }

  /** The service's own message, without the endpoint/status prefix of `message`. */
  get serviceMessage(): string {
    const prefix = `${this.endpoint} answered ${this.status} ${this.code}: `;
    return this.message.startsWith(prefix) ? this.message.slice(prefix.length) : this.message;
  }
}

/** No answer: connection refused or reset, DNS failure, socket closed. Always retryable. */
export class ScannerNetworkError extends ScannerError {
  readonly retryable = true;
  /** e.g. `ECONNREFUSED`, when known */
  readonly systemCode: string | undefined;

  constructor(endpoint: string, systemCode: string | undefined, cause: unknown) {
    super(`${endpoint} failed: network error${systemCode ? ` (${systemCode})` : ""}`, endpoint, { cause });
    this.systemCode = systemCode;
  }
}

/** The request did not complete within the client's per-request timeout. Always retryable. */
export class ScannerTimeoutError extends ScannerError {
  readonly retryable = true;
  /** in milliseconds */
  readonly timeoutMs: number;

  constructor(endpoint: string, timeoutMs: number, cause?: unknown) {
    super(`${endpoint} timed out after ${timeoutMs} ms`, endpoint, { cause });
    this.timeoutMs = timeoutMs;
  }
}

/** One problem found in a 2xx body: a dotted field path (`scan.progress.percent`) and what is wrong. */
export interface ResponseIssue {
  path: string;
  message: string;
}

/**
 * A 2xx answer whose body does not fit the spec's schema. Not retryable: the same request will give
 * the same body. `path` names the first offending field, e.g. `scan.progress.percent`, or `(body)` when
 * the body as a whole is wrong (not JSON, wrong type).
 */
export class ScannerResponseError extends ScannerError {
  readonly retryable = false;
  readonly status: number;
  /** dotted path of the first offending field; `(body)` for the body itself */
  readonly path: string;
  readonly issues: readonly ResponseIssue[];
  declare readonly endpoint: string;

  constructor(endpoint: string, status: number, issues: readonly ResponseIssue[]) {
    const first = issues[0] ?? { path: "(body)", message: "unexpected body" };
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
    super(`${endpoint} returned an unexpected body: ${first.path}: ${first.message}${more}`, endpoint);
    this.status = status;
    this.path = first.path;
    this.issues = issues;
  }
}

/**
 * The caller's input breaks a rule of the spec (§Limits, each endpoint's body table) and was refused before
 * any request was sent. Not retryable. `field` names the input, e.g. `commitHash`.
 */
export class ScannerRequestError extends ScannerError {
  readonly retryable = false;
  /** dotted, e.g. `note.content` */
  readonly field: string;
  declare readonly endpoint: string;

  constructor(endpoint: string, field: string, problem: string) {
    super(`${endpoint} not sent: ${field}: ${problem}`, endpoint);
    this.field = field;
  }
}

/** Which of the client's limits on the service's answers (untrusted input) an answer broke. */
export type ScannerLimit = "response-bytes" | "pages" | "items";

/**
 * An answer bigger than the client accepts from the service (its answers are untrusted input): a body over
 * `maxResponseBytes` (read as a stream and aborted at the cap, or refused from its `Content-Length`), or a
 * listing longer than `maxPages` pages or `maxItems` items. Not retryable: the same request gives the
 * same answer. `limit` is the cap, in bytes for `response-bytes`, else in pages or items.
 */
export class ScannerLimitError extends ScannerError {
  readonly retryable = false;
  readonly kind: ScannerLimit;
  /** bytes for `response-bytes`, pages for `pages`, items for `items` */
  readonly limit: number;
  declare readonly endpoint: string;

  constructor(endpoint: string, kind: ScannerLimit, limit: number) {
    const what =
      kind === "response-bytes"
        ? `a response body over ${limit} bytes`
        : kind === "pages"
          ? `more than ${limit} pages`
          : `more than ${limit} items`;
    super(`${endpoint} answered with ${what}, more than diffward accepts from the service`, endpoint);
    this.kind = kind;
    this.limit = limit;
  }
}

/** The client or the deployment selection is misconfigured; `variable` names the setting at fault. */
export class ScannerConfigError extends ScannerError {
  readonly retryable = false;
  /** e.g. `SCANNER_API_URL` */
  readonly variable: string;

  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`, undefined);
    this.variable = variable;
  }
}

/**
 * True when repeating the failed operation later may succeed: a {@link ScannerError} whose `retryable`
 * is true (429, 5xx, `internal`, network errors, timeouts). False for anything else, including
 * non-scanner errors.
 */
export function isRetryable(err: unknown): boolean {
  return err instanceof ScannerError && err.retryable;
}

/**
 * Parses an HTTP `Retry-After` header (RFC 9110 §10.2.3) into whole seconds: either delay-seconds
 * (a non-negative integer) or an HTTP-date, taken relative to `nowMs` (epoch milliseconds) and rounded
 * up. Never negative: a date in the past gives 0. Returns `undefined` for a missing or unparseable value.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  // An HTTP-date always names a weekday or month; refuse bare numbers like "1.5" or "-3".
  if (!/[A-Za-z]/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * True when the service is down rather than refusing one request: a 5xx or `internal` answer (spec §Errors),
 * a timeout, or no answer at all. A 429 is not (the service is up and says when to come back: its
 * `Retry-After` is followed per request); a malformed 2xx is not (the service answered).
 */
export function isServiceOutage(
  err: unknown,
): err is ScannerApiError | ScannerNetworkError | ScannerTimeoutError {
  if (err instanceof ScannerApiError) return err.status >= 500 || err.code === "internal";
  return err instanceof ScannerNetworkError || err instanceof ScannerTimeoutError;
}
