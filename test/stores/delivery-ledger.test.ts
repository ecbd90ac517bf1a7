import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { DeliveryLedger } from "../../src/stores/delivery-ledger.js";
import { StoredRecordError } from "../../src/stores/stored-record.js";
import { flushPrefix } from "../support/flush.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url);
const prefix = `{dl-${randomBytes(4).toString("hex")}}`;
const ledger = new DeliveryLedger(redis, prefix, 60_000);

afterAll(async () => {
  await flushPrefix(prefix, url);
  redis.disconnect();
});

/** The webhook deliveries' records on a real Redis, read through their zod schemas. */
describe("DeliveryLedger", () => {
  it("reads the listing's progress and the followed GUIDs it wrote", async () => {
    expect(await ledger.scan()).toEqual({});
    await ledger.saveScan({ head: 10, seenAt: 20, resume: { cursor: "c", floor: 1, top: 9, startedAt: 3 } });
    expect(await ledger.scan()).toEqual({
      head: 10,
      seenAt: 20,
      resume: { cursor: "c", floor: 1, top: 9, startedAt: 3 },
    });
    await ledger.updateTracked(new Map([["g1", { id: 5, at: 6, attempts: 1 }]]), []);
    expect(await ledger.tracked()).toEqual(new Map([["g1", { id: 5, at: 6, attempts: 1 }]]));
  });

  it("a progress or a followed GUID that is not one is a StoredRecordError; a pending record that is not one reads as delivery 0", async () => {
    await redis.hset(`${prefix}:deliveries:tracked`, "g2", JSON.stringify({ id: "5", at: 6 }));
    await expect(ledger.tracked()).rejects.toThrow(StoredRecordError);
    await redis.set(`${prefix}:deliveries:scan`, JSON.stringify({ head: "yesterday" }));
    await expect(ledger.scan()).rejects.toThrow(StoredRecordError);
    await redis.set(`${prefix}:deliveries:pending:g3`, "42");
    expect(await ledger.pending(["g3", "g4"])).toEqual([{ id: 0, at: 0 }, undefined]);
  });
});
