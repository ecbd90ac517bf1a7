import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ScannerApiError,
  ScannerClient,
  ScannerConfigError,
  ScannerNetworkError,
  ScannerRequestError,
  ScannerResponseError,
  ScannerTimeoutError,
  type ResponseInfo,
} from "../../src/scanner/index.js";

const ORIGIN = "http://scanner.test";
const BASE = `${ORIGIN}/api/v1`;
const TOKEN = "tok_SECRET_value_123";

const scan = {
  id: "scan_1",
  status: "PROCESSING",
  repositoryId: "repo_1",
  commitHash: "abcdef1",
  baseCommit: null,
  commitMessage: null,
  presetName: "Diff",
  createdAt: "2025-01-01T00:00:00.000Z",
  startedAt: "2025-01-01T00:00:01Z",
  completedAt: null,
  progress: { phasesCompleted: 1, phasesTotal: 3, percent: 40 },
  branch: "main",
  creditBudget: 100,
};

function client(extra: Partial<ConstructorParameters<typeof ScannerClient>[0]> = {}) {
  return new ScannerClient({ baseUrl: BASE, token: TOKEN, ...extra });
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});
afterAll(() => nock.enableNetConnect());

describe("requests", () => {
  it("sends the bearer token, user agent and JSON accept header", async () => {
    nock(ORIGIN, {
      reqheaders: {
        authorization: `Bearer ${TOKEN}`,
        accept: "application/json",
        "user-agent": "diffward-test/1",
      },
    })
      .get("/api/v1/token")
      .reply(200, {
        id: "t",
        name: "n",
        scopes: ["read"],
        repositoryIds: [],
        expiresAt: null,
        spendLimitCredits: null,
        project: { id: "p", slug: "p", name: "P", organization: { id: "o", slug: "o", name: "O" } },
      });
    const t = await client({ userAgent: "diffward-test/1" }).getToken();
    expect(t.project.id).toBe("p");
  });

  it("encodes path parameters", async () => {
    nock(ORIGIN)
      .get("/api/v1/projects/a%2Fb%20c/scans/s%3F1")
      .reply(200, { scan: { ...scan, status: "COMPLETED" } });
    const r = await client().getScan("a/b c", "s?1");
    expect(r.scan.status).toBe("COMPLETED");
  });

  it("refuses an empty path parameter without sending", async () => {
    await expect(client().getScan("", "s")).rejects.toMatchObject({
      name: "ScannerRequestError",
      field: "projectId",
      endpoint: "GET /projects/{projectId}/scans/{scanId}",
    });
  });

  it("sends list queries and omits unset ones", async () => {
    nock(ORIGIN)
      .get("/api/v1/projects/p/findings")
      .query({ page: "2", limit: "10", scanId: "scan_1" })
      .reply(200, { items: [], page: 2, limit: 10, total: 10 });
    nock(ORIGIN)
      .get("/api/v1/projects/p/scans")
      .query({})
      .reply(200, { items: [], page: 1, limit: 50, total: 0 });
    expect((await client().listFindings("p", { page: 2, limit: 10, scanId: "scan_1" })).page).toBe(2);
    expect((await client().listScans("p")).total).toBe(0);
  });

  it("sends usage dates as ISO strings", async () => {
    nock(ORIGIN)
      .get("/api/v1/projects/p/billing/usage")
      .query({ from: "2025-01-01T00:00:00.000Z", to: "2025-01-31T00:00:00Z", limit: "5" })
      .reply(200, { from: "2025-01-01T00:00:00.000Z", to: "2025-01-31T00:00:00Z", events: [] });
    const u = await client().getUsage("p", {
      from: new Date("2025-01-01T00:00:00Z"),
      to: "2025-01-31T00:00:00Z",
      limit: 5,
    });
    expect(u.events).toEqual([]);
  });
});

