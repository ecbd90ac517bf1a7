import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boot, errorOf, type Harness } from "../support/sandbox-api.js";

let h: Harness;
beforeEach(async () => {
  h = await boot({ scanCost: 40 });
});
afterEach(async () => {
  await h.sb.close();
});

const read = (id: string, token?: string) => h.api("GET", `/projects/prj_demo/scans/${id}`, undefined, token);

describe("scan lifecycle and polling (spec 'Scan status', 'GET …/scans/{scanId}')", () => {
  it("goes QUEUED → PROCESSING → COMPLETED over the duration, with weighted progress", async () => {
    const { body } = await h.launch({ creditBudget: 100 });
    const q = await read(body.scanId);
    expect(q.body.scan).toMatchObject({ status: "QUEUED", startedAt: null, completedAt: null });
    expect(q.body.scan.progress).toEqual({ phasesCompleted: 0, phasesTotal: 0, percent: 0 });
    expect(q.body.scan.findingsSummary).toBeUndefined();
    // full-standard phases: time shares 0.4/0.2/0.2/0.2, weights 10/15/45/30 of 100
    h.tick(1_000 + 9_000 * 0.5);
    const p = await read(body.scanId);
    expect(p.body.scan.status).toBe("PROCESSING");
    expect(p.body.scan.progress).toEqual({ phasesCompleted: 1, phasesTotal: 4, percent: 17 });
    expect(p.body.scan.progress.percent).not.toBe(25);
    h.tick(4_500);
    const c = await read(body.scanId);
    expect(c.body.scan).toMatchObject({
      status: "COMPLETED",
      progress: { phasesCompleted: 4, phasesTotal: 4, percent: 100 },
    });
    expect(c.body.scan.completedAt).toBe(new Date(h.clock.t).toISOString());
    expect(c.body.scan.findingsSummary.total).toBeGreaterThan(0);
    expect(c.headers.get("retry-after")).toBeNull();
  });

  it("Retry-After on non-terminal reads; an early re-read is 429 rate_limited with the remaining wait", async () => {
    const { body } = await h.launch({ creditBudget: 100 });
    const first = await read(body.scanId);
    expect(first.headers.get("retry-after")).toBe("2");
    h.tick(500);
    const early = await read(body.scanId);
    expect(errorOf(early)).toEqual([429, "rate_limited"]);
    expect(early.headers.get("retry-after")).toBe("2");
    // the deadline is per token: another token reads freely
    const other = h.sb.state.createToken({ scopes: ["read"] });
    expect((await read(body.scanId, other)).status).toBe(200);
    h.tick(1_500);
    expect((await read(body.scanId)).status).toBe(200);
    const stats = await fetch(`${h.sb.url.replace(/\/api\/v1$/, "")}/_sandbox/stats`).then(
      (r) => r.json() as Promise<{ earlyPoll429s: number; scans: Record<string, { polls: number }> }>,
    );
    expect(stats.earlyPoll429s).toBe(1);
    expect(stats.scans[body.scanId]?.polls).toBe(3);
  });

  it("a forced FAILED outcome ends FAILED and refunds what it spent", async () => {
    const { body } = await h.launch({ creditBudget: 100 });
    h.sb.state.forceScanOutcome(body.scanId, "FAILED");
    h.tick(10_000);
    const r = await read(body.scanId);
    expect(r.body.scan.status).toBe("FAILED");
    expect(r.body.scan.progress.phasesCompleted).toBe(r.body.scan.progress.phasesTotal);
    expect(r.body.scan.progress.percent).toBeLessThan(100);
    const types = h.sb.state.ledger.filter((e) => e.scanId === body.scanId).map((e) => [e.type, e.credits]);
    expect(types).toEqual([
      ["SCAN_DEDUCTION", -39],
      ["SCAN_REFUND", 39],
    ]);
    expect(h.sb.state.findings.size).toBe(0);
  });

  it("lists scans newest first with page/limit/total and rejects a bad limit", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push((await h.launch({ creditBudget: 60 })).body.scanId);
      h.tick(1);
    }
    const r = await h.api("GET", "/projects/prj_demo/scans?limit=2&page=1");
    expect(r.body).toMatchObject({ page: 1, limit: 2, total: 3 });
    expect(r.body.items.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    expect(errorOf(await h.api("GET", "/projects/prj_demo/scans?limit=101"))).toEqual([400, "bad_request"]);
    expect(errorOf(await h.api("GET", "/projects/prj_demo/scans?page=0"))).toEqual([400, "bad_request"]);
  });
});

