import { describe, expect, it } from "vitest";
import { RatePacer, readRateBudget } from "../../src/github/rate-pacer.js";

const headers = (limit: number, remaining: number, resetS: number) => ({
  "x-ratelimit-limit": String(limit),
  "x-ratelimit-remaining": String(remaining),
  "x-ratelimit-reset": String(resetS),
});

describe("RatePacer", () => {
  const clock = (start: number) => {
    let now = start;
    const slept: number[] = [];
    return {
      now: () => now,
      sleep: (ms: number) => {
        slept.push(ms);
        now += ms;
        return Promise.resolve();
      },
      slept,
    };
  };

  it("reads GitHub's rate-limit headers, and nothing from incomplete ones", () => {
    expect(readRateBudget(headers(5000, 12, 1_700_000_000))).toEqual({
      limit: 5000,
      remaining: 12,
      resetAt: 1_700_000_000_000,
    });
    expect(readRateBudget({ "x-ratelimit-remaining": "3" })).toBeUndefined();
    expect(readRateBudget(undefined)).toBeUndefined();
  });

  it("sends at once while the remaining requests exceed the reserve", async () => {
    const c = clock(1_000_000);
    const pacer = new RatePacer({ now: c.now, sleep: c.sleep });
    expect(await pacer.before()).toBe(0); // nothing known yet
    pacer.observe(headers(5000, 1001, 2_000));
    expect(await pacer.before()).toBe(0);
    expect(c.slept).toEqual([]);
  });

  it("waits until the reset (and a second) once the remaining requests are within the reserve", async () => {
    const c = clock(1_000_000);
    const pacer = new RatePacer({ now: c.now, sleep: c.sleep });
    pacer.observe(headers(5000, 1000, 1_060)); // 20 % of 5,000 left, reset in 60 s
    expect(await pacer.before()).toBe(61_000);
    expect(c.slept).toEqual([61_000]);
    expect(pacer.waits).toBe(1);
    // the next answer tells the new window; until then nothing is waited again
    expect(await pacer.before()).toBe(0);
  });

  it("never waits longer than maxWaitMs, nor for a reset already past", async () => {
    const c = clock(1_000_000);
    const pacer = new RatePacer({ now: c.now, sleep: c.sleep, maxWaitMs: 5_000 });
    pacer.observe(headers(5000, 0, 4_600));
    expect(await pacer.before()).toBe(5_000);
    pacer.observe(headers(5000, 0, 900));
    expect(await pacer.before()).toBe(0);
  });
});
