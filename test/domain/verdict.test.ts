import { describe, expect, it } from "vitest";
import { DomainInputError, ReportFinding } from "../../src/domain/finding-types.js";
import {
  atLeast,
  blockingRule,
  decideConclusion,
  isBlocking,
  isRuledOut,
  severityRank,
  sortFindings,
} from "../../src/domain/verdict.js";
import type { FailOn } from "../../src/domain/verdict.js";
import { RESOLUTION_STATUSES, SEVERITIES, TRIAGE_STATUSES } from "../../src/scanner/catalog.js";
import { finding } from "../support/finding.js";

describe("severity ordering", () => {
  it("ranks CRITICAL highest and INFO lowest", () => {
    expect(SEVERITIES.map(severityRank)).toEqual([4, 3, 2, 1, 0]);
  });
  it("compares against fail_on thresholds", () => {
    expect(atLeast("HIGH", "high")).toBe(true);
    expect(atLeast("CRITICAL", "high")).toBe(true);
    expect(atLeast("MEDIUM", "high")).toBe(false);
    expect(atLeast("INFO", "info")).toBe(true);
    expect(atLeast("CRITICAL", "none")).toBe(false);
  });
  it("throws a typed error for an unknown severity or threshold", () => {
    expect(() => severityRank("SEVERE" as never)).toThrow(DomainInputError);
    expect(() => atLeast("HIGH", "urgent" as FailOn)).toThrow(/unknown failOn "urgent"/);
  });
  it("sorts most severe first, then by displayId, findings without displayId last", () => {
    const sorted = sortFindings([
      finding({ id: "a", severity: "LOW", displayId: 1 }),
      finding({ id: "b", severity: "CRITICAL", displayId: 9 }),
      finding({ id: "c", severity: "CRITICAL", displayId: 3 }),
      finding({ id: "d", severity: "CRITICAL", displayId: undefined }),
      finding({ id: "e", severity: "MEDIUM", displayId: 2 }),
    ]);
    expect(sorted.map((f) => f.id)).toEqual(["c", "b", "d", "e", "a"]);
  });
});

describe("blocking rules", () => {
  it("blocks an open finding at or above the threshold", () => {
    expect(isBlocking(finding({ severity: "HIGH" }), "high")).toBe(true);
    expect(isBlocking(finding({ severity: "HIGH", resolutionStatus: "IN_PROGRESS" }), "high")).toBe(true);
    expect(isBlocking(finding({ severity: "MEDIUM" }), "high")).toBe(false);
    expect(isBlocking(finding({ severity: "CRITICAL" }), "none")).toBe(false);
  });

  it("never blocks a finding ruled out by triage or resolution", () => {
    for (const triage of TRIAGE_STATUSES) {
      for (const resolution of RESOLUTION_STATUSES) {
        const f = finding({ severity: "CRITICAL", triageStatus: triage, resolutionStatus: resolution });
        const expectedOpen =
          triage !== "FALSE_POSITIVE" &&
          triage !== "DUPLICATE" &&
          (resolution === "NOT_STARTED" || resolution === "IN_PROGRESS");
        expect(isRuledOut(f), `${triage}/${resolution}`).toBe(!expectedOpen);
        expect(isBlocking(f, "info"), `${triage}/${resolution}`).toBe(expectedOpen);
      }
    }
  });

  it("treats an unknown resolution state as decided", () => {
    expect(isRuledOut(finding({ resolutionStatus: "ARCHIVED" }))).toBe(true);
  });
});

