import type { Logger } from "pino";
import { grantedHere, type WriteLane } from "./write-lane.js";
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

/** A group of the throttling plugin that lets every request through at once (the write lane paced it). */
const PASS_THROUGH = {
  key: () => ({
    schedule: <T>(_options: unknown, fn: () => Promise<T> | T) => Promise.resolve().then(fn),
  }),
};

/** Is this request content-creating (GitHub's secondary limits)? GETs, HEADs, token requests, GraphQL queries are not. */
function isContentWrite(options: { method?: string; url?: string; query?: unknown }): boolean {
  const method = (options.method ?? "GET").toUpperCase();
  if (method === "GET" || method === "HEAD") return false;
  const { pathname } = new URL(options.url ?? "/", "http://github.test");
  if (/\/app\/installations\/[^/]+\/access_tokens$/.test(pathname)) return false;
  if (pathname.endsWith("/graphql")) return /^\s*mutation\b/.test(String(options.query ?? ""));
  return true;
}

/**
 * The Octokit class of a process with a write lane (`src/runtime/write-lane.ts`): every content-creating
 * request of an installation (REST writes and GraphQL mutations) takes a slot of the installation's lane,
 * shared by every diffward process through Redis, instead of the throttling plugin's in-process write (1 s)
 * and notifications (3 s) groups, which become pass-through. Every write diffward makes as an installation
 * is planned and reaches here already granted (`applyWrites` → `WriteLane.run`, with its priority and
 * coalescing; test/architecture/write-path.test.ts); a write that was not (none in `src/`) still asks the
 * lane, with priority `create`. An Octokit whose throttling is
 * turned off (tests) turns the lane's pacing off too ({@link WriteLane.pacing}). Requests as the app itself
 * (no installation) are not laned. Reads keep the plugin's groups.
 */
export function withWriteLane(Octokit: typeof ProbotOctokit, lane: WriteLane): typeof ProbotOctokit {
  const lanePlugin = (
    octokit: {
      hook: {
        wrap(
          name: "request",
          fn: (req: (o: unknown) => Promise<unknown>, o: unknown) => Promise<unknown>,
        ): void;
      };
    },
    options: { auth?: { installationId?: number | string }; throttle?: { enabled?: boolean } },
  ) => {
    // an Octokit built with throttling off (tests) paces nothing: the lane keeps only its order
    if (options.throttle?.enabled === false) lane.pacing(false);
    const installationId = Number(options.auth?.installationId);
    if (!Number.isInteger(installationId) || installationId <= 0) return {};
    octokit.hook.wrap("request", async (request, o) => {
      const req = o as { method?: string; url?: string; query?: unknown };
      if (!isContentWrite(req) || grantedHere(installationId)) return request(o);
      const r = await lane.run(installationId, { priority: "create" }, () => request(o));
      return r;
    });
    return {};
  };
  return (Octokit.plugin(lanePlugin as never) as typeof ProbotOctokit).defaults(
    (instanceOptions: Record<string, unknown>) => {
      const throttle = instanceOptions.throttle as Record<string, unknown> | undefined;
      return {
        ...instanceOptions,
        ...(throttle && throttle.enabled !== false
          ? { throttle: { ...throttle, write: PASS_THROUGH, notifications: PASS_THROUGH } }
          : {}),
      };
    },
  ) as typeof ProbotOctokit;
}
