import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { RepoConfig } from "../../src/config/repo-config.js";
import { reportedFinding } from "../../src/report/decide/report-state.js";
import { ScanStateStore } from "../../src/stores/scan-state.js";
import { ReportStore, type ReportState } from "../../src/stores/stored-report.js";
import { StoredRecordError } from "../../src/stores/stored-record.js";
import { flushPrefix } from "../support/flush.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url);
const prefix = `{rs-${randomBytes(4).toString("hex")}}`;
const reports = new ReportStore(redis, prefix);

afterAll(async () => {
  await flushPrefix(prefix, url);
  redis.disconnect();
});

const report: ReportState = {
  scanId: "scn_1",
  projectId: "prj_1",
  checkRunId: 11,
  headSha: "a".repeat(40),
  installationId: 7,
  accountLogin: "acme",
  config: RepoConfig.parse({ repositoryId: "repo_1" }),
  presetRef: "diff-standard",
  extras: { warnings: ["w"] },
  scopes: [{ presetRef: "diff-standard", auditAreas: [] }],
  findings: [
    reportedFinding(
      {
        id: "fnd_1",
        title: "t",
        location: "a.js:1",
        severity: "HIGH",
        category: "c",
        triageStatus: "NEW",
        resolutionStatus: "NOT_STARTED",
      },
      "SC",
      5,
    ),
  ],
  details: { fnd_1: { description: "d" } },
  reportedAt: 1_000,
};

/** A pull request's last report on a real Redis, read through its zod schema. */
describe("ReportStore", () => {
  it("reads back what it stored, with a 90-day TTL, keeping a field it does not know through a read and a put", async () => {
    await reports.put("acme/web#1", report);
    expect(await reports.get("acme/web#1")).toEqual(report);
    expect(await redis.ttl(`${prefix}:report:acme/web#1`)).toBeGreaterThan(89 * 86_400);
    await redis.set(`${prefix}:report:acme/web#2`, JSON.stringify({ ...report, addedLater: [1] }));
    const read = await reports.get("acme/web#2");
    await reports.put("acme/web#2", { ...read!, checkRunId: 12 });
    expect(JSON.parse((await redis.get(`${prefix}:report:acme/web#2`))!)).toEqual({
      ...report,
      addedLater: [1],
      checkRunId: 12,
    });
  });

  it("a document that is not a report (not JSON, no findings, a finding without its id) is a StoredRecordError naming its key", async () => {
    await redis.set(`${prefix}:report:acme/web#3`, "{");
    await expect(reports.get("acme/web#3")).rejects.toThrow(StoredRecordError);
    const { findings: _gone, ...noFindings } = report;
    await redis.set(`${prefix}:report:acme/web#4`, JSON.stringify(noFindings));
    const error = await reports.get("acme/web#4").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoredRecordError);
    expect((error as StoredRecordError).key).toBe(`${prefix}:report:acme/web#4`);
    expect((error as StoredRecordError).problem).toMatch(/^findings: /);
    await redis.set(
      `${prefix}:report:acme/web#5`,
      JSON.stringify({ ...report, findings: [{ ...report.findings[0], id: undefined }] }),
    );
    await expect(reports.get("acme/web#5")).rejects.toThrow(StoredRecordError);
  });

  it("stores a report unless its scan was stopped, in one step", async () => {
    expect(await reports.putUnlessStopped("acme/web#6", "scn_6", { ...report, scanId: "scn_6" })).toBe(true);
    await new ScanStateStore(redis, prefix).recordScanStop("scn_7", { kind: "closed" });
    expect(await reports.putUnlessStopped("acme/web#6", "scn_7", { ...report, scanId: "scn_7" })).toBe(false);
    expect((await reports.get("acme/web#6"))?.scanId).toBe("scn_6");
  });
});
