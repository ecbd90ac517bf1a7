import { describe, expect, it } from "vitest";
import { identityOf, legacyFingerprint } from "../../src/domain/identity.js";
import type { ReportFinding } from "../../src/domain/finding-types.js";
import {
  carryOverNote,
  matchedToOf,
  planCarryOver,
  planSeverityCarryOver,
  severityCarryNote,
  withDecision,
} from "../../src/triage/decisions.js";
import type { Decision, SeverityDecision } from "../../src/domain/decision.js";

const base: ReportFinding = {
  id: "fnd_aaaaaaaa11111111",
  title: "SQL injection in `getUser()`",
  location: "src/db.js:12",
  severity: "HIGH",
  category: "injection",
  triageStatus: "NEW",
  resolutionStatus: "NOT_STARTED",
};

function decisionOn(f: ReportFinding, extra: Partial<Decision> = {}): Decision {
  return {
    findingId: f.id,
    ...identityOf(f),
    severity: f.severity,
    resolutionStatus: "FALSE_POSITIVE",
    reason: "not_reachable",
    by: "octo",
    at: "2026-01-02T03:04:05.000Z",
    ...extra,
  };
}

describe("planCarryOver", () => {
  // the next push's scan: a new id, the line moved, and the service recognises the finding
  const moved: ReportFinding = {
    ...base,
    id: "fnd_bbbbbbbb22222222",
    location: "src/db.js:40",
    triageStatus: "RECURRING",
  };

  it("carries a closing decision to the same id, to a new id with the same fingerprint, and to a recognised moved finding", () => {
    expect(planCarryOver([decisionOn(base)], [base]).apply.map((c) => c.by)).toEqual(["id"]);
    const same = { ...base, id: "fnd_cccccccc33333333" };
    expect(planCarryOver([decisionOn(base)], [same]).apply.map((c) => c.by)).toEqual(["fingerprint"]);
    const plan = planCarryOver([decisionOn(base)], [moved]);
    expect(plan.apply).toHaveLength(1);
    expect(plan.apply[0]!.by).toBe("recurring");
    expect(plan.apply[0]!.finding.id).toBe(moved.id);
  });

  // one false positive must not close a finding nobody looked at
  it("does not carry to a finding of the same shape that the identity keeps apart", () => {
    const aws8 = {
      ...base,
      title: "Hard-coded AWS key on line 8",
      category: "secrets",
      location: "cfg.js:8",
    };
    const aws240 = {
      ...aws8,
      id: "fnd_dddddddd44444444",
      title: "Hard-coded 'AWS' key on line 240",
      location: "cfg.js:240",
    };
    expect(planCarryOver([decisionOn(aws8)], [aws240]).apply).toEqual([]);
    expect(planCarryOver([decisionOn(aws8)], [{ ...aws240, triageStatus: "RECURRING" }]).apply).toEqual([]);
    // same title at another line, but the service calls it NEW: not carried either
    expect(
      planCarryOver([decisionOn(aws8)], [{ ...aws8, id: "fnd_e", location: "cfg.js:30" }]).apply,
    ).toEqual([]);
  });

  it("does not carry when the severity rose, when the finding is already decided, or for open states", () => {
    const rose = planCarryOver([decisionOn(base)], [{ ...moved, severity: "CRITICAL" }]);
    expect(rose.apply).toEqual([]);
    expect(rose.severityRose).toHaveLength(1);
    expect(planCarryOver([decisionOn(base)], [{ ...moved, severity: "LOW" }]).apply).toHaveLength(1);
    expect(planCarryOver([decisionOn(base)], [{ ...moved, resolutionStatus: "RESOLVED" }]).apply).toEqual([]);
    expect(planCarryOver([decisionOn(base, { resolutionStatus: "NOT_STARTED" })], [moved]).apply).toEqual([]);
    expect(planCarryOver([decisionOn(base, { resolutionStatus: "IN_PROGRESS" })], [moved]).apply).toEqual([]);
    const other = { ...moved, title: "Open redirect", category: "redirect" };
    expect(planCarryOver([decisionOn(base)], [other]).apply).toEqual([]);
  });

  it("keeps one decision per identity, the newest last", () => {
    const a = decisionOn(base);
    const b = decisionOn({ ...base, id: "fnd_cccccccc33333333" }, { resolutionStatus: "RESOLVED" });
    const all = withDecision([a], b);
    expect(all).toEqual([b]);
    const unrelated = decisionOn({ ...base, id: "fnd_x", title: "Other", category: "x" });
    expect(withDecision([unrelated], a)).toEqual([unrelated, a]);
  });

  it("the carried note names the decision, who made it and the original finding", () => {
    const [c] = planCarryOver([decisionOn(base, { note: "guarded by the proxy" })], [moved]).apply;
    const note = carryOverNote(c!, "SC");
    expect(note).toContain("**False positive**");
    expect(note).toContain("@octo");
    expect(note).toContain(base.id);
    expect(note).toContain("SC-11111111");
    expect(note).toContain("guarded by the proxy");
    expect(note).toContain("matched by fingerprint to `SC-11111111`");
  });

  it("a decision stored before the shape existed still carries, but only to a finding the service recognises", () => {
    const { shape: _shape, ...old } = decisionOn(base);
    void _shape;
    const legacy = { ...old, fingerprint: legacyFingerprint(base) };
    const next = { ...base, id: "fnd_ffffffff66666666" };
    expect(planCarryOver([legacy], [next]).apply).toEqual([]);
    const recognised = planCarryOver([legacy], [{ ...next, triageStatus: "RECURRING" }]).apply;
    expect(recognised.map((c) => [c.finding.id, c.by])).toEqual([[next.id, "fingerprint"]]);
  });

  it("records how each carried decision matched, so the report can say it", () => {
    const doc = {
      decisions: [
        decisionOn(moved, { carriedFrom: base.id, carriedBy: "recurring" as const }),
        decisionOn({ ...base, id: "fnd_same" }, { carriedFrom: "fnd_x", carriedBy: "id" as const }),
        decisionOn({ ...base, id: "fnd_direct", title: "Other" }),
      ],
      severities: [],
    };
    expect([...matchedToOf(doc)]).toEqual([[moved.id, { findingId: base.id, by: "recurring" }]]);
  });
});

