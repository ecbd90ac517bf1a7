import { describe, expect, it } from "vitest";
import { baselineComparisonSection } from "../../src/render/baseline-comparison.js";
import { renderCheckRunOutput } from "../../src/render/check-run.js";
import { toAnnotations } from "../../src/render/annotations.js";
import { blockingRule } from "../../src/domain/verdict.js";
import { finding } from "../support/finding.js";

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

  describe("failOn {only: new}", () => {
    // A: high, already open on main; B: low, new in the pull request
    const a = finding({ id: "fnd_a", title: "SQL injection", location: "src/db.ts:4", severity: "HIGH" });
    const b = finding({ id: "fnd_b", title: "Verbose error", location: "src/web.ts:9", severity: "LOW" });
    const comparison = { branch: "main", headSha: SHA, preexisting: 1, fresh: 1, preexistingIds: ["fnd_a"] };
    const model = {
      scan: { id: "scan_1", status: "COMPLETED" },
      findings: [a, b],
      failOn: { severity: "high", only: "new" } as const,
      disclosure: "full" as const,
      labelPrefix: "SC",
      inlineIds: [],
      baseline: comparison,
    };

    it("the pre-existing high finding does not block: the title, verdict, table and comparison say why", () => {
      const out = renderCheckRunOutput(model);
      expect(out.title).toBe("No new blocking findings (1 pre-existing at or above high)");
      expect(out.summary).toContain("## ✅ No new finding at or above `high`");
      expect(out.summary).toContain(
        "1 finding at or above `high` already open on the base branch does not block (`failOn: {severity: high, only: new}`).",
      );
      expect(out.summary).toContain("Only the new ones can block (`failOn: {only: new}`)");
      expect(out.summary).toMatch(/SC-fnd_a[^|]* _pre-existing_ \|/);
      expect(out.summary).not.toContain("⛔");
    });

    it("a new finding at the threshold blocks alone, marked; only: all blocks the pre-existing one too", () => {
      const c = { ...b, id: "fnd_c", severity: "CRITICAL" as const };
      const out = renderCheckRunOutput({ ...model, findings: [a, c] });
      expect(out.title).toBe("1 blocking finding (1 critical)");
      expect(out.summary).toContain("## ❌ 1 new finding at or above `high` blocks this pull request");
      expect(out.summary).toMatch(/SC-fnd_c[^|]* ⛔ \|/);
      expect(out.summary).not.toMatch(/SC-fnd_a[^|]*⛔/);
      const all = renderCheckRunOutput({ ...model, failOn: "high" });
      expect(all.title).toBe("1 blocking finding (1 high)");
      expect(all.summary).toMatch(/SC-fnd_a[^|]* ⛔ _pre-existing_ \|/);
    });

    it("annotations: the pre-existing finding is not a failure and says so", () => {
      const rule = blockingRule(model.failOn, comparison);
      const [first, second] = toAnnotations([a, b], "full", { failOn: rule, labelPrefix: "SC" });
      expect(first).toMatchObject({ path: "src/db.ts", annotation_level: "warning" });
      expect(first!.message).toContain(
        "Already open on the base branch (its last baseline scan): it does not block",
      );
      expect(second).toMatchObject({ path: "src/web.ts", annotation_level: "notice" });
      expect(second!.message).not.toContain("Already open");
      const [blocking] = toAnnotations([a], "full", { failOn: blockingRule("high", comparison) });
      expect(blocking).toMatchObject({ annotation_level: "failure" });
    });

    it("no completed baseline of the base branch: every finding counts, and the summary says so", () => {
      const out = renderCheckRunOutput({ ...model, baseline: { branch: "release", missing: true } });
      expect(out.title).toBe("1 blocking finding (1 high)");
      expect(out.summary).toContain("### Against the baseline of `release`");
      expect(out.summary).toContain("No baseline of `release` yet: every finding counts.");
    });

    it("the counts follow the findings as they are now when the ids are kept (a recompute after /fp)", () => {
      const out = renderCheckRunOutput({
        ...model,
        findings: [{ ...a, resolutionStatus: "FALSE_POSITIVE" }, b],
      });
      expect(out.summary).toContain("Of 1 open finding, none was already open on `main`");
    });
  });
});
