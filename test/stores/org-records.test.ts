import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import {
  OrgRecords,
  RECORD_TTL_SECONDS,
  REPORT_LOG_SIZE,
  SPEND_TTL_SECONDS,
  type ReportLogEntry,
} from "../../src/stores/org-records.js";
import { flushPrefix } from "../support/flush.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url);
const prefix = `{or-${randomBytes(4).toString("hex")}}`;
const records = new OrgRecords(redis, prefix);

afterAll(async () => {
  await flushPrefix(prefix, url);
  redis.disconnect();
});

const NOV = Date.UTC(2026, 10, 20);
const OCT = Date.UTC(2026, 9, 3);

function entry(i: number, over: Partial<ReportLogEntry> = {}): ReportLogEntry {
  return {
    scanId: `scan_${i}`,
    repository: "acme/web",
    pullNumber: i,
    headSha: "a".repeat(40),
    conclusion: "success",
    severities: { HIGH: 1 },
    receivedAt: NOV + i * 1000 - 60_000,
    reportedAt: NOV + i * 1000,
    ...over,
  };
}

describe("OrgRecords", () => {
  it("counts a scan's budget until its settled spend replaces it, never the other way round", async () => {
    const scan = { scanId: "s1", repository: "acme/web", pullNumber: 3 };
    await records.recordSpend(1, NOV, { ...scan, credits: 50, settled: false }, 400);
    await records.recordSpend(1, NOV, { ...scan, credits: 32, settled: true });
    // a late report's budget does not undo the settlement
    await records.recordSpend(1, NOV, { ...scan, credits: 50, settled: false });
    await records.recordSpend(1, OCT, {
      scanId: "s0",
      repository: "acme/api",
      pullNumber: 0,
      credits: 7,
      settled: true,
    });
    const [oct, nov] = await records.monthSpend(1, ["2026-10", "2026-11"]);
    expect(oct!.scans).toEqual([
      { scanId: "s0", repository: "acme/api", pullNumber: 0, credits: 7, settled: true },
    ]);
    expect(nov!.scans).toEqual([{ ...scan, credits: 32, settled: true }]);
    expect(nov!.caps).toEqual(new Map([["acme/web", 400]]));
    // a cap removed from the config is dropped; a write that does not know the config keeps it
    await records.recordSpend(1, NOV, { ...scan, scanId: "s2", credits: 1, settled: true });
    expect((await records.monthSpend(1, ["2026-11"]))[0]!.caps).toEqual(new Map([["acme/web", 400]]));
    await records.recordSpend(1, NOV, { ...scan, scanId: "s3", credits: 1, settled: true }, null);
    expect((await records.monthSpend(1, ["2026-11"]))[0]!.caps).toEqual(new Map());
    const ttl = await redis.ttl(`${prefix}:spend:1:2026-11`);
    expect(ttl).toBeGreaterThan(SPEND_TTL_SECONDS - 10);
    expect((await records.monthSpend(2, ["2026-11"]))[0]!.scans).toEqual([]);
  });

  it("keeps the newest reports only, newest first, with a TTL", async () => {
    for (let i = 0; i < REPORT_LOG_SIZE + 5; i += 1) await records.recordReport(9, entry(i));
    const logged = await records.reports(9);
    expect(logged).toHaveLength(REPORT_LOG_SIZE);
    expect(logged[0]!.scanId).toBe(`scan_${REPORT_LOG_SIZE + 4}`);
    expect(logged.at(-1)!.scanId).toBe("scan_5");
    expect(await redis.zcard(`${prefix}:reportlog:9`)).toBe(REPORT_LOG_SIZE);
    expect(await redis.ttl(`${prefix}:reportlog:9`)).toBeGreaterThan(RECORD_TTL_SECONDS - 10);
  });

  it("records a repository's invalid config and forgets it once the config is valid", async () => {
    await records.recordConfig(3, "acme/web", "failOn: must be one of …", NOV);
    await records.recordConfig(3, "acme/api", "YAML: bad indentation", NOV);
    expect((await records.configProblems(3)).map((c) => c.repository).sort()).toEqual([
      "acme/api",
      "acme/web",
    ]);
    await records.recordConfig(3, "acme/web", undefined, NOV + 1);
    expect(await records.configProblems(3)).toEqual([
      { repository: "acme/api", problem: "YAML: bad indentation", seenAt: NOV },
    ]);
    expect(await redis.ttl(`${prefix}:configproblems:3`)).toBeGreaterThan(0);
  });

  it("indexes the pull requests holding approval requests by owner, case-insensitively", async () => {
    await records.recordHeldApprovals("Acme/web#3", true);
    await records.recordHeldApprovals("acme/api#9", true);
    await records.recordHeldApprovals("other/x#1", true);
    expect(await records.heldApprovals("ACME")).toEqual(["Acme/web#3", "acme/api#9"]);
    await records.recordHeldApprovals("Acme/web#3", false);
    expect(await records.heldApprovals("acme")).toEqual(["acme/api#9"]);
    expect(await redis.ttl(`${prefix}:approvals-held:acme`)).toBeGreaterThan(0);
  });

  it("leaves out an entry that is not one (not JSON, a field of the wrong type) and shows the rest", async () => {
    await records.recordReport(42, entry(1));
    await redis.zadd(`${prefix}:reportlog:42`, NOV + 5_000, "{not json");
    await redis.zadd(`${prefix}:reportlog:42`, NOV + 6_000, JSON.stringify({ ...entry(2), pullNumber: "2" }));
    expect(await records.reports(42)).toEqual([entry(1)]);
    await records.recordSpend(42, NOV, {
      scanId: "s9",
      repository: "acme/web",
      pullNumber: 1,
      credits: 5,
      settled: true,
    });
    await redis.hset(`${prefix}:spend:42:2026-11`, "s:bad", JSON.stringify({ scanId: "bad", credits: "5" }));
    expect((await records.monthSpend(42, ["2026-11"]))[0]!.scans.map((s) => s.scanId)).toEqual(["s9"]);
    await records.recordConfig(42, "acme/web", "bad yaml", NOV);
    await redis.hset(`${prefix}:configproblems:42`, "acme/api", "[]");
    expect(await records.configProblems(42)).toEqual([
      { repository: "acme/web", problem: "bad yaml", seenAt: NOV },
    ]);
  });
});
