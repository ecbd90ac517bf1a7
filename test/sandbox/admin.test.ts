import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boot, errorOf, type Harness } from "../support/sandbox-api.js";

let h: Harness;
let root: string;
beforeEach(async () => {
  h = await boot();
  root = h.sb.url.replace(/\/api\/v1$/, "");
});
afterEach(async () => {
  await h.sb.close();
});

const admin = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${root}${path}`, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: r.status, body: (await r.json()) as any };
};

describe("/_sandbox admin routes and fault injection", () => {
  it("5xx burst: the next N matching requests fail with the given statuses, then service resumes", async () => {
    const set = await admin("POST", "/_sandbox/faults", {
      errors: { count: 3, statuses: [502, 503], route: "^GET /token" },
    });
    expect(set.status).toBe(200);
    const statuses: number[] = [];
    expect((await h.api("GET", "/projects/prj_demo/scan-presets")).status).toBe(200); // other route untouched
    for (let i = 0; i < 4; i += 1) statuses.push((await h.api("GET", "/token")).status);
    expect(statuses).toEqual([502, 503, 502, 200]);
  });

  it("lost answers: the request is carried out (the scan exists, its budget reserved), then answered 5xx", async () => {
    const set = await admin("POST", "/_sandbox/faults", {
      lostAnswers: { count: 1, route: "^POST /projects/[^/]+/scans$" },
    });
    expect(set.body.faults.lostAnswers).toMatchObject({ remaining: 1, status: 504, served: 0 });
    expect((await h.api("GET", "/token")).status).toBe(200); // other route untouched
    const lost = await h.launch({ creditBudget: 60 });
    expect(errorOf(lost)).toEqual([504, "internal"]);
    const list = await h.api("GET", "/projects/prj_demo/scans");
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).toMatchObject({ repositoryId: "repo_demo", status: "QUEUED" });
    const balance = (await h.api("GET", "/projects/prj_demo/billing/balance")).body;
    expect(balance.balanceCredits - balance.availableCredits).toBe(60);
    expect((await h.launch({ creditBudget: 60 })).status).toBe(202); // the next one is answered
    const stats = await admin("GET", "/_sandbox/stats");
    expect(stats.body.requests["POST /projects/:projectId/scans"]).toEqual({ "202": 1, "504": 1 });
    expect(stats.body.faults.lostAnswers).toMatchObject({ remaining: 0, served: 1 });
    await admin("POST", "/_sandbox/faults", { lostAnswers: { count: 1, status: 502 } });
    expect(errorOf(await h.api("GET", "/token"))).toEqual([502, "internal"]);
  });

  it("429 burst carries Retry-After; latency delays responses", async () => {
    await admin("POST", "/_sandbox/faults", {
      rateLimits: { count: 1, retryAfterSeconds: 7 },
      latencyMs: 120,
    });
    const started = Date.now();
    const r = await h.api("GET", "/token");
    expect(errorOf(r)).toEqual([429, "rate_limited"]);
    expect(r.headers.get("retry-after")).toBe("7");
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    expect((await h.api("GET", "/token")).status).toBe(200);
    expect(errorOf((await admin("POST", "/_sandbox/faults", { latencyMs: -1 })) as never)).toEqual([
      400,
      "bad_request",
    ]);
  });

  it("delays hold the next N matching requests, counted on arrival, while later ones go through", async () => {
    await admin("POST", "/_sandbox/faults", { delays: { count: 1, ms: 400, route: "^GET /token" } });
    const started = Date.now();
    const held = h.api("GET", "/token").then(() => Date.now() - started);
    await new Promise((r) => setTimeout(r, 50));
    expect((await admin("GET", "/_sandbox/stats")).body.faults.delays).toMatchObject({
      remaining: 0,
      ms: 400,
    });
    const next = Date.now();
    expect((await h.api("GET", "/token")).status).toBe(200);
    expect(Date.now() - next).toBeLessThan(300); // the second one is not held
    expect(await held).toBeGreaterThanOrEqual(390);
    expect(
      errorOf((await admin("POST", "/_sandbox/faults", { delays: { count: 1, ms: -1 } })) as never),
    ).toEqual([400, "bad_request"]);
  });

  it("stats count requests by route and status and record when each scan became terminal", async () => {
    const id = (await h.launch({ creditBudget: 60 })).body.scanId;
    await h.api("GET", `/projects/prj_demo/scans/${id}`);
    h.tick(10_000);
    await h.api("GET", `/projects/prj_demo/scans/${id}`);
    await h.api("GET", "/token", undefined, null);
    const s = await admin("GET", "/_sandbox/stats");
    expect(s.body.requests["GET /projects/:projectId/scans/:scanId"]).toEqual({ "200": 2 });
    expect(s.body.requests["POST /projects/:projectId/scans"]).toEqual({ "202": 1 });
    expect(s.body.requests["GET /token"]).toEqual({ "401": 1 });
    expect(s.body.scans[id]).toMatchObject({ status: "COMPLETED", polls: 2, terminalAtMs: h.clock.t });
  });

  it("complete over HTTP, then reset restores the seed", async () => {
    const id = (await h.launch({ creditBudget: 60 })).body.scanId;
    expect((await admin("POST", `/_sandbox/scans/${id}/complete`, { outcome: "FAILED" })).body).toEqual({
      scanId: id,
      status: "FAILED",
    });
    h.sb.state.setBalance(5);
    expect((await admin("POST", "/_sandbox/reset")).status).toBe(200);
    expect(errorOf(await h.api("GET", `/projects/prj_demo/scans/${id}`))).toEqual([404, "not_found"]);
    expect((await h.api("GET", "/projects/prj_demo/billing/balance")).body.balanceCredits).toBe(10_000);
    expect((await h.api("GET", "/token")).status).toBe(200);
  });

  it("handles 10,000 scans in flight cheaply (lazy progress, no timers)", async () => {
    h.sb.state.setBalance(10_000_000);
    const st = h.sb.state;
    const token = st.tokens.get("sandbox-token");
    if (!token) throw new Error("seed token missing");
    for (let i = 0; i < 10_000; i += 1) {
      st.createScan({
        projectId: "prj_demo",
        repositoryId: "repo_demo",
        tokenId: token.id,
        presetRef: "quick",
        presetName: "Quick scan",
        branch: "main",
        commitHash: "a".repeat(40),
        baseCommit: null,
        commitMessage: null,
        auditAreaKeys: [],
        guidance: undefined,
        creditBudget: 1,
      });
    }
    const started = Date.now();
    for (let i = 0; i < 20; i += 1) await h.api("GET", "/projects/prj_demo/billing/balance");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await h.api("GET", "/projects/prj_demo/billing/balance")).body.reservedCredits).toBe(10_000);
    h.tick(10_000); // test duration: every scan ends and settles
    const after = (await h.api("GET", "/projects/prj_demo/billing/balance")).body;
    expect(after.reservedCredits).toBe(0);
    expect(after.balanceCredits).toBe(10_000_000 - 10_000);
    expect(st.ledger.filter((e) => e.type === "SCAN_DEDUCTION")).toHaveLength(10_000);
  });
});