describe("planSeverityCarryOver", () => {
  const moved: ReportFinding = { ...base, id: "fnd_bbbbbbbb22222222", location: "src/db.js:12" };
  function override(extra: Partial<SeverityDecision> = {}): SeverityDecision {
    return {
      findingId: base.id,
      ...identityOf(base),
      from: "HIGH",
      severity: "LOW",
      by: "octo",
      at: "2026-01-02T03:04:05.000Z",
      ...extra,
    };
  }

  it("carries a lowering override to the same finding of a new scan, by id or fingerprint", () => {
    const plan = planSeverityCarryOver([override()], [moved]);
    expect(plan.apply.map((c) => [c.finding.id, c.by, c.override.severity])).toEqual([
      [moved.id, "fingerprint", "LOW"],
    ]);
    expect(planSeverityCarryOver([override()], [base]).apply[0]!.by).toBe("id");
    // the service now says MEDIUM (below what the team looked at): the override still applies
    expect(planSeverityCarryOver([override()], [{ ...moved, severity: "MEDIUM" }]).apply).toHaveLength(1);
  });

  it("does not lower a finding whose severity rose above what the override was made against", () => {
    const plan = planSeverityCarryOver([override()], [{ ...moved, severity: "CRITICAL" }]);
    expect(plan.apply).toEqual([]);
    expect(plan.severityRose).toHaveLength(1);
  });

  it("always carries a raise; skips a finding already at the override; ignores other findings", () => {
    const raise = override({ from: "MEDIUM", severity: "CRITICAL" });
    expect(planSeverityCarryOver([raise], [{ ...moved, severity: "HIGH" }]).apply).toHaveLength(1);
    expect(planSeverityCarryOver([override()], [{ ...moved, severity: "LOW" }]).apply).toEqual([]);
    const other = { ...moved, title: "Open redirect", category: "redirect" };
    expect(planSeverityCarryOver([override()], [other]).apply).toEqual([]);
  });

  it("the note names the override, who set it and the original finding", () => {
    const [c] = planSeverityCarryOver([override()], [moved]).apply;
    const note = severityCarryNote(c!, "SC");
    expect(note).toContain("**Low**");
    expect(note).toContain("reported as High");
    expect(note).toContain("@octo");
    expect(note).toContain(base.id);
  });
});
