import { describe, expect, it } from "vitest";
import {
  baselineComparisonSection,
  renderBaselineConfigError,
  renderBaselineNoCredits,
} from "../../src/render/baseline.js";
import { renderCheckRunOutput } from "../../src/render/check-run.js";

const SHA = "abcdef1234567890".padEnd(40, "0");

describe("baseline renderers", () => {
  it("the comparison section says how many findings were already open on the base and how many are new", () => {
    expect(baselineComparisonSection({ branch: "main", headSha: SHA, preexisting: 3, fresh: 1 }))
      .toMatchInlineSnapshot(`
      "### Against the baseline of \`main\`

      Of 4 open findings, 3 were already open on \`main\` at \`abcdef1\` (the same fingerprint), and **1** is new in this pull request."
    `);
    expect(baselineComparisonSection({ branch: "main", headSha: SHA, preexisting: 2, fresh: 0 })).toContain(
      "Of 2 open findings, all 2 were already open",
    );
    expect(baselineComparisonSection({ branch: "main", headSha: SHA, preexisting: 0, fresh: 2 })).toContain(
      "none was already open",
    );
  });

  it("the check run shows the comparison after the verdict, and a commit's report blocks the commit", () => {
    const base = {
      scan: { id: "scan_1", status: "COMPLETED" },
      findings: [],
      failOn: "high" as const,
      disclosure: "full" as const,
      labelPrefix: "SC",
      inlineIds: [],
    };
    const withBaseline = renderCheckRunOutput({
      ...base,
      baseline: { branch: "main", headSha: SHA, preexisting: 0, fresh: 0 },
    });
    expect(withBaseline.summary).toContain("### Against the baseline of `main`");
    expect(renderCheckRunOutput(base).summary).not.toContain("Against the baseline");
  });

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
