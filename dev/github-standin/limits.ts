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

/** `limits` option of the stand-in. No limit is enforced unless given. */
export const StandInLimits = z.object({ contentCreation: ContentCreationLimit.optional() });
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
