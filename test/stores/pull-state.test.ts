import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { LockBusyError, PullStateStore } from "../../src/stores/pull-state.js";
import { StoredRecordError } from "../../src/stores/stored-record.js";

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

describe("a pull request's and a merge group's state (real Redis)", () => {
  const state = new PullStateStore(redis, prefix);
  const pull = { installationId: 7, owner: "o", repo: "r", pullNumber: 3, headSha: "a".repeat(40) };

  it("reads what it wrote, and keeps a field it does not know through a read and a write", async () => {
    await redis.set(`${prefix}:pr:o/r#3`, JSON.stringify({ ...pull, addedLater: { x: 1 } }));
    const read = await state.getPull("o/r#3");
    expect(read).toMatchObject(pull);
    await state.setPull("o/r#3", { ...read!, scanId: "scn_1" });
    expect(JSON.parse((await redis.get(`${prefix}:pr:o/r#3`))!)).toEqual({
      ...pull,
      addedLater: { x: 1 },
      scanId: "scn_1",
    });
  });

  it("a state that is not one (not JSON, a field of the wrong type) is a StoredRecordError naming its key", async () => {
    await redis.set(`${prefix}:pr:o/r#4`, "{not json");
    await expect(state.getPull("o/r#4")).rejects.toThrow(StoredRecordError);
    await redis.set(`${prefix}:mg:o/r@${"b".repeat(40)}`, JSON.stringify({ ...pull, headSha: 42 }));
    const error = await state.getGroup(`o/r@${"b".repeat(40)}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoredRecordError);
    expect((error as StoredRecordError).key).toBe(`${prefix}:mg:o/r@${"b".repeat(40)}`);
    expect((error as StoredRecordError).problem).toMatch(/^headSha: /);
    await redis.set(`${prefix}:checkrun:o/r/9`, JSON.stringify({ pullNumber: "3" }));
    await expect(state.getCheckRunOwner("o", "r", 9)).rejects.toThrow(StoredRecordError);
  });
});

describe("a close noted as it arrives (real Redis)", () => {
  const state = new PullStateStore(redis, prefix);

  it("is after an event of an earlier second, not of the same one; the latest close wins, with an end", async () => {
    const key = "o/r#40";
    expect(await state.closedSince(key, "2026-11-29T01:00:00Z")).toBe(false);
    await state.noteClose(key, "2026-11-29T01:00:05Z");
    expect(await state.closedSince(key, "2026-11-29T01:00:04Z")).toBe(true);
    expect(await state.closedSince(key, "2026-11-29T01:00:05Z")).toBe(false); // GitHub counts whole seconds
    // a reopen's event comes after the close: its launch is wanted
    expect(await state.closedSince(key, "2026-11-29T01:00:09Z")).toBe(false);
    // an older close delivered late does not move the note back
    await state.noteClose(key, "2026-11-29T00:59:00Z");
    expect(await state.closedSince(key, "2026-11-29T01:00:04Z")).toBe(true);
    await state.noteClose(key, "2026-11-29T01:00:30Z");
    expect(await state.closedSince(key, "2026-11-29T01:00:20Z")).toBe(true);
    expect(await redis.pttl(`${prefix}:closed-at:${key}`)).toBeGreaterThan(6 * 24 * 3600 * 1000);
    // no updated_at on the followed state (an old record): nothing is stopped
    expect(await state.closedSince(key, undefined)).toBe(false);
  });
});
