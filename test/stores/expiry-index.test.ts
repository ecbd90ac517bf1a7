import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { ExpiryIndex } from "../../src/stores/expiry-index.js";
import { flushPrefix } from "../support/flush.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url);
const prefix = `{ei-${randomBytes(4).toString("hex")}}`;
const index = new ExpiryIndex(redis, prefix);
const pull = { installationId: 7, accountLogin: "acme", owner: "acme", repo: "web", pullNumber: 3 };

afterAll(async () => {
  await flushPrefix(prefix, url);
  redis.disconnect();
});

/** The installations' expiries indexes and the expiry jobs' sent steps on a real Redis. */
describe("ExpiryIndex", () => {
  it("lists an installation's expiries due by a moment, soonest first, and drops one", async () => {
    await index.add(pull, "expiry-b", 2_000, 3_600);
    await index.add(pull, "expiry-a", 1_000, 60);
    await index.add({ ...pull, installationId: 8 }, "expiry-c", 1_500, 60);
    expect((await index.entries(7)).map((e) => e.expiryId)).toEqual(["expiry-a", "expiry-b"]);
    expect(await index.entries(7, 1_500)).toEqual([{ ...pull, expiryId: "expiry-a" }]);
    // the index lives as long as its latest expiry asks, never less
    expect(await redis.ttl(`${prefix}:expiries:7`)).toBeGreaterThan(3_500);
    expect(await index.installations()).toEqual([7, 8]);
    await index.remove(pull, "expiry-a");
    expect((await index.entries(7)).map((e) => e.expiryId)).toEqual(["expiry-b"]);
  });

  it("leaves out an entry that does not parse", async () => {
    await redis.zadd(`${prefix}:expiries:9`, 1, "not json", 2, JSON.stringify([9, "acme"]));
    await index.add({ ...pull, installationId: 9 }, "expiry-d", 3, 60);
    expect((await index.entries(9)).map((e) => e.expiryId)).toEqual(["expiry-d"]);
  });

  it("keeps an expiry job's sent steps for 7 days", async () => {
    expect(await index.sentSteps("expiry-b")).toEqual({});
    await index.markSent("expiry-b", "resolution", "1");
    await index.markSent("expiry-b", "decision", "{}");
    expect(await index.sentSteps("expiry-b")).toEqual({ resolution: "1", decision: "{}" });
    expect(await redis.ttl(`${prefix}:once:expiry:expiry-b`)).toBeGreaterThan(7 * 86_400 - 5);
  });
});
