import type { Logger } from "pino";
import { ProbotOctokit } from "probot";

/** How many times one request is retried after a secondary rate limit (each after its `retry-after`). */
export const SECONDARY_LIMIT_RETRIES = 3;

/**
 * Probot's request-logging plugin logs every GitHub request's body at debug level (`GitHub request: PATCH …`
 * with the check run output, review comments, …): untrusted finding text and payloads in the logs. This
 * logger keeps the message (method, URL, status) and drops the fields object of such debug lines.
 */
export function withoutRequestBodies(log: Logger): Logger {
  const safe = Object.create(log) as Logger;
  safe.debug = ((obj: unknown, msg?: unknown, ...rest: unknown[]) => {
    if (
      obj !== null &&
      typeof obj === "object" &&
      typeof msg === "string" &&
      msg.startsWith("GitHub request:")
    )
      return log.debug(msg);
    return (log.debug as (...a: unknown[]) => void)(obj, msg, ...rest);
  }) as Logger["debug"];
  return safe;
}

/**
 * Probot's Octokit (throttling and retry plugins) with secondary rate limits retried. Probot 14 replaces the
 * throttling plugin's handlers with its own, whose `onSecondaryRateLimit` only logs (the request then fails
 * with 403). GitHub asks integrators to wait `retry-after` seconds and retry (docs: REST API "Rate limits for
 * the REST API" → "Exceeding the rate limit"; "Best practices for using the REST API" → "Handle rate limit
 * errors appropriately"); the throttling plugin does the waiting (its queue also holds back the other writes
 * of the same installation meanwhile), we allow {@link SECONDARY_LIMIT_RETRIES} retries per request, then
 * the job's own BullMQ backoff takes over. Primary rate limits keep Probot's handler (two retries). The log
 * drops request bodies ({@link withoutRequestBodies}).
 */
export const DiffwardOctokit = ProbotOctokit.defaults((instanceOptions: Record<string, unknown>) => {
  const throttle = (instanceOptions.throttle ?? {}) as Record<string, unknown>;
  const log = instanceOptions.log as Logger | undefined;
  return {
    ...instanceOptions,
    ...(log ? { log: withoutRequestBodies(log) } : {}),
    throttle: {
      ...throttle,
      onSecondaryRateLimit: (
        retryAfter: number,
        options: { method: string; url: string; request: { retryCount: number } },
        octokit: { log: { warn(msg: string): void } },
      ) => {
        const retry = options.request.retryCount < SECONDARY_LIMIT_RETRIES;
        octokit.log.warn(
          `GitHub secondary rate limit on ${options.method} ${options.url}: ${retry ? `retrying in ${retryAfter} s` : "giving up"}`,
        );
        return retry;
      },
    },
  };
}) as typeof ProbotOctokit;
