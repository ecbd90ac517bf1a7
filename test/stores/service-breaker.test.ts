import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { createRedis } from "../../src/runtime/connection.js";
import { REDIS_KEYS, redisKeyRegExp } from "../../src/runtime/names.js";
import { DEFAULT_BREAKER_TIMINGS, retryAfterMs, ServiceBreaker } from "../../src/stores/service-breaker.js";
import { propertyOptions } from "../support/property.js";

/** The service tenant's circuit breaker on a real Redis: its states, the one probe, Retry-After, parked jobs. */
describe("service breaker (real Redis)", () => {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redis = createRedis(url);
  // Other processes: their own connections to the same Redis.
  const others = [createRedis(url), createRedis(url), createRedis(url)];
  const prefix = `{dwt-brk-${randomBytes(3).toString("hex")}}`;
  const breaker = new ServiceBreaker(redis, prefix);
  const now = Date.UTC(2026, 10, 25, 12);
  let n = 0;
  const tenant = () => `t${++n}`;

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    for (const r of [redis, ...others]) r.disconnect();
  });

  it("is closed until a failure; a failure opens it for Retry-After, then lets exactly one probe through", async () => {
    const t = tenant();
    expect(await breaker.admit(t, "a", now)).toEqual({ kind: "closed" });
    expect(await breaker.recordFailure(t, now, { retryAfterSeconds: 5 })).toEqual({
      untilMs: now + 5_000,
      opened: true,
    });
    expect(await breaker.admit(t, "a", now + 4_999)).toEqual({ kind: "wait", untilMs: now + 5_000 });
    expect(await breaker.admit(t, "a", now + 5_000)).toEqual({ kind: "probe" });
    const second = await breaker.admit(t, "b", now + 5_001);
    expect(second.kind).toBe("wait");
    // while another process probes, a waiter looks again soon, never later than the probe slot ends
    expect(second.kind === "wait" && second.untilMs).toBeLessThanOrEqual(
      now + 5_001 + DEFAULT_BREAKER_TIMINGS.halfOpenRecheckMs,
    );
  });

  it("a failed probe opens it again with a doubled interval (no Retry-After); a stale failure changes nothing", async () => {
    const t = tenant();
    const { baseMs } = DEFAULT_BREAKER_TIMINGS;
    expect((await breaker.recordFailure(t, now)).untilMs).toBe(now + baseMs);
    // a request sent before it opened fails afterwards: same interval, not a new opening
    expect(await breaker.recordFailure(t, now + 10)).toEqual({ untilMs: now + baseMs, opened: false });
    expect((await breaker.admit(t, "p", now + baseMs)).kind).toBe("probe");
    const again = await breaker.recordFailure(t, now + baseMs, { probe: true });
    expect(again).toEqual({ untilMs: now + baseMs + 2 * baseMs, opened: false });
    // the probe slot is free again once the failure is recorded
    expect((await breaker.admit(t, "q", again.untilMs)).kind).toBe("probe");
  });

  it("Retry-After is advice bounded by the cap: a long or absurd one opens it for the cap at most, in whole ms", async () => {
    const { capMs, keepMs } = DEFAULT_BREAKER_TIMINGS;
    for (const retryAfterSeconds of [3_600, 86_400, Number.MAX_SAFE_INTEGER, Number.MAX_VALUE, Infinity]) {
      const t = tenant();
      expect(await breaker.recordFailure(t, now, { retryAfterSeconds })).toEqual({
        untilMs: now + capMs,
        opened: true,
      });
      expect(await breaker.admit(t, "p", now + capMs)).toEqual({ kind: "probe" });
      const ttl = await redis.pttl(`${prefix}:breaker:${t}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(capMs + keepMs);
      // a failed probe under the same advice waits the cap again, never longer
      expect(await breaker.recordFailure(t, now + capMs, { retryAfterSeconds, probe: true })).toEqual({
        untilMs: now + 2 * capMs,
        opened: false,
      });
    }
    const t = tenant();
    const fraction = await breaker.recordFailure(t, now, { retryAfterSeconds: 1.0004 });
    expect(fraction.untilMs).toBe(now + 1_001);
    expect(Number(await redis.hget(`${prefix}:breaker:${t}`, "until"))).toBe(now + 1_001);
  });

  it("retryAfterMs: whole ms from 1 s to the cap, -1 without advice", () => {
    const cap = 60_000;
    expect(retryAfterMs(undefined, cap)).toBe(-1);
    expect(retryAfterMs(Number.NaN, cap)).toBe(-1);
    expect(retryAfterMs(0, cap)).toBe(1_000);
    expect(retryAfterMs(5, cap)).toBe(5_000);
    expect(retryAfterMs(0.0001, cap)).toBe(1_000);
    expect(retryAfterMs(2.0001, cap)).toBe(2_001);
    expect(retryAfterMs(3_600, cap)).toBe(cap);
    expect(retryAfterMs(Number.MAX_SAFE_INTEGER, cap)).toBe(cap);
    expect(retryAfterMs(Infinity, cap)).toBe(cap);
    fc.assert(
      fc.property(
        fc.double({ noNaN: true }),
        fc.integer({ min: 1_000, max: 3_600_000 }),
        (seconds, capMs) => {
          const ms = retryAfterMs(seconds, capMs);
          expect(Number.isSafeInteger(ms)).toBe(true);
          expect(ms).toBeGreaterThanOrEqual(1_000);
          expect(ms).toBeLessThanOrEqual(capMs);
        },
      ),
      propertyOptions(200),
    );
  });

  it("a success closes it and hands back every parked job once", async () => {
    const t = tenant();
    expect(await breaker.park(t, "job-0", now)).toBe(false); // closed: nothing to wait for
    await breaker.recordFailure(t, now, { retryAfterSeconds: 1 });
    for (const id of ["job-1", "job-2", "job-3", "job-2"]) expect(await breaker.park(t, id, now)).toBe(true);
    expect((await breaker.read(t)).parked).toBe(3);
    const closed = await breaker.recordSuccess(t);
    expect(closed.wasOpen).toBe(true);
    expect(closed.parked.sort()).toEqual(["job-1", "job-2", "job-3"]);
    expect(await breaker.recordSuccess(t)).toEqual({ wasOpen: false, parked: [] });
    expect(await breaker.admit(t, "a", now)).toEqual({ kind: "closed" });
    expect(await redis.keys(`${prefix}:breaker:${t}*`)).toEqual([]);
  });

  it("every key it writes is a listed kind with a TTL", async () => {
    const t = tenant();
    await breaker.recordFailure(t, Date.now(), { retryAfterSeconds: 30 });
    await breaker.park(t, "job-1", Date.now());
    expect((await breaker.admit(t, "p", Date.now() + 31_000)).kind).toBe("probe");
    const keys = await redis.keys(`${prefix}:breaker:${t}*`);
    expect(keys.sort()).toEqual(
      [`${prefix}:breaker:${t}`, `${prefix}:breaker:${t}:probe`, `${prefix}:breaker:${t}:waiting`].sort(),
    );
    for (const key of keys) {
      expect(await redis.pttl(key)).toBeGreaterThan(0);
      const kinds = Object.values(REDIS_KEYS).filter(
        (k) => k.prefix === "state" && redisKeyRegExp(prefix, k.pattern).test(key),
      );
      expect(kinds.length).toBeGreaterThan(0);
    }
  });

  it("property: across processes racing at any moment, at most one probe is held at a time", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4_000 }), { minLength: 2, maxLength: 12 }),
        fc.integer({ min: 0, max: 3 }),
        async (offsets, retryAfterSeconds) => {
          const t = tenant();
          const breakers = others.map((r) => new ServiceBreaker(r, prefix));
          await breaker.recordFailure(t, now, { retryAfterSeconds });
          const opensAt = now + Math.max(retryAfterSeconds * 1000, 1000);
          const answers = await Promise.all(
            offsets.map((o, i) => breakers[i % breakers.length]!.admit(t, `p${i}`, now + o)),
          );
          const probes = answers.filter((a) => a.kind === "probe").length;
          const due = offsets.some((o) => now + o >= opensAt);
          // exactly one probe when any caller came at or after the open interval, none before it
          expect(probes).toBe(due ? 1 : 0);
          for (const [i, a] of answers.entries())
            if (a.kind === "wait" && now + offsets[i]! < opensAt) expect(a.untilMs).toBe(opensAt);
        },
      ),
      propertyOptions(40),
    );
  });
});
