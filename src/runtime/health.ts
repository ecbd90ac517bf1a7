import { ScannerClient } from "../scanner/client.js";
import { ScannerApiError } from "../scanner/errors.js";

/** Options of {@link serviceReachability}. */
export interface ServiceHealthOptions {
  /** the service's `{base_url}` (ends in `/api/v1`) */
  baseUrl: string;
  /** the default token (`SCANNER_TOKEN`); without one the check answers `not-configured` */
  token?: string;
  /** per-request timeout of the probe, in ms (default 2,000) */
  timeoutMs?: number;
  /** how long one answer is reused, in ms (default 5,000), so probes never load the service */
  cacheMs?: number;
  /** clock, ms since epoch */
  now?: () => number;
}

/** What `/healthz` shows of the scanning service. Never contains the token. */
export type ServiceHealth = {
  /** `ok`: `GET /token` answered 200; `unauthorized`: it answered 401/403; `unreachable`: anything else */
  service: "ok" | "unauthorized" | "unreachable" | "not-configured";
  /** HTTP status or error class when not `ok` */
  serviceDetail?: string;
  /** when the answer was obtained, ISO */
  serviceCheckedAt?: string;
};

/**
 * A `/healthz` detail: whether the scanning service answers `GET /token` (spec §Token, any scope) within
 * `timeoutMs`, cached `cacheMs` so a probe every second costs the service one request per 5 s. Concurrent
 * probes share one request. The detail is informative only: it never fails the probe (a service outage
 * must not take diffward's webhook endpoint out of rotation: GitHub never redelivers a webhook on its own;
 * README "Deployment").
 */
export function serviceReachability(opts: ServiceHealthOptions): () => Promise<ServiceHealth> {
  const now = opts.now ?? Date.now;
  const cacheMs = opts.cacheMs ?? 5_000;
  if (!opts.token) return async () => ({ service: "not-configured" });
  const client = new ScannerClient({
    baseUrl: opts.baseUrl,
    token: opts.token,
    timeoutMs: opts.timeoutMs ?? 2_000,
    userAgent: "diffward-healthz",
  });
  let cached: { at: number; value: Promise<ServiceHealth> } | undefined;
  const probe = async (): Promise<ServiceHealth> => {
    const checkedAt = new Date(now()).toISOString();
    try {
      await client.getToken();
      return { service: "ok", serviceCheckedAt: checkedAt };
    } catch (error) {
      if (error instanceof ScannerApiError && (error.status === 401 || error.status === 403))
        return { service: "unauthorized", serviceDetail: String(error.status), serviceCheckedAt: checkedAt };
      const detail = error instanceof ScannerApiError ? String(error.status) : (error as Error).name;
      return { service: "unreachable", serviceDetail: detail, serviceCheckedAt: checkedAt };
    }
  };
  return () => {
    if (!cached || now() - cached.at >= cacheMs) cached = { at: now(), value: probe() };
    return cached.value;
  };
}
