import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { StateStore } from "../../src/queue/state.js";

/**
 * The scan slots of `DIFFWARD_MAX_SCANS_IN_FLIGHT` (issue 15 item 3) on a real Redis: what the Lua script
 * and the MULTIs of `StateStore` guarantee. Clocks are passed in (`now`), so nothing here waits.
 */
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
const prefix = `{ss-${randomBytes(4).toString("hex")}}`;
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const T0 = 1_800_000_000_000;
const TTL = 60_000;

describe("scan slots per installation (real Redis)", () => {
  const state = new StateStore(redis, prefix);

  it("gives at most `cap` slots; a holder taking again keeps its slot; a forced take passes the cap", async () => {
    const take = (launchKey: string, force = false) =>
      state.takeScanSlot(1, { launchKey }, { cap: 2, now: T0, ttlMs: TTL, force });
    expect(await take("a")).toBe(true);
    expect(await take("b")).toBe(true);
    expect(await take("c")).toBe(false);
    expect(await take("a")).toBe(true); // a retried launch renews, never takes a second slot
    expect(await take("group", true)).toBe(true); // a merge group counts, never waits
    expect((await state.scanSlots(1, T0)).sort()).toEqual(["l:a", "l:b", "l:group"]);
    expect(await take("c")).toBe(false);
    // another installation has its own slots
    expect(await state.takeScanSlot(2, { launchKey: "c" }, { cap: 2, now: T0, ttlMs: TTL })).toBe(true);
  });

  it("hands a launch's slot to its scan, frees it when the scan finishes, and frees a launch's unused slot", async () => {
    const take = (launchKey: string) => state.takeScanSlot(3, { launchKey }, { cap: 2, now: T0, ttlMs: TTL });
    expect(await take("a")).toBe(true);
    expect(await take("b")).toBe(true);
    await state.bindScanSlot(3, "a", "scan_a", { now: T0, ttlMs: TTL });
    expect((await state.scanSlots(3, T0)).sort()).toEqual(["l:b", "s:scan_a"]);
    expect(await take("c")).toBe(false); // the scan still holds the launch's slot
    await state.finishScan(3, "scan_a"); // reported, cancelled or superseded
    expect(await state.scanSlots(3, T0)).toEqual(["l:b"]);
    await state.releaseScanSlot(3, { launchKey: "b" }); // a launch that launched nothing
    expect(await take("c")).toBe(true);
    expect(await take("d")).toBe(true);
    expect(await take("e")).toBe(false);
  });

  it("lets a slot nobody frees expire: a crashed launch's, a scan never reported", async () => {
    const take = (launchKey: string, now: number) =>
      state.takeScanSlot(4, { launchKey }, { cap: 2, now, ttlMs: TTL });
    expect(await take("crashed", T0)).toBe(true);
    await state.bindScanSlot(4, "x", "scan_lost", { now: T0, ttlMs: 3 * TTL });
    expect(await take("c", T0 + TTL - 1)).toBe(false);
    expect(await take("c", T0 + TTL)).toBe(true); // the crashed launch's slot expired
    expect(await take("d", T0 + TTL)).toBe(false); // the scan's has not
    expect(await take("d", T0 + 3 * TTL)).toBe(true);
    expect(await state.scanSlots(4, T0 + 3 * TTL)).toEqual(["l:d"]); // c's slot (taken at T0 + TTL) expired too
  });
});
