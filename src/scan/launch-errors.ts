import {
  ScannerApiError,
  ScannerNetworkError,
  ScannerResponseError,
  ScannerTimeoutError,
} from "../scanner/errors.js";

/** What the launch job does with an error of `POST /projects/{projectId}/scans`. */
export type LaunchErrorAction =
  /** wait, then send again; the attempt created nothing (the service refused it) */
  | {
      kind: "wait";
      delayMs: number;
      why: "rate_limited" | "repository_initializing";
      retryAfterSeconds?: number;
    }
  /** the outcome is unknown (timeout, network, 5xx, malformed answer): look the scan up before sending again */
  | { kind: "ambiguous"; message: string }
  /** stop for good and conclude the check run */
  | {
      kind: "conclude";
      conclusion: "failure" | "neutral" | "action_required";
      code: string;
      message: string;
    };

/**
 * Sorts a launch error (spec "Launch rules" and "Errors"):
 * - 409 `repository_initializing` → wait and retry (the same request succeeds once the one-time pass ends);
 * - 429 `rate_limited` → wait its `Retry-After` (token spend limit or request rate);
 * - 402 `insufficient_credits` → `action_required`, never retried;
 * - 422 `diff_empty` → `neutral`: nothing to audit;
 * - 400 `diff_base_*`, `bad_request` → `failure` with the service's message;
 * - 401/403/404 `unauthorized`, `forbidden`, `not_found` → `failure` naming the setting to fix;
 * - 5xx, `internal`, network errors, timeouts, a malformed 2xx → ambiguous: the scan may exist.
 * @param initializingDelayMs the wait for `repository_initializing`, in ms (grows with each try).
 */
export function classifyLaunchError(err: unknown, initializingDelayMs: number): LaunchErrorAction {
  if (err instanceof ScannerApiError) {
    switch (err.code) {
      case "repository_initializing":
        return { kind: "wait", delayMs: initializingDelayMs, why: "repository_initializing" };
      case "rate_limited": {
        const s = err.retryAfterSeconds ?? 60;
        return { kind: "wait", delayMs: Math.max(1, s) * 1000, why: "rate_limited", retryAfterSeconds: s };
      }
      case "insufficient_credits":
        return { kind: "conclude", conclusion: "action_required", code: err.code, message: err.message };
      case "diff_empty":
        return { kind: "conclude", conclusion: "neutral", code: err.code, message: err.message };
      case "diff_base_required":
      case "diff_base_not_allowed":
      case "diff_base_invalid":
      case "bad_request":
      case "conflict":
      case "unauthorized":
      case "forbidden":
      case "not_found":
        return { kind: "conclude", conclusion: "failure", code: err.code, message: err.message };
      default:
        if (err.status >= 500 || err.code === "internal") return { kind: "ambiguous", message: err.message };
        return { kind: "conclude", conclusion: "failure", code: err.code, message: err.message };
    }
  }
  if (
    err instanceof ScannerNetworkError ||
    err instanceof ScannerTimeoutError ||
    err instanceof ScannerResponseError
  ) {
    return { kind: "ambiguous", message: err.message };
  }
  throw err;
}

/**
 * Backoff for `repository_initializing`, in ms: `baseMs` doubled per earlier try (15 s, 30 s, 60 s, … by
 * default), capped at 5 minutes, with ±20% jitter so many repositories added at once do not retry in step.
 */
export function initializingDelay(
  tries: number,
  baseMs = 15_000,
  random: () => number = Math.random,
): number {
  const raw = Math.min(baseMs * 2 ** Math.max(0, tries), 5 * 60_000);
  return Math.round(raw * (0.8 + 0.4 * random()));
}
