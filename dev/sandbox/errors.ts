/**
 * Errors the sandbox answers with. The body shape is spec §Errors': `{error: {code, message}}`.
 */

// One list of the spec's 13 codes (spec §Errors), shared with the client.
import { ERROR_CODES, type ErrorCode } from "../../src/scanner/errors.js";

export { ERROR_CODES, type ErrorCode };

/**
 * An expected failure of a sandbox request, turned into a JSON error response by the server.
 * `retryAfterSeconds` (integer seconds) becomes the `Retry-After` header.
 */
export class SandboxApiError extends Error {
  override readonly name = "SandboxApiError";
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A bad sandbox configuration (options or scenario file); thrown by `startSandbox`, never over HTTP. */
export class SandboxConfigError extends Error {
  override readonly name = "SandboxConfigError";
}

/** 400 `bad_request` with a message that names the problem. */
export const badRequest = (message: string): SandboxApiError =>
  new SandboxApiError(400, "bad_request", message);
/** 404 `not_found`. */
export const notFound = (what: string): SandboxApiError =>
  new SandboxApiError(404, "not_found", `${what} not found (or outside this token's project or allowlist)`);
/** 409 `conflict`. */
export const conflict = (message: string): SandboxApiError => new SandboxApiError(409, "conflict", message);