describe("decideConclusion", () => {
  const findings = [
    finding({ id: "1", severity: "CRITICAL" }),
    finding({ id: "2", severity: "HIGH" }),
    finding({ id: "3", severity: "MEDIUM" }),
    finding({ id: "4", severity: "HIGH", triageStatus: "FALSE_POSITIVE" }),
    finding({ id: "5", severity: "CRITICAL", resolutionStatus: "RESOLVED" }),
  ];

  it("fails with counts when a finding blocks", () => {
    expect(decideConclusion(findings, "high")).toEqual({
      conclusion: "failure",
      evaluate: false,
      total: 5,
      open: 3,
      blocking: 2,
      preexistingAtThreshold: 0,
      monitored: 0,
      commented: 0,
      hidden: 0,
      suppressed: 0,
      held: 0,
      ruledOut: 2,
      openBySeverity: { CRITICAL: 1, HIGH: 1, MEDIUM: 1, LOW: 0, INFO: 0 },
      blockingBySeverity: { CRITICAL: 1, HIGH: 1, MEDIUM: 0, LOW: 0, INFO: 0 },
    });
  });

  it("succeeds when nothing reaches the threshold, or with fail_on none, or with no findings", () => {
    expect(decideConclusion(findings.slice(2), "high").conclusion).toBe("success");
    expect(decideConclusion(findings, "none")).toMatchObject({ conclusion: "success", blocking: 0, open: 3 });
    expect(decideConclusion([], "info")).toMatchObject({ conclusion: "success", total: 0 });
  });

  it("refuses a finding with an unknown severity instead of dropping it", () => {
    const bad = { ...finding(), severity: "URGENT" } as unknown as ReportFinding;
    expect(() => decideConclusion([bad], "high")).toThrow(DomainInputError);
    expect(ReportFinding.safeParse(bad).success).toBe(false);
  });
});

describe("the blocking rule with failOn {only: new}", () => {
  // a: high, already open on the base branch; b: high, new; c: low, new
  const a = finding({ id: "a", severity: "HIGH" });
  const b = finding({ id: "b", severity: "HIGH" });
  const c = finding({ id: "c", severity: "LOW" });
  const onBase = { preexistingIds: ["a"] };

  it("blockingRule reads both forms: a severity alone counts every finding, the mapping keeps its only", () => {
    expect(blockingRule("medium")).toEqual({ severity: "medium", only: "all" });
    expect(blockingRule({ severity: "high", only: "new" }, onBase)).toEqual({
      severity: "high",
      only: "new",
      preexisting: new Set(["a"]),
    });
    expect(blockingRule({ severity: "high", only: "new" })).toEqual({ severity: "high", only: "new" });
  });

  it("only findings not already open on the baseline decide; pre-existing ones at the threshold are counted apart", () => {
    const rule = blockingRule({ severity: "high", only: "new" }, onBase);
    expect(isBlocking(a, rule)).toBe(false);
    expect(isBlocking(b, rule)).toBe(true);
    expect(decideConclusion([a, b, c], rule)).toMatchObject({
      conclusion: "failure",
      blocking: 1,
      preexistingAtThreshold: 1,
      blockingBySeverity: { HIGH: 1 },
    });
  });

  it("a new finding below the threshold: success although the pre-existing one is high", () => {
    const rule = blockingRule({ severity: "high", only: "new" }, onBase);
    expect(decideConclusion([a, c], rule)).toMatchObject({
      conclusion: "success",
      blocking: 0,
      preexistingAtThreshold: 1,
      open: 2,
    });
  });

  it("only: all, or no completed baseline: every finding counts", () => {
    expect(decideConclusion([a, c], blockingRule({ severity: "high", only: "all" }, onBase)).conclusion).toBe(
      "failure",
    );
    expect(decideConclusion([a, c], blockingRule({ severity: "high", only: "new" })).conclusion).toBe(
      "failure",
    );
    expect(decideConclusion([a, c], "high")).toMatchObject({
      conclusion: "failure",
      preexistingAtThreshold: 0,
    });
  });

  it("a pre-existing finding ruled out is neither blocking nor counted at the threshold", () => {
    const rule = blockingRule({ severity: "high", only: "new" }, onBase);
    const ruledOut = { ...a, resolutionStatus: "WONT_FIX" };
    expect(decideConclusion([ruledOut], rule)).toMatchObject({ blocking: 0, preexistingAtThreshold: 0 });
  });
});