describe("launchScan bodies", () => {
  const ok = { scanId: "scan_9", queued: true, creditBudget: 50 };
  const EVERY_FIELD = {
    repositoryId: "r",
    creditBudget: 10,
    presetRef: "diff-standard",
    commitHash: "ABCDEF0123",
    commitMessage: "m",
    baseCommit: "main",
    auditAreaKeys: ["auth"],
    branch: null,
  };

  it.each([
    ["guidance omitted", { repositoryId: "r" }, { repositoryId: "r" }],
    [
      "guidance undefined counts as omitted",
      { repositoryId: "r", guidance: undefined },
      { repositoryId: "r" },
    ],
    [
      "guidance string",
      { repositoryId: "r", guidance: "focus on auth" },
      { repositoryId: "r", guidance: "focus on auth" },
    ],
    ["guidance null", { repositoryId: "r", guidance: null }, { repositoryId: "r", guidance: null }],
    ["guidance empty", { repositoryId: "r", guidance: "" }, { repositoryId: "r", guidance: "" }],
    // every field of the spec's launch body, sent as given, in the caller's order
    ["every field", EVERY_FIELD, EVERY_FIELD],
  ])("%s", async (_name, options, expected) => {
    let sent: string | undefined;
    nock(ORIGIN, { reqheaders: { "content-type": "application/json" } })
      .post("/api/v1/projects/p/scans", (body: unknown) => {
        sent = JSON.stringify(body);
        return true;
      })
      .reply(202, ok);
    expect(await client().launchScan("p", options)).toEqual(ok);
    expect(sent).toBe(JSON.stringify(expected));
  });

  it.each([
    ["commitHash", { repositoryId: "r", commitHash: "abc12" }],
    ["commitHash", { repositoryId: "r", commitHash: "z".repeat(7) }],
    ["commitHash", { repositoryId: "r", commitHash: "a".repeat(41) }],
    ["creditBudget", { repositoryId: "r", creditBudget: 0 }],
    ["creditBudget", { repositoryId: "r", creditBudget: 1.5 }],
    ["guidance", { repositoryId: "r", guidance: "x".repeat(100_001) }],
    ["repositoryId", { repositoryId: "" }],
    ["commitSha", { repositoryId: "r", commitSha: "abcdef1" }],
  ])("refuses bad %s before sending", async (field, options) => {
    const err = await client()
      .launchScan("p", options as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScannerRequestError);
    expect((err as ScannerRequestError).field).toBe(field);
    expect((err as ScannerRequestError).endpoint).toBe("POST /projects/{projectId}/scans");
  });

  it("accepts the limits' edges", async () => {
    nock(ORIGIN).post("/api/v1/projects/p/scans").times(2).reply(202, ok);
    await client().launchScan("p", {
      repositoryId: "r",
      commitHash: "a".repeat(40),
      guidance: "x".repeat(100_000),
    });
    await client().launchScan("p", { repositoryId: "r", commitHash: "abcdef1", creditBudget: 1 });
  });
});

