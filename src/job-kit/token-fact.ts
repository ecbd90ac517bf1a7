/**
 * The scanner token's answer for an installation's account, as the jobs that launch a scan read it
 * (`readAccountToken` in `service-outage.ts`) and their pure decisions take it (the pull-request and baseline jobs).
 */
import { ScannerApiError } from "../scanner/errors.js";

/** The scanner token's answer for the installation's account (`GET /token`, spec "Authentication"). */
export type TokenFact =
  | { kind: "found" }
  | { kind: "absent" }
  | { kind: "refused"; message: string }
  /**
   * the service is unavailable (5xx, timeout, no answer, or its tenant's circuit breaker open) since `since`
   * (ms since epoch): the launch is planned anyway and waits for the service, which may refuse the token later
   */
  | { kind: "unavailable"; since: number; maxWaitMs: number };

/**
 * The token fact of a `GET /token` the service refused for good (the configured token is wrong, expired or
 * revoked: spec "Authentication"), with the service's message. Pure.
 */
export function refusedToken(error: unknown): Extract<TokenFact, { kind: "refused" }> {
  return {
    kind: "refused",
    message: error instanceof ScannerApiError ? error.message : String((error as Error).message),
  };
}
