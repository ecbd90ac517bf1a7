import { describe, expect, it } from "vitest";
import {
  renderBudgetBelowMinimum,
  renderCapReached,
  renderUnknownAuditAreas,
  renderUnknownPreset,
} from "../../src/render/launch-refusals.js";

const presets = [
  { ref: "diff", name: "Diff @team", minCredits: 50 },
  { ref: "quick", name: "Quick", minCredits: 0 },
];

describe("launch refusals", () => {
  it("an unknown preset lists the service's presets, names neutralized, minimums shown", () => {
    const out = renderUnknownPreset("nope", presets);
    expect(out.title).toBe("Unknown preset nope");
    expect(out.summary).toContain("the preset `nope` is not one of the service's presets");
    expect(out.summary).toContain("- `diff` — Diff @\u200bteam (at least 50 credits)");
    expect(out.summary.endsWith("- `quick` — Quick")).toBe(true);
  });

  it("a budget below the preset's minimum says both numbers", () => {
    const out = renderBudgetBelowMinimum(10, presets[0]!, presets);
    expect(out.title).toBe("Credit budget below the preset's minimum (50)");
    expect(out.summary).toContain("`creditBudget: 10` is below the 50 credits the preset `diff` needs");
  });

  it("unknown audit areas: the title is cut to 200 characters; with no current key it says remove auditAreas", () => {
    const many = Array.from({ length: 40 }, (_, i) => `area-${i}`);
    expect(renderUnknownAuditAreas(many, [], "main").title.length).toBe(200);
    expect(renderUnknownAuditAreas(["x"], [], "main").summary).toContain("remove `auditAreas`");
    const out = renderUnknownAuditAreas(["x"], ["api"], "main");
    expect(out.title).toBe("Unknown audit area: x");
    expect(out.summary).toContain("current map of `main`");
    expect(out.summary).toContain("- `api`");
  });

  it("the monthly cap: spent is what is counted less what scans in flight hold", () => {
    const out = renderCapReached({ cap: 1000, counted: 900, held: 300, wanted: 200, resetsOn: "2025-07-01" });
    expect(out.title).toBe("Monthly credit cap reached (900 of 1000 credits spent or reserved)");
    expect(out.summary).toContain("spent 600 credits this month (UTC) and scans in flight hold 300 more");
    expect(out.summary).toContain("resets on 2025-07-01 (UTC)");
  });
});