describe("other bodies and input checks", () => {
  it("keeps expectedContent omitted vs null distinct", async () => {
    const bodies: string[] = [];
    nock(ORIGIN)
      .put("/api/v1/projects/p/repositories/r/guidance", (b: unknown) => bodies.push(JSON.stringify(b)) > 0)
      .times(3)
      .reply(200, { repositoryId: "r", revisionId: "rev", unchanged: false });
    await client().putGuidance("p", "r", { content: "a" });
    await client().putGuidance("p", "r", { content: "b", expectedContent: null });
    await client().putGuidance("p", "r", { content: null, expectedContent: "b" });
    expect(bodies).toEqual([
      '{"content":"a"}',
      '{"content":"b","expectedContent":null}',
      '{"content":null,"expectedContent":"b"}',
    ]);
  });

  it("sends severity null and resolution notes as given", async () => {
    const bodies: string[] = [];
    nock(ORIGIN)
      .patch(
        "/api/v1/projects/p/findings/SC-abcdefgh/severity",
        (b: unknown) => bodies.push(JSON.stringify(b)) > 0,
      )
      .reply(200, { findingId: "f", severity: "LOW" });
    nock(ORIGIN)
      .patch("/api/v1/projects/p/findings/f/resolution", (b: unknown) => bodies.push(JSON.stringify(b)) > 0)
      .reply(200, { resolutionStatus: "WONT_FIX" });
    expect(await client().setSeverity("p", "SC-abcdefgh", null)).toMatchObject({ severity: "LOW" });
    const r = await client().setResolution("p", "f", {
      resolutionStatus: "WONT_FIX",
      note: { existingNoteId: "n1" },
      reason: "risk_accepted",
    });
    expect(r.resolutionStatus).toBe("WONT_FIX");
    expect(bodies).toEqual([
      '{"severity":null}',
      '{"resolutionStatus":"WONT_FIX","note":{"existingNoteId":"n1"},"reason":"risk_accepted"}',
    ]);
  });

  it.each([
    ["listScans limit 0", (c: ScannerClient) => c.listScans("p", { limit: 0 }), "limit"],
    ["listScans limit 101", (c: ScannerClient) => c.listScans("p", { limit: 101 }), "limit"],
    ["listFindings page 0", (c: ScannerClient) => c.listFindings("p", { page: 0 }), "page"],
    ["iterateScans limit 500", (c: ScannerClient) => c.iterateScans("p", { limit: 500 }).next(), "limit"],
    ["setSeverity bogus", (c: ScannerClient) => c.setSeverity("p", "f", "SEVERE" as never), "severity"],
    ["addNote empty", (c: ScannerClient) => c.addNote("p", "f", ""), "content"],
    [
      "setResolution both note kinds",
      (c: ScannerClient) =>
        c.setResolution("p", "f", {
          resolutionStatus: "RESOLVED",
          note: { content: "x", existingNoteId: "y" } as never,
        }),
      "note",
    ],
    [
      "setResolution status",
      (c: ScannerClient) => c.setResolution("p", "f", { resolutionStatus: "DONE" as never }),
      "resolutionStatus",
    ],
    [
      "putGuidance too long",
      (c: ScannerClient) => c.putGuidance("p", "r", { content: "x".repeat(100_001) }),
      "content",
    ],
    ["getUsage limit", (c: ScannerClient) => c.getUsage("p", { limit: 1001 }), "limit"],
    ["getUsage from", (c: ScannerClient) => c.getUsage("p", { from: "yesterday" }), "from"],
    ["getSummary months", (c: ScannerClient) => c.getSummary("p", { months: 0 }), "months"],
    ["publishScan withPassword", (c: ScannerClient) => c.publishScan("p", "s", {} as never), "withPassword"],
  ])("refuses %s before sending", async (_name, call, field) => {
    const err = await call(client()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScannerRequestError);
    expect((err as ScannerRequestError).field).toBe(field);
  });
});