describe("cancel (spec 'Scan status' table)", () => {
  const cancel = (id: string) => h.api("POST", `/projects/prj_demo/scans/${id}/cancel`);

  it("QUEUED → CANCELLED with 0 jobs; budget released and nothing spent", async () => {
    const { body } = await h.launch({ creditBudget: 100 });
    const r = await cancel(body.scanId);
    expect(r.body).toEqual({ scanId: body.scanId, status: "CANCELLED", cancelledJobs: 0 });
    const bal = await h.api("GET", "/projects/prj_demo/billing/balance");
    expect(bal.body).toMatchObject({ balanceCredits: 10_000, reservedCredits: 0, availableCredits: 10_000 });
  });

  it("PROCESSING → CANCELLED: signals the unfinished phases and settles spend so far", async () => {
    const { body } = await h.launch({ creditBudget: 100 });
    h.tick(1_000 + 9_000 * 0.5); // 1 of 4 phases done, 17%
    const r = await cancel(body.scanId);
    expect(r.body).toEqual({ scanId: body.scanId, status: "CANCELLED", cancelledJobs: 3 });
    const s = await read(body.scanId);
    expect(s.body.scan.status).toBe("CANCELLED");
    const ev = h.sb.state.ledger.filter((e) => e.scanId === body.scanId);
    expect(ev.map((e) => e.credits)).toEqual([-Math.floor((40 * 17) / 100)]);
    // moving on in time changes nothing
    h.tick(60_000);
    expect((await read(body.scanId)).body.scan.status).toBe("CANCELLED");
  });

  it("CANCELLED again answers 200 with cancelledJobs 0 (idempotent); COMPLETED and FAILED answer 400", async () => {
    const a = (await h.launch({ creditBudget: 100 })).body.scanId;
    await cancel(a);
    expect((await cancel(a)).body).toEqual({ scanId: a, status: "CANCELLED", cancelledJobs: 0 });
    const b = (await h.launch({ creditBudget: 100 })).body.scanId;
    h.sb.state.completeNow(b);
    expect(errorOf(await cancel(b))).toEqual([400, "bad_request"]);
    const c = (await h.launch({ creditBudget: 100 })).body.scanId;
    h.sb.state.completeNow(c, "FAILED");
    expect(errorOf(await cancel(c))).toEqual([400, "bad_request"]);
  });

  it("cancel needs scans:launch", async () => {
    const { body } = await h.launch({ creditBudget: 100 });
    const reader = h.sb.state.createToken({ scopes: ["read"] });
    const r = await h.api("POST", `/projects/prj_demo/scans/${body.scanId}/cancel`, undefined, reader);
    expect(errorOf(r)).toEqual([403, "forbidden"]);
  });
});

describe("publish a scan", () => {
  it("refuses a scan that is not COMPLETED with 409 conflict; a completed one gets an artifact", async () => {
    const { body } = await h.launch({ creditBudget: 100 });
    const path = `/projects/prj_demo/scans/${body.scanId}/publish`;
    expect(errorOf(await h.api("POST", path, {}))).toEqual([409, "conflict"]);
    h.sb.state.completeNow(body.scanId);
    const plain = await h.api("POST", path, {});
    expect(plain.body).toEqual({
      artifactId: expect.any(String),
      publicId: expect.any(String),
      accessPassword: null,
    });
    const pw = await h.api("POST", path, { withPassword: true });
    expect(pw.body.accessPassword).toMatch(/^[a-z0-9]{20}$/);
  });
});
