import { z } from "zod";

/**
 * GitHub's content-creation secondary rate limit, per installation, on POST/PATCH/PUT/DELETE.
 * GitHub documents "no more than 80 content-generating requests per minute and no more than 500 per hour"
 * (docs: REST API "Rate limits for the REST API" → "About secondary rate limits").
 */
export const ContentCreationLimit = z.object({
  perMinute: z.number().int().positive().default(80),
  perHour: z.number().int().positive().default(500),
});
export type ContentCreationLimit = z.infer<typeof ContentCreationLimit>;

/**
 * GitHub's primary rate limit of an installation: `limit` requests per window (5,000 an hour by default), every
 * request made with the installation's token counting (docs: REST API "Rate limits for the REST API" →
 * "Primary rate limit for GitHub App installations"). The window starts with the installation's first request
 * and resets `windowSeconds` later, as `x-ratelimit-reset` says.
 */
export const PrimaryLimit = z.object({
  limit: z.number().int().positive().default(5_000),
  windowSeconds: z.number().int().positive().default(3_600),
});
export type PrimaryLimit = z.infer<typeof PrimaryLimit>;

/**
 * GitHub's GraphQL budget of an installation in points per window, instead of GitHub's formula (5,000 an hour,
 * +50 per repository beyond 20, at most 12,500: `installationPoints` in graphql-exec.ts). For tests of pacing.
 */
export const GraphqlLimit = z.object({
  points: z.number().int().positive(),
  windowSeconds: z.number().int().positive().default(3_600),
});
export type GraphqlLimit = z.infer<typeof GraphqlLimit>;

/** `limits` option of the stand-in. No limit is enforced unless given (GraphQL's points: GitHub's formula). */
export const StandInLimits = z.object({
  contentCreation: ContentCreationLimit.optional(),
  primary: PrimaryLimit.optional(),
  graphql: GraphqlLimit.optional(),
});
export type StandInLimits = z.input<typeof StandInLimits>;

/**
 * Faults to inject, settable at runtime (`standIn.setFaults()`):
 * - `next5xx`: the next N matching requests answer `status` (default 502);
 * - `next429`: the next N matching requests answer 429 with `retry-after: 1` (seconds);
 * - `latencyMs`: delay every matching request by this many milliseconds;
 * - `route`: only requests whose path (without `/api/v3`, without query) matches; all when absent.
 */
export const Faults = z.object({
  next5xx: z.number().int().nonnegative().optional(),
  status: z.union([z.literal(500), z.literal(502), z.literal(503)]).optional(),
  route: z.instanceof(RegExp).optional(),
  latencyMs: z.number().nonnegative().optional(),
  next429: z.number().int().nonnegative().optional(),
});
export type Faults = z.infer<typeof Faults>;

/** GitHub's secondary-rate-limit message (Octokit's throttling plugin matches `/\bsecondary rate\b/i`). */
export const SECONDARY_RATE_LIMIT_MESSAGE =
  "You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later.";

/** Sliding-window counter of content-creating requests per installation. */
export class ContentCreationLimiter {
  private readonly stamps = new Map<number, number[]>();

  constructor(private readonly limit: ContentCreationLimit | undefined) {}

  /**
   * Records a write at `now` (ms) when allowed; otherwise returns how long to wait.
   * @returns `{ ok: true }` or `{ ok: false, retryAfterSeconds }` (whole seconds, ≥ 1).
   */
  take(installationId: number, now: number): { ok: true } | { ok: false; retryAfterSeconds: number } {
    if (this.limit === undefined) return { ok: true };
    const stamps = (this.stamps.get(installationId) ?? []).filter((t) => t > now - 3_600_000);
    const lastMinute = stamps.filter((t) => t > now - 60_000);
    let waitMs = 0;
    if (lastMinute.length >= this.limit.perMinute) {
      waitMs = Math.max(waitMs, (lastMinute[lastMinute.length - this.limit.perMinute] ?? now) + 60_000 - now);
    }
    if (stamps.length >= this.limit.perHour) {
      waitMs = Math.max(waitMs, (stamps[stamps.length - this.limit.perHour] ?? now) + 3_600_000 - now);
    }
    if (waitMs > 0) {
      this.stamps.set(installationId, stamps);
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    }
    stamps.push(now);
    this.stamps.set(installationId, stamps);
    return { ok: true };
  }
}

/**
 * Primary rate-limit windows per installation. Without a limit, every answer says 4,999 of 5,000 remain, as
 * before; with one, each request of an installation's token counts, the headers say what remains, and a
 * request over the limit is refused (GitHub answers 403 with `x-ratelimit-remaining: 0`; docs: "Rate limits for
 * the REST API" → "Exceeding the rate limit").
 */
export class PrimaryLimiter {
  private readonly windows = new Map<number, { start: number; used: number }>();

  constructor(private readonly limit: PrimaryLimit | undefined) {}

  /**
   * Counts a request of `installationId` at `now` (ms) when `installationId` is given.
   * @returns the rate-limit headers of the answer and whether the request is over the limit.
   */
  take(installationId: number | undefined, now: number): { headers: Record<string, string>; over: boolean } {
    const unlimited = {
      "x-ratelimit-limit": "5000",
      "x-ratelimit-remaining": "4999",
      "x-ratelimit-reset": String(Math.floor(now / 1000) + 3600),
    };
    if (this.limit === undefined || installationId === undefined) return { headers: unlimited, over: false };
    const windowMs = this.limit.windowSeconds * 1000;
    let w = this.windows.get(installationId);
    if (w === undefined || now >= w.start + windowMs) {
      w = { start: now, used: 0 };
      this.windows.set(installationId, w);
    }
    const over = w.used >= this.limit.limit;
    if (!over) w.used += 1;
    return {
      over,
      headers: {
        "x-ratelimit-limit": String(this.limit.limit),
        "x-ratelimit-remaining": String(this.limit.limit - w.used),
        "x-ratelimit-used": String(w.used),
        "x-ratelimit-reset": String(Math.ceil((w.start + windowMs) / 1000)),
        "x-ratelimit-resource": "core",
      },
    };
  }
}