describe("answers", () => {
  it("returns Retry-After of a running scan and omits it when absent", async () => {
    nock(ORIGIN).get("/api/v1/projects/p/scans/s").reply(200, { scan }, { "Retry-After": "2" });
    nock(ORIGIN)
      .get("/api/v1/projects/p/scans/s")
      .reply(200, {
        scan: { ...scan, status: "COMPLETED", findingsSummary: { total: 1, bySeverity: { HIGH: 1 } } },
      });
    expect(await client().getScan("p", "s")).toEqual({ scan, retryAfterSeconds: 2 });
    const done = await client().getScan("p", "s");
    expect(done).not.toHaveProperty("retryAfterSeconds");
    expect(done.scan.findingsSummary).toEqual({ total: 1, bySeverity: { HIGH: 1 } });
  });

  it("keeps unknown fields of a scan", async () => {
    nock(ORIGIN)
      .get("/api/v1/projects/p/scans/s")
      .reply(200, { scan: { ...scan, costSoFar: 7 }, meta: 1 });
    expect((await client().getScan("p", "s")).scan).toMatchObject({ costSoFar: 7 });
  });

  it("names the endpoint and field path of a body that does not fit", async () => {
    nock(ORIGIN)
      .get("/api/v1/projects/p/scans/s")
      .reply(200, { scan: { ...scan, progress: { ...scan.progress, percent: 140 } } });
    const err = await client()
      .getScan("p", "s")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScannerResponseError);
    expect(err).toMatchObject({
      endpoint: "GET /projects/{projectId}/scans/{scanId}",
      path: "scan.progress.percent",
      status: 200,
    });
    expect((err as Error).message).toContain("scan.progress.percent");
  });

  it("names array indexes in the path and refuses unknown enum values", async () => {
    nock(ORIGIN)
      .get("/api/v1/projects/p/scans")
      .reply(200, { items: [scan, { ...scan, status: "RUNNING" }], page: 1, limit: 50, total: 2 });
    await expect(client().listScans("p")).rejects.toMatchObject({ path: "items[1].status" });
  });

  it("refuses a 2xx body that is not JSON", async () => {
    nock(ORIGIN)
      .get("/api/v1/projects/p/billing/balance")
      .reply(200, "<html>", { "Content-Type": "text/html" });
    await expect(client().getBalance("p")).rejects.toMatchObject({
      name: "ScannerResponseError",
      path: "(body)",
    });
  });

  it("parses the spec's error body with Retry-After as an HTTP-date", async () => {
    const at = new Date(Date.now() + 5_000).toUTCString();
    nock(ORIGIN)
      .post("/api/v1/projects/p/scans")
      .reply(429, { error: { code: "rate_limited", message: "spend limit reached" } }, { "Retry-After": at });
    const err = (await client()
      .launchScan("p", { repositoryId: "r" })
      .catch((e: unknown) => e)) as ScannerApiError;
    expect(err).toBeInstanceOf(ScannerApiError);
    expect(err).toMatchObject({
      status: 429,
      code: "rate_limited",
      retryable: true,
      endpoint: "POST /projects/{projectId}/scans",
    });
    expect(err.serviceMessage).toBe("spend limit reached");
    expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(4);
    expect(err.retryAfterSeconds).toBeLessThanOrEqual(5);
  });

  it("gives code unknown for a non-spec error body, keeping the status", async () => {
    nock(ORIGIN).get("/api/v1/projects/p/scan-presets").reply(502, "Bad Gateway");
    nock(ORIGIN)
      .get("/api/v1/projects/p/scan-presets")
      .reply(400, { error: { code: "teapot", message: "short and stout" } });
    await expect(client().listPresets("p")).rejects.toMatchObject({
      status: 502,
      code: "unknown",
      retryable: true,
    });
    await expect(client().listPresets("p")).rejects.toMatchObject({
      status: 400,
      code: "unknown",
      retryable: false,
      message: expect.stringContaining("short and stout"),
    });
  });

  it("iterates every page", async () => {
    const page = (n: number, ids: string[]) => ({
      items: ids.map((id) => ({ ...scan, id })),
      page: n,
      limit: 2,
      total: 5,
    });
    nock(ORIGIN)
      .get("/api/v1/projects/p/scans")
      .query({ page: "1", limit: "2" })
      .reply(200, page(1, ["a", "b"]));
    nock(ORIGIN)
      .get("/api/v1/projects/p/scans")
      .query({ page: "2", limit: "2" })
      .reply(200, page(2, ["c", "d"]));
    nock(ORIGIN)
      .get("/api/v1/projects/p/scans")
      .query({ page: "3", limit: "2" })
      .reply(200, page(3, ["e"]));
    const ids: string[] = [];
    for await (const s of client().iterateScans("p", { limit: 2 })) ids.push(s.id);
    expect(ids).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("reports every answered request to onResponse with the route template", async () => {
    const seen: ResponseInfo[] = [];
    nock(ORIGIN).get("/api/v1/projects/p/scan-presets").reply(200, { presets: [] });
    nock(ORIGIN)
      .get("/api/v1/projects/p/scans/s")
      .reply(404, { error: { code: "not_found", message: "no" } });
    const c = client({ onResponse: (i) => seen.push(i) });
    await c.listPresets("p");
    await c.getScan("p", "s").catch(() => undefined);
    expect(seen.map(({ durationMs: _d, ...i }) => i)).toEqual([
      { method: "GET", route: "/projects/{projectId}/scan-presets", status: 200 },
      { method: "GET", route: "/projects/{projectId}/scans/{scanId}", status: 404 },
    ]);
    expect(seen.every((i) => i.durationMs >= 0)).toBe(true);
  });
});

describe("onResponse", () => {
  it("never turns an answered request into a failure when the hook throws", async () => {
    nock(ORIGIN).post("/api/v1/projects/p/scans").reply(202, { scanId: "s", queued: true, creditBudget: 5 });
    const c = client({
      onResponse: () => {
        throw new Error("metrics down");
      },
    });
    expect((await c.launchScan("p", { repositoryId: "r" })).scanId).toBe("s");
  });
});

describe("token secrecy", () => {
  it("never shows the token in inspect, JSON, toString or errors", async () => {
    const c = client();
    for (const text of [
      inspect(c),
      inspect(c, { showHidden: true, depth: 5 }),
      JSON.stringify(c),
      String(c),
      `${c}`,
    ]) {
      expect(text).not.toContain(TOKEN);
    }
    nock(ORIGIN)
      .get("/api/v1/token")
      .reply(401, { error: { code: "unauthorized", message: "bad token" } });
    const err = await c.getToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScannerApiError);
    expect(inspect(err, { depth: 10 })).not.toContain(TOKEN);
    expect(JSON.stringify(err)).not.toContain(TOKEN);
  });
});

