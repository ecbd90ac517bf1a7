import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { createStores } from "../../src/stores/index.js";
import { StoredRecordError } from "../../src/stores/stored-record.js";
import { readApprovals } from "../../src/triage/approvals.js";
import { readPullDecisions } from "../../src/triage/decisions.js";
import { approvalRequest } from "../support/finding.js";
import { flushPrefix } from "../support/flush.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url);
const prefix = `{pd-${randomBytes(4).toString("hex")}}`;
const logged: Array<Record<string, unknown>> = [];
const log = pino({ level: "warn" }, { write: (line: string) => void logged.push(JSON.parse(line)) });
const stores = createStores(redis, prefix, { settings: DEFAULT_SETTINGS, now: Date.now, log });
// triage reads through the runtime's stores and logger only
const rt = { stores, log } as unknown as Runtime;

afterAll(async () => {
  await flushPrefix(prefix, url);
  redis.disconnect();
});

/** A pull request's decisions and approval requests on a real Redis, read through their zod schemas. */
describe("the decisions and approvals stores", () => {
  it("read back what they stored, with the TTL asked (decisions) or 90 days (approvals)", async () => {
    await stores.decisions.put("o/r#1", { decisions: [], severities: [] }, 1_000);
    expect(await stores.decisions.get("o/r#1")).toEqual({ decisions: [], severities: [] });
    expect(await redis.ttl(`${prefix}:decisions:o/r#1`)).toBeGreaterThan(990);
    const finding = { id: "fnd_aaaaaaaa11111111", title: "t", location: "a.js:1", category: "c" };
    const request = approvalRequest(finding, "2026-11-19T10:00:00.000Z");
    await stores.approvals.put("o/r#1", [request]);
    expect(await stores.approvals.get("o/r#1")).toEqual([request]);
    expect(await redis.ttl(`${prefix}:approvals:o/r#1`)).toBeGreaterThan(89 * 86_400);
    expect(await stores.approvals.get("o/r#2")).toBeUndefined();
  });

  it("a document that does not fit is a StoredRecordError, which triage reads as none and logs", async () => {
    await redis.set(`${prefix}:decisions:o/r#3`, "{not json");
    await redis.set(`${prefix}:approvals:o/r#3`, JSON.stringify({ requests: [{ findingId: 1 }] }));
    await expect(stores.decisions.get("o/r#3")).rejects.toThrow(StoredRecordError);
    await expect(stores.approvals.get("o/r#3")).rejects.toThrow(StoredRecordError);
    logged.length = 0;
    expect(await readPullDecisions(rt, "o/r#3")).toEqual({ decisions: [], severities: [] });
    expect(await readApprovals(rt, "o/r#3")).toEqual([]);
    expect(logged.map((l) => l.msg)).toEqual([
      "stored decisions do not fit the schema: ignored",
      "stored approval requests do not fit the schema: ignored",
    ]);
  });
});
