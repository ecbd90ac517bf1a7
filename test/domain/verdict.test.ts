import { describe, expect, it } from "vitest";
import { DomainInputError, ReportFinding } from "../../src/domain/types.js";
import {
  atLeast,
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
      total: 5,
      open: 3,
      blocking: 2,
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
