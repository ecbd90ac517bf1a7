import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { LockBusyError, StateStore } from "../../src/runtime/state.js";

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
    const state = new StateStore(redis, prefix, 300);
    let second: unknown;
    await state.withPullLock("o/r#1", async () => {
      await sleep(1_000); // more than three ttls
      second = await state.withPullLock("o/r#1", async () => "taken").catch((e: unknown) => e);
    });
    expect(second).toBeInstanceOf(LockBusyError);
    expect(await state.withPullLock("o/r#1", async () => "free")).toBe("free");
  });

  it("still expires after its ttl when the holder is gone (no renewal without a running holder)", async () => {
    const state = new StateStore(redis, prefix, 300);
    // a holder that died: the key is set as withPullLock sets it, and nobody renews it
    await redis.set(`${prefix}:lock:o/r#2`, "dead-holder", "PX", 300, "NX");
    await expect(state.withPullLock("o/r#2", async () => "x")).rejects.toBeInstanceOf(LockBusyError);
    await sleep(450);
    expect(await state.withPullLock("o/r#2", async () => "after expiry")).toBe("after expiry");
  });
});
