import { describe, expect, it } from "vitest";
import { renderBaselineConfigError, renderBaselineNoCredits } from "../../src/render/baseline-refusals.js";

describe("a baseline's refusals", () => {
  it("a configuration error quotes the problem; no credits says diffward does not retry", () => {
    const err = renderBaselineConfigError(['baseline.preset: "diff-standard" is a diff preset']);
    expect(err.title).toBe("Invalid baseline configuration");
    expect(err.summary).toContain('baseline.preset: "diff-standard" is a diff preset');
    expect(err.summary).toContain("No scan was launched and no credits were reserved");
    const broke = renderBaselineNoCredits({ requiredCredits: 80, availableCredits: 3 });
    expect(broke.summary).toContain("budget asked: **80** credits");
    expect(broke.summary).toContain("diffward does not retry this commit");
  });
});
