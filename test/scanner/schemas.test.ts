import { describe, expect, it } from "vitest";
import { FindingDetail, LedgerEvent, Page, ScanListItem, Summary, Token } from "../../src/scanner/index.js";

const scan = { id: "s", status: "QUEUED", repositoryId: "r", createdAt: "2025-01-01T00:00:00Z" };

describe("schemas", () => {
  it("accept the required fields alone and keep unknown ones", () => {
    const parsed = ScanListItem.parse({ ...scan, newField: { a: 1 } });
    expect(parsed).toEqual({ ...scan, newField: { a: 1 } });
  });

  it("refuse an unknown scan status, a date without zone and a negative phase count", () => {
    expect(ScanListItem.safeParse({ ...scan, status: "RUNNING" }).success).toBe(false);
    expect(ScanListItem.safeParse({ ...scan, createdAt: "2025-01-01 00:00" }).success).toBe(false);
    expect(
      ScanListItem.safeParse({ ...scan, progress: { phasesCompleted: -1, phasesTotal: 2, percent: 0 } })
        .success,
    ).toBe(false);
  });

  it("Page wraps any item schema", () => {
    const p = Page(ScanListItem).parse({ items: [scan], page: 1, limit: 50, total: 1 });
    expect(p.items[0]!.id).toBe("s");
    expect(Page(ScanListItem).safeParse({ items: [scan], page: 0, limit: 50, total: 1 }).success).toBe(false);
  });

  it("Token needs expiresAt and spendLimitCredits present (nullable, required)", () => {
    const t = {
      id: "t",
      name: "n",
      scopes: [],
      repositoryIds: [],
      expiresAt: null,
      spendLimitCredits: null,
      project: { id: "p", slug: "p", name: "P", organization: { id: "o", slug: "o", name: "O" } },
    };
    expect(Token.safeParse(t).success).toBe(true);
    const { spendLimitCredits: _s, ...missing } = t;
    expect(Token.safeParse(missing).success).toBe(false);
  });

  it("checks ledger types, summary months and finding enums from the catalog", () => {
    const ev = {
      id: "e",
      at: "2025-01-01T00:00:00Z",
      type: "SCAN_REFUND",
      credits: 5,
      scanId: null,
      description: "d",
    };
    expect(LedgerEvent.safeParse(ev).success).toBe(true);
    expect(LedgerEvent.safeParse({ ...ev, type: "GIFT" }).success).toBe(false);
    const org = { id: "o", slug: "o", name: "O" };
    expect(
      Summary.safeParse({
        organization: org,
        months: [{ month: "2025-13", spentCredits: 0, purchasedCredits: 0 }],
      }).success,
    ).toBe(false);
    const finding = {
      id: "f",
      displayId: 1,
      title: "t",
      location: "a.ts:1",
      severity: "HIGH",
      category: "c",
      triageStatus: "CONFIRMED",
      confirmationEvidence: "POC",
      resolutionStatus: "NOT_STARTED",
      notesCount: 0,
      description: "d",
      scanId: "s",
      createdAt: "2025-01-01T00:00:00Z",
      notes: [],
    };
    expect(FindingDetail.safeParse(finding).success).toBe(true);
    expect(FindingDetail.safeParse({ ...finding, severity: "SEVERE" }).success).toBe(false);
    expect(FindingDetail.safeParse({ ...finding, resolutionStatus: "DONE" }).success).toBe(false);
    expect(FindingDetail.safeParse({ ...finding, triageStatus: "MAYBE" }).success).toBe(false);
  });
});