describe("configuration", () => {
  it.each([
    ["http://x/api/v2", "baseUrl"],
    ["ftp://x/api/v1", "baseUrl"],
    ["not a url", "baseUrl"],
    ["http://user:pw@x/api/v1", "baseUrl"],
  ])("refuses baseUrl %s", (baseUrl, variable) => {
    expect(() => new ScannerClient({ baseUrl, token: "t" })).toThrow(ScannerConfigError);
    expect(() => new ScannerClient({ baseUrl, token: "t" })).toThrow(new RegExp(`^${variable}:`));
  });

  it("refuses an empty token and a bad timeout", () => {
    expect(() => new ScannerClient({ baseUrl: BASE, token: " " })).toThrow(/token/);
    expect(() => new ScannerClient({ baseUrl: BASE, token: "t", timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it("drops one trailing slash", () => {
    expect(new ScannerClient({ baseUrl: `${BASE}/`, token: "t" }).baseUrl).toBe(BASE);
  });
});

describe("transport failures (real sockets)", () => {
  let hanging: Server;
  let hangingUrl: string;
  beforeAll(async () => {
    nock.enableNetConnect("127.0.0.1");
    hanging = createServer((req, res) => {
      // Headers now, body never: the timeout must also cover the body read.
      if (req.url?.endsWith("/token")) res.writeHead(200, { "content-type": "application/json" }).write("{");
    });
    await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
    hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(async () => {
    hanging.closeAllConnections();
    await new Promise((r) => hanging.close(r));
  });

  it("times out a request that gets no answer", async () => {
    const c = new ScannerClient({ baseUrl: hangingUrl, token: TOKEN, timeoutMs: 150 });
    const started = Date.now();
    const err = await c.listPresets("p").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScannerTimeoutError);
    expect(err).toMatchObject({
      retryable: true,
      timeoutMs: 150,
      endpoint: "GET /projects/{projectId}/scan-presets",
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("times out a body that never ends", async () => {
    const c = new ScannerClient({ baseUrl: hangingUrl, token: TOKEN, timeoutMs: 150 });
    await expect(c.getToken()).rejects.toBeInstanceOf(ScannerTimeoutError);
  });

  it("reports connection refused as a retryable network error", async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    const c = new ScannerClient({ baseUrl: `http://127.0.0.1:${port}/api/v1`, token: TOKEN });
    const err = await c.getToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScannerNetworkError);
    expect(err).toMatchObject({ retryable: true, systemCode: "ECONNREFUSED" });
    expect(inspect(err, { depth: 10, showHidden: true })).not.toContain(TOKEN);
  });

  it("reports a reset connection as a network error", async () => {
    const s = createServer((req) => req.socket.destroy());
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const c = new ScannerClient({
      baseUrl: `http://127.0.0.1:${(s.address() as AddressInfo).port}/api/v1`,
      token: TOKEN,
    });
    const err = await c.getToken().catch((e: unknown) => e);
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
    expect(err).toBeInstanceOf(ScannerNetworkError);
    expect((err as ScannerNetworkError).retryable).toBe(true);
  });
});
