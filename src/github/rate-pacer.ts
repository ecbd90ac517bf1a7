import type { InstallationOctokit } from "./octokit-types.js";

/**
 * The share of an installation's primary rate limit a bulk read (reconciliation's full sweep) leaves to live
 * traffic: it pauses while `x-ratelimit-remaining` is at or below this share of `x-ratelimit-limit`.
 */
export const BULK_READ_RESERVE = 0.2;

/** What GitHub's last answer said of the installation's primary rate limit. */
export interface RateBudget {
  /** `x-ratelimit-limit`: requests per window (5,000 an hour for most installations) */
  limit: number;
  /** `x-ratelimit-remaining` */
  remaining: number;
  /** `x-ratelimit-reset`, in ms since the epoch */
  resetAt: number;
}

/**
 * Reads GitHub's primary rate-limit headers (`x-ratelimit-limit`, `x-ratelimit-remaining`, `x-ratelimit-reset`
 * in epoch seconds; docs: https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#checking-the-status-of-your-rate-limit).
 * @returns `undefined` when one is missing or not a number.
 */
export function readRateBudget(headers: Record<string, unknown> | undefined): RateBudget | undefined {
  const n = (k: string) => Number(headers?.[k] ?? Number.NaN);
  const limit = n("x-ratelimit-limit");
  const remaining = n("x-ratelimit-remaining");
  const reset = n("x-ratelimit-reset");
  if (![limit, remaining, reset].every(Number.isFinite)) return undefined;
  return { limit, remaining, resetAt: reset * 1000 };
}

/** Options of {@link RatePacer}. */
export interface RatePacerOptions {
  /** share of the limit left to live traffic ({@link BULK_READ_RESERVE} by default) */
  reserve?: number;
  /** the longest single wait, in ms (an hour and a minute by default: one window of GitHub's) */
  maxWaitMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Paces one installation's bulk reads within its primary rate limit: before each request, when the last
 * answer's `x-ratelimit-remaining` is at or below the reserve (a share of `x-ratelimit-limit`), it waits until
 * `x-ratelimit-reset` (plus one second, GitHub's reset is in whole seconds), so the installation's live work
 * (webhooks, reports) keeps its share. GitHub asks integrators not to send requests while the limit is spent
 * (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#handle-rate-limit-errors-appropriately).
 * {@link attach} wires it into an Octokit instance (every request goes through {@link before} and its answer
 * through {@link observe}); requests are counted, and so are the waits and their total length.
 */
export class RatePacer {
  #budget: RateBudget | undefined;
  readonly #reserve: number;
  readonly #maxWaitMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  /** requests sent through an attached instance */
  requests = 0;
  /** waits for a reset */
  waits = 0;
  /** total time waited, in ms */
  waitedMs = 0;

  constructor(options: RatePacerOptions = {}) {
    this.#reserve = options.reserve ?? BULK_READ_RESERVE;
    this.#maxWaitMs = options.maxWaitMs ?? 3_660_000;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** The budget the last answer gave, if any. */
  get budget(): RateBudget | undefined {
    return this.#budget;
  }

  /** Records the rate-limit headers of an answer (a success or an error's response). */
  observe(headers: Record<string, unknown> | undefined): void {
    const b = readRateBudget(headers);
    if (b) this.#budget = b;
  }

  /**
   * Waits, when the known budget is at or below the reserve, until its reset (bounded by `maxWaitMs`).
   * @returns the time waited, in ms (0 when nothing was waited).
   */
  async before(): Promise<number> {
    const b = this.#budget;
    if (!b || b.remaining > Math.floor(b.limit * this.#reserve)) return 0;
    const wait = Math.min(this.#maxWaitMs, b.resetAt + 1_000 - this.#now());
    this.#budget = undefined; // the next answer says what the new window holds
    if (wait <= 0) return 0;
    this.waits += 1;
    this.waitedMs += wait;
    await this.#sleep(wait);
    return wait;
  }

  /** Sends every request of `octokit` through {@link before} and its answer's headers through {@link observe}. */
  attach<T extends InstallationOctokit>(octokit: T): T {
    octokit.hook.wrap("request", async (request, options) => {
      await this.before();
      this.requests += 1;
      try {
        const res = await request(options);
        this.observe(res.headers as Record<string, unknown>);
        return res;
      } catch (error) {
        this.observe((error as { response?: { headers?: Record<string, unknown> } }).response?.headers);
        throw error;
      }
    });
    return octokit;
  }
}
