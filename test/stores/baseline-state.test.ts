import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { BaselineStore } from "../../src/stores/baseline-state.js";
import { StoredRecordError } from "../../src/stores/stored-record.js";
import { flushPrefix } from "../support/flush.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url);
const prefix = `{bs-${randomBytes(4).toString("hex")}}`;
const baselines = new BaselineStore(redis, prefix);

afterAll(async () => {
  await flushPrefix(prefix, url);
  redis.disconnect();
});

/** The baselines' records on a real Redis, read through their zod schemas. */
describe("BaselineStore", () => {
  const followed = { installationId: 7, owner: "o", repo: "r", branch: "main", headSha: "a".repeat(40) };

  it("reads what it wrote, keeping a field it does not know through a read and a write, each with a 90-day TTL", async () => {
    await redis.set(`${prefix}:bl:o/r^baseline`, JSON.stringify({ ...followed, pushedAt: 5 }));
    const read = await baselines.get("o/r^baseline");
    await baselines.set("o/r^baseline", { ...read!, scanId: "scn_1" });
    expect(JSON.parse((await redis.get(`${prefix}:bl:o/r^baseline`))!)).toEqual({
      ...followed,
      pushedAt: 5,
      scanId: "scn_1",
    });
    expect(await redis.ttl(`${prefix}:bl:o/r^baseline`)).toBeGreaterThan(89 * 86_400);
    const report = {
      branch: "main",
      headSha: "b".repeat(40),
      scanId: "scn_1",
      reportedAt: 1,
      openFingerprints: ["f"],
    };
    await baselines.setReport("o", "r", report);
    expect(await baselines.getReport("o", "r")).toEqual(report);
  });

  it("a record that is not one is a StoredRecordError naming its key", async () => {
    await redis.set(`${prefix}:bl:o/x^baseline`, JSON.stringify({ ...followed, branch: undefined }));
    const error = await baselines.get("o/x^baseline").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoredRecordError);
    expect((error as StoredRecordError).key).toBe(`${prefix}:bl:o/x^baseline`);
    await redis.set(
      `${prefix}:baseline-report:o/x`,
      JSON.stringify({ branch: "main", openFingerprints: "f" }),
    );
    await expect(baselines.getReport("o", "x")).rejects.toThrow(StoredRecordError);
  });
});
