/** The answers to `/diffward credits` and `/diffward areas` (src/render/spend-answers.ts). */
import { describe, expect, it } from "vitest";

describe("/diffward credits and /diffward areas answers", () => {
  it("credits: balance, available, reserved, this repository's month against its cap, spend by month", async () => {
    const { renderCreditsAnswer } = await import("../../src/render/spend-answers.js");
    const text = renderCreditsAnswer({
      balance: {
        organization: { id: "o", slug: "acme", name: "Acme" },
        balanceCredits: 900,
        availableCredits: 850,
        reservedCredits: 50,
      },
      summary: {
        organization: { id: "o", slug: "acme", name: "Acme" },
        months: [{ month: "2026-11", spentCredits: 120, purchasedCredits: 0 }],
      },
      repositoryMonthSpend: 42,
      config: { repositoryId: "repo_1", creditCap: { monthly: 100 }, lowBalanceThreshold: 1000 },
      now: Date.parse("2026-11-22T00:00:00Z"),
    });
    expect(text).toContain("**850 available**");
    expect(text).toContain("50 reserved");
    expect(text).toContain(
      "**42 credits** this month (UTC) of its `creditCap.monthly` of 100; the cap resets on 2026-12-01",
    );
    expect(text).toContain("| 2026-11 | 120 | 0 |");
    expect(text).toContain("lowBalanceThreshold");
  });
  it("areas: sizes when the list carries them, stale keys marked, configured keys ticked", async () => {
    const { renderAreasAnswer } = await import("../../src/render/spend-answers.js");
    const text = renderAreasAnswer(
      {
        raw: {},
        branch: "main",
        hasMap: true,
        areas: [
          {
            key: "auth",
            source: "discovered",
            name: "Auth <b>",
            inCurrentMap: true,
            files: 12,
            lines: 900,
            raw: { key: "auth", source: "discovered" },
          },
          {
            key: "old",
            source: "discovered",
            inCurrentMap: false,
            files: null,
            lines: null,
            raw: { key: "x", source: "discovered" },
          },
        ],
      },
      ["auth"],
    );
    expect(text).toContain("sizes from `main`");
    expect(text).toMatch(/`auth` ✅ \| Auth &lt;b&gt; \| discovered \| yes \| 12 \| 900/);
    expect(text).toContain("⚠️ no longer in the map");
  });
});
