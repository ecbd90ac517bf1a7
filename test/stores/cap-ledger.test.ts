import { randomBytes } from "node:crypto";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createRedis } from "../../src/runtime/connection.js";
import { capMonth, CapLedger, RESERVATION_STALE_MS } from "../../src/stores/cap-ledger.js";

/** The cap ledger's Lua scripts on a real Redis: reserve, release, bind, settle, seed. */
describe("cap ledger (creditCap.monthly, real Redis)", () => {
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const prefix = `{dwt-cap-${randomBytes(3).toString("hex")}}`;
  const ledger = new CapLedger(redis, prefix);
  const now = Date.UTC(2026, 10, 23, 12);
  let key = "";
  let n = 0;

  beforeEach(async () => {
    key = ledger.keyOf({ projectId: "prj_1", repositoryId: `repo_${++n}` }, now);
    await ledger.seed(key, []);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it("names one hash per project, repository and UTC month, under the state prefix's hash tag", () => {
    expect(key).toBe(`${prefix}:cap:prj_1:repo_${n}:2026-11`);
    expect(capMonth(Date.UTC(2026, 11, 31, 23, 59))).toBe("2026-12");
    expect(capMonth(Date.UTC(2027, 0, 1, 0, 0))).toBe("2027-01");
  });

  it("refuses to reserve before the month's spend is seeded, and seeds once", async () => {
    const fresh = ledger.keyOf({ projectId: "prj_1", repositoryId: "repo_unseeded" }, now);
    expect(await ledger.reserve(fresh, "L1", 100, 10, 1, now)).toEqual({ kind: "unseeded" });
    expect(
      await ledger.seed(fresh, [
        { scanId: "s_done", credits: 30, settled: true },
        { scanId: "s_running", credits: 50, settled: false },
      ]),
    ).toBe(true);
    expect(await ledger.seed(fresh, [{ scanId: "s_other", credits: 99, settled: true }])).toBe(false);
    expect(await ledger.snapshot(fresh)).toEqual({
      seeded: true,
      settled: 30,
      inFlight: 50,
      reserved: 0,
      unsettled: ["s_running"],
    });
    expect(await ledger.reserve(fresh, "L1", 100, 25, 1, now)).toEqual({
      kind: "refused",
      counted: 80,
      wanted: 25,
    });
    expect(await ledger.reserve(fresh, "L1", 100, 20, 1, now)).toEqual({
      kind: "reserved",
      counted: 80,
      amount: 20,
    });
  });

  it("reserves until the cap and refuses the launch that would pass it", async () => {
    expect(await ledger.reserve(key, "A", 25, 10, 1, now)).toEqual({
      kind: "reserved",
      counted: 0,
      amount: 10,
    });
    expect(await ledger.reserve(key, "B", 25, 10, 1, now)).toEqual({
      kind: "reserved",
      counted: 10,
      amount: 10,
    });
    expect(await ledger.reserve(key, "C", 25, 10, 1, now)).toEqual({
      kind: "refused",
      counted: 20,
      wanted: 10,
    });
    expect((await ledger.snapshot(key)).reserved).toBe(20);
  });

  it("is idempotent per launch: a retried launch job never reserves twice", async () => {
    expect(await ledger.reserve(key, "A", 25, 10, 1, now)).toEqual({
      kind: "reserved",
      counted: 0,
      amount: 10,
    });
    expect(await ledger.reserve(key, "A", 25, 10, 1, now + 5_000)).toEqual({
      kind: "reserved",
      counted: 0,
      amount: 10,
    });
    expect((await ledger.snapshot(key)).reserved).toBe(10);
    await ledger.bind(key, "A", "scan_a", 10);
    expect(await ledger.reserve(key, "A", 25, 10, 1, now)).toEqual({ kind: "bound", counted: 10 });
    await ledger.bind(key, "A", "scan_a", 10); // a retried bind
    expect(await ledger.snapshot(key)).toMatchObject({ inFlight: 10, reserved: 0, unsettled: ["scan_a"] });
  });

  it("without a budget, reserves what is left of the cap, and refuses when that is under the minimum", async () => {
    expect(await ledger.reserve(key, "A", 25, 10, 1, now)).toMatchObject({ kind: "reserved", amount: 10 });
    expect(await ledger.reserve(key, "B", 25, undefined, 10, now)).toEqual({
      kind: "reserved",
      counted: 10,
      amount: 15,
    });
    expect(await ledger.reserve(key, "C", 25, undefined, 1, now)).toEqual({
      kind: "refused",
      counted: 25,
      wanted: 0,
    });
  });

  it("release gives a refused or unwanted launch's reservation back; a bound one keeps its scan's count", async () => {
    await ledger.reserve(key, "A", 20, 10, 1, now);
    await ledger.reserve(key, "B", 20, 10, 1, now);
    expect(await ledger.release(key, "A")).toBe(10);
    expect(await ledger.release(key, "A")).toBe(0);
    await ledger.bind(key, "B", "scan_b", 10);
    expect(await ledger.release(key, "B")).toBe(0);
    expect(await ledger.snapshot(key)).toMatchObject({ inFlight: 10, reserved: 0 });
    expect(await ledger.reserve(key, "C", 20, 10, 1, now)).toMatchObject({ kind: "reserved" });
  });

  it("settlement replaces a scan's budget with its actual spend, idempotently, found by scan id", async () => {
    await ledger.reserve(key, "A", 20, 15, 1, now);
    await ledger.bind(key, "A", "scan_s", 15);
    expect(await ledger.reserve(key, "B", 20, 10, 1, now)).toMatchObject({ kind: "refused", counted: 15 });
    expect(await ledger.settle("scan_s", 4)).toBe(true); // the scan index finds the hash
    expect(await ledger.settle("scan_s", 4)).toBe(true);
    expect(await ledger.snapshot(key)).toEqual({
      seeded: true,
      settled: 4,
      inFlight: 0,
      reserved: 0,
      unsettled: [],
    });
    expect(await ledger.reserve(key, "B", 20, 10, 1, now)).toEqual({
      kind: "reserved",
      counted: 4,
      amount: 10,
    });
    expect(await ledger.settle("scan_unknown", 3)).toBe(false);
  });

  it("a scan cancelled before it spent settles at 0: its whole budget comes back", async () => {
    await ledger.reserve(key, "A", 10, 10, 1, now);
    await ledger.bind(key, "A", "scan_c", 10);
    expect(await ledger.reserve(key, "B", 10, 10, 1, now)).toMatchObject({ kind: "refused" });
    await ledger.settle("scan_c", 0);
    expect(await ledger.reserve(key, "B", 10, 10, 1, now)).toMatchObject({ kind: "reserved", amount: 10 });
  });

  it("a reservation never bound stops counting after a day", async () => {
    await ledger.reserve(key, "A", 10, 10, 1, now);
    expect(await ledger.reserve(key, "B", 10, 10, 1, now + 1000)).toMatchObject({ kind: "refused" });
    expect(await ledger.reserve(key, "B", 10, 10, 1, now + RESERVATION_STALE_MS + 1)).toMatchObject({
      kind: "reserved",
      counted: 0,
    });
  });

  it("200 concurrent reservations never pass the cap", async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => ledger.reserve(key, `L${i}`, 95, 1 + (i % 7), 1, now)),
    );
    const reserved = results.reduce((sum, r) => sum + (r.kind === "reserved" ? r.amount : 0), 0);
    expect(reserved).toBeLessThanOrEqual(95);
    expect(reserved).toBeGreaterThan(85); // and the cap is used, not refused wholesale
    expect((await ledger.snapshot(key)).reserved).toBe(reserved);
  });
});
