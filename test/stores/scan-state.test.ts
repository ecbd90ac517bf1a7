import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { ScanStateStore, type ScanLink } from "../../src/stores/scan-state.js";
import { StoredRecordError } from "../../src/stores/stored-record.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
const prefix = `{sc-${randomBytes(4).toString("hex")}}`;
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    const state = new ScanStateStore(redis, prefix, 1_500);
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
    const state = new ScanStateStore(redis, prefix, 400);
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

describe("a scan's records (real Redis)", () => {
  const scans = new ScanStateStore(redis, prefix);

  it("reads a scan's end as recorded, and a stop or status it does not know is a StoredRecordError", async () => {
    await scans.recordScanStop("scn_1", { kind: "superseded", bySha: "c".repeat(40) });
    await scans.recordScanEnded("scn_1", "COMPLETED");
    expect(await scans.getScanEnd("scn_1")).toEqual({
      status: "COMPLETED",
      stop: { kind: "superseded", bySha: "c".repeat(40) },
    });
    await redis.hset(`${prefix}:scanend:scn_2`, "stop", JSON.stringify({ kind: "paused" }));
    await expect(scans.getScanEnd("scn_2")).rejects.toThrow(StoredRecordError);
    await redis.hset(`${prefix}:scanend:scn_3`, "status", "RUNNING");
    await expect(scans.getScanEnd("scn_3")).rejects.toThrow(StoredRecordError);
  });

  it("forgetting a scan's stop keeps the terminal status it read", async () => {
    await scans.recordScanStop("scn_4", { kind: "uninstalled" });
    await scans.recordScanEnded("scn_4", "COMPLETED");
    await scans.clearScanStop("scn_4");
    expect(await scans.getScanEnd("scn_4")).toEqual({ status: "COMPLETED" });
  });

  it("a completion mark counts for its own check run only; one without a check run for any", async () => {
    await scans.markCompleted("scn_6", 7, 1_000);
    expect(await scans.completedAt("scn_6", 8)).toBeUndefined();
    await redis.set(`${prefix}:completed:scn_6`, JSON.stringify({ at: 2_000 }));
    expect(await scans.completedAt("scn_6", 8)).toBe(2_000);
  });

  it("a scan link, a completion mark or an upload outcome that is not one is a StoredRecordError", async () => {
    await redis.set(`${prefix}:scan:scn_4`, JSON.stringify({ scanId: "scn_4" }));
    await expect(scans.getScanLink("scn_4")).rejects.toThrow(StoredRecordError);
    await redis.set(`${prefix}:completed:scn_4`, "yes");
    await expect(scans.completedAt("scn_4", 7)).rejects.toThrow(StoredRecordError);
    await redis.set(`${prefix}:sarif:o/r@scn_4`, JSON.stringify({ status: "uploaded" }));
    await expect(scans.codeScanningUpload("o/r@scn_4")).rejects.toThrow(StoredRecordError);
    await scans.markCompleted("scn_5", 7, 1_000);
    expect(await scans.completedAt("scn_5", 7)).toBe(1_000);
    await scans.recordCodeScanningUpload("o/r@scn_5", { status: "withheld", reason: "summary only" });
    expect(await scans.codeScanningUpload("o/r@scn_5")).toEqual({
      status: "withheld",
      reason: "summary only",
    });
  });
});
