/** Credits spent per scan from the service's ledger (src/policy/credits.ts) and the month they count in. */
import { describe, expect, it } from "vitest";
import { monthWindow } from "../../src/domain/month.js";
import { spendOf } from "../../src/policy/credits.js";
import type { LedgerEvent } from "../../src/scanner/schemas.js";

describe("credits from the ledger", () => {
  const ev = (type: LedgerEvent["type"], credits: number, scanId: string | null): LedgerEvent => ({
    id: `${type}${credits}${scanId}`,
    at: "2026-11-20T00:00:00Z",
    type,
    credits,
    scanId,
    description: "",
  });
  it("spent = deductions less refunds, per scan; unsettled without a deduction", () => {
    const events = [
      ev("SCAN_DEDUCTION", -40, "s1"),
      ev("SCAN_REFUND", 15, "s1"),
      ev("SCAN_DEDUCTION", -7, "s2"),
      ev("PURCHASE", 500, null),
    ];
    expect(spendOf(events, "s1")).toEqual({ spent: 25, settled: true });
    expect(spendOf(events, "s2")).toEqual({ spent: 7, settled: true });
    expect(spendOf(events, "s3")).toEqual({ spent: 0, settled: false });
  });
  it("the month window is the UTC calendar month", () => {
    const w = monthWindow(Date.parse("2026-12-31T23:59:59Z"));
    expect(new Date(w.start).toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(new Date(w.next).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });
});
