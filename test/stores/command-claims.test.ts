import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { CommandClaims } from "../../src/stores/command-claims.js";
import { StoredRecordError } from "../../src/stores/stored-record.js";
import { flushPrefix } from "../support/flush.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url);
const prefix = `{cc-${randomBytes(4).toString("hex")}}`;
const claims = new CommandClaims(redis, prefix);
const comment = { owner: "o", repo: "r", form: "issue", commentId: 42 };

afterAll(async () => {
  await flushPrefix(prefix, url);
  redis.disconnect();
});

/** The command comments' claims and sent writes on a real Redis. */
describe("CommandClaims", () => {
  it("claims a comment for its first job only, again for that job's retries, for 7 days", async () => {
    expect(await claims.claim(comment, "job-1")).toBe(true);
    expect(await claims.claim(comment, "job-2")).toBe(false);
    expect(await claims.claim(comment, "job-1")).toBe(true);
    expect(await redis.ttl(`${prefix}:cmd:o/r:issue:42`)).toBeGreaterThan(7 * 86_400 - 5);
  });

  it("reads back a sent write's result (none for a write that returned nothing), and a record that is not one is a StoredRecordError", async () => {
    expect(await claims.sent(comment, "resolve")).toBeUndefined();
    await claims.recordSent(comment, "resolve", { status: "WONT_FIX" });
    await claims.recordSent(comment, "note", undefined);
    expect(await claims.sent(comment, "resolve")).toEqual({ v: { status: "WONT_FIX" } });
    expect(await claims.sent(comment, "note")).toEqual({});
    await redis.hset(`${prefix}:cmdsent:o/r:issue:42`, "severity", "not json");
    await expect(claims.sent(comment, "severity")).rejects.toThrow(StoredRecordError);
  });
});
