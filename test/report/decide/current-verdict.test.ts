/**
 * The pull request's current verdict re-rendered from its stored report (src/report/decide/current-verdict.ts): triage
 * recomputes and the `status` command decide with the comparison with the base branch's baseline the
 * report made, kept in the report state.
 */
import { describe, expect, it } from "vitest";
import type { ReportFinding } from "../../../src/domain/finding-types.js";
import { reportedFinding } from "../../../src/report/decide/report-state.js";
import type { ReportState } from "../../../src/stores/stored-report.js";
import type { RepoConfig } from "../../../src/config/repo-config.js";
import { renderPullVerdict, storedVerdict } from "../../../src/report/decide/current-verdict.js";
import { finding } from "../../support/finding.js";

const SHA = "b".repeat(40);
// A: high, already open on main at the baseline; B: low, new in the pull request
const a = finding({ id: "fnd_a", title: "SQL injection", location: "src/db.ts:4", severity: "HIGH" });
const b = finding({ id: "fnd_b", title: "Verbose error", location: "src/web.ts:9", severity: "LOW" });

function stored(failOn: RepoConfig["failOn"], extras: ReportState["extras"]): ReportState {
  return {
    scanId: "scan_1",
    projectId: "prj_1",
    checkRunId: 1,
    headSha: "a".repeat(40),
    installationId: 1,
    accountLogin: "acme",
    config: { failOn, disclosure: "full" } as RepoConfig,
    presetRef: "diff",
    reportedAt: 0,
    findings: [a, b].map((f) => reportedFinding(f, "SC", undefined)),
    ...(extras ? { extras } : {}),
  };
}

const comparison = {
  warnings: [],
  baseline: { branch: "main", headSha: SHA, preexisting: 1, fresh: 1, preexistingIds: ["fnd_a"] },
};

describe("a recompute keeps the report's baseline comparison", () => {
  it("only: new: the pre-existing high finding does not block; raising the new one to high does", () => {
    const report = stored({ severity: "high", only: "new" }, comparison);
    const now = renderPullVerdict(report, [a, b], { labelPrefix: "SC" });
    expect(now.conclusion).toBe("success");
    expect(now.verdict).toMatchObject({ blocking: 0, preexistingAtThreshold: 1 });
    expect(now.annotations.map((x) => x.annotation_level)).toEqual(["warning", "notice"]);
    expect(now.output.summary).toContain("### Against the baseline of `main`");
    expect(storedVerdict(report).conclusion).toBe("success");

    const raised: ReportFinding = { ...b, severity: "HIGH" };
    const after = renderPullVerdict(report, [a, raised], { labelPrefix: "SC" });
    expect(after.conclusion).toBe("failure");
    expect(after.annotations.find((x) => x.path === "src/web.ts")!.annotation_level).toBe("failure");
    expect(after.annotations.find((x) => x.path === "src/db.ts")!.annotation_level).toBe("warning");
  });

  it("only: all with the same comparison, or only: new without a baseline: the pre-existing finding blocks", () => {
    expect(renderPullVerdict(stored("high", comparison), [a, b], { labelPrefix: "SC" }).conclusion).toBe(
      "failure",
    );
    const missing = stored(
      { severity: "high", only: "new" },
      {
        warnings: [],
        baseline: { branch: "main", missing: true },
      },
    );
    const now = renderPullVerdict(missing, [a, b], { labelPrefix: "SC" });
    expect(now.conclusion).toBe("failure");
    expect(now.output.summary).toContain("No baseline of `main` yet: every finding counts.");
    expect(storedVerdict(missing).conclusion).toBe("failure");
  });
});
