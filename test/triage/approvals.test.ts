import { describe, expect, it } from "vitest";
import { fingerprint, identityOf, shapeKey } from "../../src/domain/identity.js";
import type { ReportFinding } from "../../src/domain/types.js";
import { RESOLUTION_STATUSES } from "../../src/scanner/catalog.js";
import { isBlocking } from "../../src/domain/verdict.js";
import {
  checkApproval,
  isDismissal,
  needsApproval,
  planApprovalsForScan,
  requestFor,
  type ApprovalRequest,
} from "../../src/triage/approvals.js";

const approval = { minSeverity: "high", approvers: "maintain" } as const;
const f: ReportFinding = {
  id: "fnd_aaaaaaaa11111111",
  title: "Session secret hard-coded",
  location: "src/server.js:8",
  severity: "HIGH",
  category: "secrets",
  triageStatus: "NEW",
  resolutionStatus: "NOT_STARTED",
};
const request: ApprovalRequest = {
  findingId: f.id,
  ...identityOf(f),
  severity: "HIGH",
  resolutionStatus: "FALSE_POSITIVE",
  reason: "not_reachable",
  requestedBy: "octo-writer",
  requestedAt: "2026-03-01T00:00:00.000Z",
  approvers: "maintain",
};

describe("needsApproval", () => {
  it("holds dismissals at or above minSeverity by users below approvers; off without triage.approval", () => {
    const ask = (
      status: string,
      severity: string,
      role: string,
      cfg: typeof approval | undefined = approval,
    ) => needsApproval(cfg, { status: status as never, severity: severity as never, role });
    for (const status of ["FALSE_POSITIVE", "WONT_FIX", "DUPLICATE", "MITIGATED", "RESOLVED"])
      expect(ask(status, "HIGH", "write")).toBe(true);
    expect(ask("FALSE_POSITIVE", "CRITICAL", "triage")).toBe(true);
    expect(ask("FALSE_POSITIVE", "MEDIUM", "write")).toBe(false);
    expect(ask("FALSE_POSITIVE", "HIGH", "maintain")).toBe(false);
    expect(ask("FALSE_POSITIVE", "HIGH", "admin")).toBe(false);
    for (const status of ["IN_PROGRESS", "NOT_STARTED"]) expect(ask(status, "CRITICAL", "write")).toBe(false);
    expect(needsApproval(undefined, { status: "FALSE_POSITIVE", severity: "CRITICAL", role: "write" })).toBe(
      false,
    );
  });

  it("every resolution that stops a finding from blocking is a dismissal that needs approval, and no other", () => {
    for (const status of RESOLUTION_STATUSES) {
      const stopsBlocking = !isBlocking(
        { severity: "HIGH", triageStatus: "NEW", resolutionStatus: status },
        "high",
      );
      expect(isDismissal(status), status).toBe(stopsBlocking);
      expect(needsApproval(approval, { status, severity: "HIGH", role: "write" }), status).toBe(
        stopsBlocking,
      );
    }
  });
});

describe("checkApproval", () => {
  it("a different user at or above approvers approves; the requester never does", () => {
    expect(checkApproval(request, { login: "octo-maint", role: "maintain", severity: "HIGH" })).toEqual({
      ok: true,
    });
    expect(checkApproval(request, { login: "Octo-Writer", role: "admin", severity: "HIGH" })).toEqual({
      ok: false,
      why: "self",
    });
    expect(checkApproval(request, { login: "other", role: "write", severity: "HIGH" })).toMatchObject({
      why: "below",
      approvers: "maintain",
    });
    // a stricter role configured since the request applies
    expect(
      checkApproval(request, { login: "octo-maint", role: "maintain", severity: "HIGH", approvers: "admin" }),
    ).toMatchObject({ why: "below", approvers: "admin" });
  });

  it("a severity raise above the request's invalidates it; a lowering does not", () => {
    expect(checkApproval(request, { login: "m", role: "admin", severity: "CRITICAL" })).toEqual({
      ok: false,
      why: "severity-rose",
      from: "HIGH",
      to: "CRITICAL",
    });
    expect(checkApproval(request, { login: "m", role: "admin", severity: "MEDIUM" })).toEqual({ ok: true });
  });
});

describe("planApprovalsForScan", () => {
  // the next push's scan: a new id, the line moved, and the service recognises the finding
  const moved = { ...f, id: "fnd_bbbbbbbb22222222", location: "src/server.js:30", triageStatus: "RECURRING" };

  it("a request follows its finding to the new scan's id (same fingerprint, or recognised shape), and survives the push", () => {
    const plan = planApprovalsForScan([request], [moved]);
    expect(plan.keep).toEqual([
      { ...request, findingId: moved.id, fingerprint: fingerprint(moved), shape: shapeKey(moved) },
    ]);
    const sameLine = { ...f, id: "fnd_cccccccc33333333" };
    expect(planApprovalsForScan([request], [sameLine]).keep[0]!.findingId).toBe(sameLine.id);
    // moved and NEW to the service: another finding, the request stays where it was
    expect(planApprovalsForScan([request], [{ ...moved, triageStatus: "NEW" }]).keep).toEqual([request]);
    expect(requestFor(plan.keep, { id: moved.id, fingerprint: "x" })).toBeDefined();
  });

  it("is invalidated by a severity raise, dropped when the finding was decided, kept when not reported", () => {
    expect(planApprovalsForScan([request], [{ ...moved, severity: "CRITICAL" }]).invalidated).toHaveLength(1);
    expect(planApprovalsForScan([request], [{ ...moved, severity: "CRITICAL" }]).keep).toEqual([]);
    expect(
      planApprovalsForScan([request], [{ ...moved, resolutionStatus: "RESOLVED" }]).settled,
    ).toHaveLength(1);
    const other = { ...moved, title: "Open redirect", category: "redirect" };
    expect(planApprovalsForScan([request], [other]).keep).toEqual([request]);
  });
});
