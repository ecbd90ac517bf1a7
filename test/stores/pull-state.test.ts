import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { LockBusyError, PullStateStore, type ScanLink } from "../../src/stores/pull-state.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
const prefix = `{pl-${randomBytes(4).toString("hex")}}`;
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the pull request lock (real Redis)", () => {
  it("is renewed while held: a holder waiting past the ttl keeps it, and it is free once released", async () => {
    const state = new PullStateStore(redis, prefix, 300);
    let second: unknown;
    await state.withPullLock("o/r#1", async () => {
      await sleep(1_000); // more than three ttls
      second = await state.withPullLock("o/r#1", async () => "taken").catch((e: unknown) => e);
    });
    expect(second).toBeInstanceOf(LockBusyError);
    expect(await state.withPullLock("o/r#1", async () => "free")).toBe("free");
  });

  it("still expires after its ttl when the holder is gone (no renewal without a running holder)", async () => {
    const state = new PullStateStore(redis, prefix, 300);
    // a holder that died: the key is set as withPullLock sets it, and nobody renews it
    await redis.set(`${prefix}:lock:o/r#2`, "dead-holder", "PX", 300, "NX");
    await expect(state.withPullLock("o/r#2", async () => "x")).rejects.toBeInstanceOf(LockBusyError);
    await sleep(450);
    expect(await state.withPullLock("o/r#2", async () => "after expiry")).toBe("after expiry");
  });
});

describe("the installation's scans in flight (real Redis)", () => {
  const link = (scanId: string, installationId: number): ScanLink => ({
    scanId,
    projectId: "prj_1",
    installationId,
    accountLogin: "octo-org",
    owner: "octo-org",
    repo: "r",
    pullNumber: 1,
    headSha: "a".repeat(40),
    checkRunId: 1,
  });

  it("a scan no path finished stops counting at its deadline, and the key ends with its latest deadline", async () => {
    const state = new PullStateStore(redis, prefix, 60_000, 1_500);
    await state.linkScan(link("scn_leaked", 7));
    await sleep(900);
    await state.linkScan(link("scn_live", 7));
    expect([...(await state.inflightScans(7))].sort()).toEqual(["scn_leaked", "scn_live"]);
    const ttl = await redis.pttl(`${prefix}:inflight:7`);
    expect(ttl).toBeGreaterThan(1_000); // the second scan's deadline, not the first's
    expect(ttl).toBeLessThanOrEqual(1_500);
    await sleep(800); // past the first scan's deadline only
    expect(await state.inflightScans(7)).toEqual(["scn_live"]);
    expect(await state.inflightCount(7)).toBe(1); // what the hourly write budget counts
    await state.finishScan(7, "scn_live");
    expect(await state.inflightCount(7)).toBe(0);
    expect(await redis.exists(`${prefix}:inflight:7`)).toBe(0);
  });

  it("a plain set an earlier version left is taken over with a lease, not an error", async () => {
    const state = new PullStateStore(redis, prefix, 60_000, 400);
    await redis.sadd(`${prefix}:inflight:8`, "scn_old");
    expect(await redis.pttl(`${prefix}:inflight:8`)).toBe(-1);
    await state.linkScan(link("scn_new", 8));
    expect([...(await state.inflightScans(8))].sort()).toEqual(["scn_new", "scn_old"]);
    expect(await redis.pttl(`${prefix}:inflight:8`)).toBeGreaterThan(0);
    await state.finishScan(8, "scn_new");
    await sleep(450);
    expect(await state.inflightCount(8)).toBe(0);
  });
});
