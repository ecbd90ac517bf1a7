import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boot, T0, type Harness } from "../support/sandbox-api.js";

let h: Harness;
beforeEach(async () => {
  h = await boot({ scanCost: 70 });
});
afterEach(async () => {
  await h.sb.close();
});

const balance = async () => (await h.api("GET", "/projects/prj_demo/billing/balance")).body;

describe("credits ledger (spec 'Billing', 'What the service does')", () => {
  it("reserve at launch, settle actual spend on completion, release the rest; balance = sum of events", async () => {
    const a = (await h.launch({ creditBudget: 100 })).body.scanId;
    expect(await balance()).toEqual({
      organization: { id: "org_acme", slug: "acme", name: "Acme" },
      balanceCredits: 10_000,
      availableCredits: 9_900,
      reservedCredits: 100,
    });
    h.sb.state.completeNow(a);
    expect(await balance()).toMatchObject({
      balanceCredits: 9_930,
      availableCredits: 9_930,
      reservedCredits: 0,
    });
    const b = (await h.launch({ creditBudget: 50 })).body.scanId; // needs 70: runs short, spends 50
    h.sb.state.completeNow(b);
    expect((await balance()).balanceCredits).toBe(9_880);
    h.sb.state.refundScan(b, 20);
    expect((await balance()).balanceCredits).toBe(9_900);
    const sum = h.sb.state.ledger
      .filter((e) => e.organizationId === "org_acme")
      .reduce((s, e) => s + e.credits, 0);
    expect(sum).toBe(9_900);
    // the other organization is untouched
    const other = await h.api("GET", "/projects/prj_other/billing/balance", undefined, "sandbox-token-2");
    expect(other.body.balanceCredits).toBe(10_000);
  });

  it("usage lists project events newest first, excludes org-wide top-ups, honours limit and window", async () => {
    const a = (await h.launch({ creditBudget: 100 })).body.scanId;
    h.tick(1000);
    h.sb.state.completeNow(a);
    h.tick(1000);
    h.sb.state.refundScan(a, 5);
    h.sb.state.setBalance(20_000); // org-wide ADMIN_ADJUSTMENT: excluded
    const u = await h.api("GET", "/projects/prj_demo/billing/usage");
    expect(u.body.events.map((e: { type: string; credits: number }) => [e.type, e.credits])).toEqual([
      ["SCAN_REFUND", 5],
      ["SCAN_DEDUCTION", -70],
    ]);
    expect(u.body.to).toBe(new Date(h.clock.t).toISOString());
    expect(Date.parse(u.body.to) - Date.parse(u.body.from)).toBe(30 * 24 * 3600 * 1000);
    const one = await h.api("GET", "/projects/prj_demo/billing/usage?limit=1");
    expect(one.body.events).toHaveLength(1);
    const none = await h.api("GET", `/projects/prj_demo/billing/usage?to=${new Date(T0 - 1).toISOString()}`);
    expect(none.body.events).toEqual([]);
    expect((await h.api("GET", "/projects/prj_demo/billing/usage?limit=1001")).status).toBe(400);
    expect((await h.api("GET", "/projects/prj_demo/billing/usage?from=yesterday")).status).toBe(400);
  });

  it("summary: per UTC month, spent = deductions less refunds, purchased = purchases less clawbacks", async () => {
    const a = (await h.launch({ creditBudget: 100 })).body.scanId;
    h.sb.state.completeNow(a);
    h.sb.state.refundScan(a, 10);
    h.sb.state.purchase(500);
    h.sb.state.paymentRefund(100);
    h.sb.state.purchase(1_000, "prj_demo", false); // org-wide, not attributed
    const s = await h.api("GET", "/projects/prj_demo/billing/summary?months=2");
    expect(s.body.months).toEqual([
      { month: "2026-06", spentCredits: 60, purchasedCredits: 400 },
      { month: "2026-05", spentCredits: 0, purchasedCredits: 0 },
    ]);
    const d = await h.api("GET", "/projects/prj_demo/billing/summary");
    expect(d.body.months).toHaveLength(12);
  });

  it("settlement can lag: reserved until settlementDelayMs has passed", async () => {
    await h.sb.close();
    h = await boot({ scanCost: 70, settlementDelayMs: 5_000 });
    const a = (await h.launch({ creditBudget: 100 })).body.scanId;
    h.tick(10_000);
    expect((await h.api("GET", `/projects/prj_demo/scans/${a}`)).body.scan.status).toBe("COMPLETED");
    expect(await balance()).toMatchObject({ balanceCredits: 10_000, reservedCredits: 100 });
    h.tick(5_000);
    expect(await balance()).toMatchObject({ balanceCredits: 9_930, reservedCredits: 0 });
  });
});
