import { randomBytes } from "node:crypto";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import {
  AUDIT_PAGE_SIZE,
  AUDIT_TEXT_MAX,
  auditKey,
  type AuditEntry,
  type AuditEntryInput,
  type AuditQuery,
} from "../../src/stores/audit-log.js";
import { createRedis } from "../../src/runtime/connection.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { createStores } from "../../src/stores/index.js";

/** The audit stream on a real Redis: append, trim by retention, read by time range and repository. */
describe("audit log (Redis stream, real Redis)", () => {
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const prefixes: string[] = [];
  const logged: unknown[] = [];
  const log = pino({ level: "warn" }, { write: (line: string) => void logged.push(JSON.parse(line)) });

  /** The runtime's stores over a fresh state prefix, their clock at `now` (ms). */
  function runtime(now = Date.now(), auditRetentionDays = 400) {
    const prefix = `{dwt-audit-${randomBytes(3).toString("hex")}}`;
    prefixes.push(prefix);
    const settings = { ...DEFAULT_SETTINGS, auditRetentionMs: auditRetentionDays * 86_400_000 };
    return { stores: createStores(redis, prefix, { settings, log, now: () => now }) };
  }

  const entry = (over: Partial<AuditEntryInput> = {}): AuditEntryInput => ({
    installationId: 7,
    repository: "octo/app",
    pullNumber: 3,
    findingId: "f_1",
    findingLabel: "SC-1",
    actor: "alice",
    action: "resolve",
    from: "NOT_STARTED",
    to: "WONT_FIX",
    reason: "risk_accepted: tracked elsewhere",
    source: "command",
    outcome: "applied",
    ...over,
  });

  async function all(rt: ReturnType<typeof runtime>, query: AuditQuery = {}): Promise<AuditEntry[]> {
    const out: AuditEntry[] = [];
    for await (const e of rt.stores.audit.read(query)) out.push(e);
    return out;
  }

  afterAll(async () => {
    for (const p of prefixes) await redis.del(auditKey(p));
    redis.disconnect();
  });

  it("appends an entry with the runtime's time and reads it back whole, the key with a TTL of the retention", async () => {
    const rt = runtime(Date.UTC(2026, 10, 26, 1, 2, 3), 30);
    await rt.stores.audit.append(entry({ expiresAt: "2027-03-31T23:59:59.999Z", approver: "bob" }));
    expect(await all(rt)).toEqual([
      {
        ...entry(),
        time: "2026-11-26T01:02:03.000Z",
        expiresAt: "2027-03-31T23:59:59.999Z",
        approver: "bob",
      },
    ]);
    const ttl = await redis.ttl(rt.stores.audit.key);
    expect(ttl).toBeGreaterThan(30 * 86_400 - 5);
    expect(ttl).toBeLessThanOrEqual(30 * 86_400);
    expect(await redis.type(rt.stores.audit.key)).toBe("stream");
  });

  it("cuts a long reason and detail to AUDIT_TEXT_MAX characters", async () => {
    const rt = runtime();
    await rt.stores.audit.append(entry({ reason: "r".repeat(5_000), detail: "d".repeat(AUDIT_TEXT_MAX) }));
    const [got] = await all(rt);
    expect(got!.reason).toBe(`${"r".repeat(AUDIT_TEXT_MAX)}…`);
    expect(got!.detail).toBe("d".repeat(AUDIT_TEXT_MAX));
  });

  it("trims entries older than the retention at each append (MINID)", async () => {
    const now = Date.now();
    const rt = runtime(now, 10);
    const key = rt.stores.audit.key;
    const old = JSON.stringify({
      ...entry({ actor: "old" }),
      time: new Date(now - 11 * 86_400_000).toISOString(),
    });
    const kept = JSON.stringify({
      ...entry({ actor: "kept" }),
      time: new Date(now - 9 * 86_400_000).toISOString(),
    });
    await redis.xadd(key, `${now - 11 * 86_400_000}-0`, "e", old);
    await redis.xadd(key, `${now - 9 * 86_400_000}-0`, "e", kept);
    await rt.stores.audit.append(entry({ actor: "new" }));
    expect((await all(rt)).map((e) => e.actor)).toEqual(["kept", "new"]);
    expect(await redis.xlen(key)).toBe(2);
  });

  it("reads a time range by entry id (both ends included) and one repository without case", async () => {
    const rt = runtime();
    const key = rt.stores.audit.key;
    const t0 = Date.UTC(2026, 10, 1);
    for (const [i, repo] of ["octo/app", "octo/lib", "Octo/App", "octo/app"].entries()) {
      const time = new Date(t0 + i * 86_400_000).toISOString();
      await redis.xadd(
        key,
        `${t0 + i * 86_400_000}-0`,
        "e",
        JSON.stringify({ ...entry({ repository: repo }), time }),
      );
    }
    const day = (i: number) => t0 + i * 86_400_000;
    expect((await all(rt, { sinceMs: day(1), untilMs: day(2) })).map((e) => e.time)).toEqual([
      "2026-11-02T00:00:00.000Z",
      "2026-11-03T00:00:00.000Z",
    ]);
    expect((await all(rt, { repository: "OCTO/app" })).map((e) => e.time.slice(0, 10))).toEqual([
      "2026-11-01",
      "2026-11-03",
      "2026-11-04",
    ]);
    expect(await all(rt, { sinceMs: day(5) })).toEqual([]);
  });

  it("pages through more entries than one XRANGE returns, each once, in order", async () => {
    const rt = runtime();
    const key = rt.stores.audit.key;
    const n = AUDIT_PAGE_SIZE * 2 + 7;
    const pipe = redis.pipeline();
    for (let i = 0; i < n; i++)
      pipe.xadd(
        key,
        `1000-${i}`,
        "e",
        JSON.stringify({ ...entry({ detail: String(i) }), time: "2026-11-01T00:00:00Z" }),
      );
    await pipe.exec();
    const got = await all(rt);
    expect(got.map((e) => Number(e.detail))).toEqual([...Array(n).keys()]);
  });

  it("skips a stream entry that is not an audit entry, and never throws on a failed append (logs { err })", async () => {
    const rt = runtime();
    const key = rt.stores.audit.key;
    await redis.xadd(key, "*", "e", "not json");
    await redis.xadd(key, "*", "other", "x");
    await rt.stores.audit.append(entry());
    expect(await all(rt)).toHaveLength(1);
    logged.length = 0;
    await rt.stores.audit.append(entry({ repository: "no slash" }));
    expect(await all(rt)).toHaveLength(1);
    expect(logged).toEqual([
      expect.objectContaining({
        msg: "audit entry not appended",
        err: expect.objectContaining({ type: "ZodError" }),
      }),
    ]);
  });
});
