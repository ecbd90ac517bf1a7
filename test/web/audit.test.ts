import { randomBytes } from "node:crypto";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_PAGE_SIZE, AuditLog, auditKey, type AuditEntry } from "../../src/stores/audit-log.js";
import { createRedis } from "../../src/runtime/connection.js";
import type { WebServer } from "../../src/web.js";
import { bareWebServer } from "../support/web-server.js";

/**
 * `GET /audit` over real HTTP against the web server module (`startWebServer`) and a real Redis: the admin
 * bearer token, the query's checks, and the JSON Lines body read page by page from the audit stream.
 */
describe("GET /audit (web server, real Redis)", () => {
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const prefix = `{dwt-web-audit-${randomBytes(3).toString("hex")}}`;
  const TOKEN = "admin-token-for-tests";
  const log = pino({ level: "silent" });
  let web: WebServer;
  let closed: WebServer;

  const day = (d: number) => Date.UTC(2026, 10, d, 12);
  const entry = (d: number, repository: string, actor: string): AuditEntry => ({
    time: new Date(day(d)).toISOString(),
    installationId: 9,
    repository,
    pullNumber: d,
    findingId: `f_${d}`,
    findingLabel: `SC-${d}`,
    actor,
    action: "resolve",
    from: "NOT_STARTED",
    to: "WONT_FIX",
    reason: "risk_accepted",
    source: "command",
    outcome: "applied",
  });

  /** The web server; with `audit`, `/audit` reads the trail under its state prefix behind its token. */
  const server = (audit?: { token: string; prefix: string }) =>
    bareWebServer(
      redis,
      log,
      audit ? { audit: { token: audit.token, trail: new AuditLog(redis, audit.prefix) } } : {},
    );

  beforeAll(async () => {
    // five days of one repository and another, ids at each entry's time (as XADD `*` gives them)
    for (const [d, repo, actor] of [
      [1, "octo/app", "alice"],
      [2, "octo/lib", "bob"],
      [3, "octo/app", "carol"],
      [4, "Octo/App", "dave"],
      [5, "octo/app", "erin"],
    ] as const)
      await redis.xadd(auditKey(prefix), `${day(d)}-0`, "e", JSON.stringify(entry(d, repo, actor)));
    web = await server({ token: TOKEN, prefix });
    closed = await server();
  });
  afterAll(async () => {
    await Promise.all([web.close(), closed.close()]);
    await redis.del(auditKey(prefix), auditKey(`${prefix}-many`));
    redis.disconnect();
  });

  /** `token: null` sends no Authorization header */
  const get = (path: string, token: string | null = TOKEN, base = web.url) =>
    fetch(`${base}${path}`, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  const lines = async (res: Response) =>
    (await res.text())
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditEntry);

  it("answers 401 with WWW-Authenticate without a token or with another token,", async () => {
    for (const token of [null, "wrong-token", `${TOKEN}x`, ""]) {
      const res = await get("/audit", token);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="audit"');
      expect(await res.json()).toEqual({ error: "a bearer token (DIFFWARD_ADMIN_TOKEN) is required" });
    }
    const basic = await fetch(`${web.url}/audit`, { headers: { authorization: `Basic ${TOKEN}` } });
    expect(basic.status).toBe(401);
  });

  it("answers 200 with every entry as JSON Lines, oldest first", async () => {
    const res = await get("/audit");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const got = await lines(res);
    expect(got.map((e) => e.actor)).toEqual(["alice", "bob", "carol", "dave", "erin"]);
    expect(got[0]).toEqual(entry(1, "octo/app", "alice"));
  });

  it("filters by since and until (dates are whole UTC days, date-times exact) and by repository without case", async () => {
    const actors = async (q: string) => (await lines(await get(`/audit?${q}`))).map((e) => e.actor);
    expect(await actors("since=2026-11-02&until=2026-11-04")).toEqual(["bob", "carol", "dave"]);
    expect(await actors("since=2026-11-03T12:00:00Z")).toEqual(["carol", "dave", "erin"]);
    expect(await actors("until=2026-11-03T11:59:59.999Z")).toEqual(["alice", "bob"]);
    expect(await actors("until=2026-11-03T13:59:59%2B02:00")).toEqual(["alice", "bob"]);
    expect(await actors("repository=octo/app")).toEqual(["alice", "carol", "dave", "erin"]);
    expect(await actors("repository=OCTO/APP&since=2026-11-04")).toEqual(["dave", "erin"]);
    expect(await actors("repository=octo/none")).toEqual([]);
    expect(await actors("since=2027-01-01")).toEqual([]);
  });

  it("answers 400 with a clear message for a bad query", async () => {
    const bad = async (q: string) => {
      const res = await get(`/audit?${q}`);
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: string }).error;
    };
    expect(await bad("since=yesterday")).toBe(
      "bad query: since: must be a date (YYYY-MM-DD) or an ISO 8601 date-time",
    );
    expect(await bad("until=2026-02-30")).toContain("until: must be a date");
    expect(await bad("since=2026-11-05&until=2026-11-01")).toBe("bad query: since must not be after until");
    expect(await bad("repo=octo/app")).toBe(
      "bad query: unknown parameter repo (known: since, until, repository)",
    );
    expect(await bad("repository=octo")).toBe("bad query: repository: must be owner/name");
    expect(await bad("since=2026-11-01&since=2026-11-02")).toBe("bad query: since is given more than once");
  });

  it("answers 400 naming the accepted range for a time before 1970 (a stream id counts ms from then), never 500", async () => {
    const range = "must be within 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z";
    for (const [q, error] of [
      ["since=1969-12-31", `bad query: since: ${range}`],
      ["until=1969-12-31", `bad query: until: ${range}`],
      ["since=0001-01-01T00:00:00Z", `bad query: since: ${range}`],
      ["since=1969-12-31T23:59:59.999Z&until=1969-12-31", `bad query: since: ${range}; until: ${range}`],
      ["until=9999-12-31T23:00:00-05:00", `bad query: until: ${range}`],
    ]) {
      const res = await get(`/audit?${q}`);
      expect(res.status, q).toBe(400);
      expect(await res.json(), q).toEqual({ error });
    }
    // the range's own ends are accepted
    const whole = await get("/audit?since=1970-01-01&until=9999-12-31");
    expect(whole.status).toBe(200);
    expect(await lines(whole)).toHaveLength(5);
  });

  it("escapes U+0085, U+2028 and U+2029 in an entry's text like newlines: one line per entry for any line splitter", async () => {
    const breaks = `${prefix}-breaks`;
    const reason = "first\u2028second\u2029third\u0085fourth\nfifth\r";
    for (const [i, actor] of ["alice", "bob"].entries())
      await redis.xadd(
        auditKey(breaks),
        `${day(1) + i}-0`,
        "e",
        JSON.stringify({ ...entry(1, "octo/app", actor), reason }),
      );
    const other = await server({ token: TOKEN, prefix: breaks });
    try {
      const body = await (await get("/audit", TOKEN, other.url)).text();
      expect(body).not.toMatch(/[\r\u0085\u2028\u2029]/);
      // Unicode's line breaks (JavaScript's line terminators, Python's str.splitlines): only the entries' ends
      const got = body.split(/\r\n|[\n\r\u0085\u2028\u2029]/).filter(Boolean);
      expect(got.map((l) => (JSON.parse(l) as AuditEntry).reason)).toEqual([reason, reason]);
      expect(body).toContain("first\\u2028second\\u2029third\\u0085fourth\\nfifth\\r");
    } finally {
      await other.close();
      await redis.del(auditKey(breaks));
    }
  });

  it("streams more entries than one XRANGE page, each once", async () => {
    const many = `${prefix}-many`;
    const pipe = redis.pipeline();
    const n = AUDIT_PAGE_SIZE * 2 + 3;
    for (let i = 0; i < n; i++)
      pipe.xadd(auditKey(many), `${day(1) + i}-0`, "e", JSON.stringify(entry(1, "octo/app", `u${i}`)));
    await pipe.exec();
    const other = await server({ token: TOKEN, prefix: many });
    try {
      const got = await lines(await get("/audit", TOKEN, other.url));
      expect(got.map((e) => e.actor)).toEqual(Array.from({ length: n }, (_, i) => `u${i}`));
    } finally {
      await other.close();
    }
  });

  it("answers 404 when no admin token is configured (DIFFWARD_ADMIN_TOKEN unset)", async () => {
    const res = await get("/audit", TOKEN, closed.url);
    expect(res.status).toBe(404);
  });
});
