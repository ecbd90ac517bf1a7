/** Two-person dismissal plans (src/commands/verbs/approval.ts), without network. */
import { describe, expect, it } from "vitest";
import { type ResolutionCommand } from "../../../src/commands/verbs/resolution.js";
import { planResolutionCommand } from "../../../src/commands/verbs/resolution.js";
import { planApproval, type ApprovalCommand } from "../../../src/commands/verbs/approval.js";
import type { FindingDetail } from "../../../src/scanner/schemas.js";
import { approvalRequest } from "../../support/finding.js";
import { DETAIL, input, parsed } from "../../support/verbs.js";
import { repoConfig } from "../../support/jobs.js";

describe("two-person dismissal plans (triage.approval)", () => {
  const approvalOn = () =>
    repoConfig({ triage: { approval: { minSeverity: "high", approvers: "maintain" } } });
  const request = approvalRequest(DETAIL, "2026-03-04T05:00:00.000Z");

  it("a writer's dismissal of a HIGH finding is held: nothing to send, the answer names the role", () => {
    const cmd = parsed("/diffward fp SC-01234567 not_reachable", "resolution") as ResolutionCommand;
    const plan = planResolutionCommand(input(cmd, { config: approvalOn() }), { role: "write" });
    expect(plan.kind).toBe("hold");
    if (plan.kind !== "hold") return;
    expect(plan.hold.request).toMatchObject({
      findingId: DETAIL.id,
      resolutionStatus: "FALSE_POSITIVE",
      reason: "not_reachable",
      requestedBy: "octo-writer",
      approvers: "maintain",
      severity: "HIGH",
    });
    expect(plan.hold.answer).toContain("**Approval requested**");
    expect(plan.hold.answer).toContain("`maintain` role or above");
    expect(plan.hold.answer).not.toContain("is now");
  });

  it("sent at once: approval off, an approver, an open state, or a severity below minSeverity", () => {
    const fp = parsed("/diffward fp SC-01234567", "resolution") as ResolutionCommand;
    expect(planResolutionCommand(input(fp), { role: "write" }).kind).toBe("set");
    expect(planResolutionCommand(input(fp, { config: approvalOn() }), { role: "maintain" }).kind).toBe("set");
    for (const verb of ["in-progress", "reopen"]) {
      const open = parsed(`/diffward ${verb} SC-01234567`, "resolution") as ResolutionCommand;
      expect(planResolutionCommand(input(open, { config: approvalOn() }), { role: "write" }).kind).toBe(
        "set",
      );
    }
    // /resolve stops the finding from blocking as surely as /fp: a writer's is held
    const resolve = parsed("/diffward resolve SC-01234567", "resolution") as ResolutionCommand;
    expect(planResolutionCommand(input(resolve, { config: approvalOn() }), { role: "write" }).kind).toBe(
      "hold",
    );
    const low = { ...DETAIL, severity: "MEDIUM" } as FindingDetail;
    expect(
      planResolutionCommand(input(fp, { config: approvalOn(), target: { detail: low } }), { role: "write" })
        .kind,
    ).toBe("set");
  });

  it("/approve by a maintainer: one resolution with the requested reason, a note naming both people", () => {
    const cmd = parsed("/diffward approve SC-01234567", "approval") as ApprovalCommand;
    const plan = planApproval(input(cmd, { sender: "octo-maint", config: approvalOn() }), {
      role: "maintain",
      request,
    });
    expect(plan.kind).toBe("approve");
    if (plan.kind !== "approve") return;
    expect(plan.resolution).toEqual({ resolutionStatus: "FALSE_POSITIVE", reason: "not_reachable" });
    expect(plan.note).toBe(
      "False positive (reason `not_reachable`): dismissal requested by GitHub user @octo-writer and approved by GitHub user @octo-maint via diffward (octo/app#9).",
    );
    expect(plan.decision).toMatchObject({
      by: "octo-writer",
      approvedBy: "octo-maint",
      reason: "not_reachable",
    });
  });

  it("/approve refusals: the requester, a role below approvers, no request; a severity raise drops it", () => {
    const cmd = parsed("/diffward approve SC-01234567", "approval") as ApprovalCommand;
    const self = planApproval(input(cmd, { config: approvalOn() }), { role: "admin", request });
    expect(self).toMatchObject({ kind: "answer", answer: expect.stringContaining("cannot approve it too") });
    const low = planApproval(input(cmd, { sender: "x", config: approvalOn() }), { role: "write", request });
    expect(low).toMatchObject({
      kind: "answer",
      answer: expect.stringContaining("needs the `maintain` role"),
    });
    const none = planApproval(input(cmd, { sender: "x" }), { role: "admin" });
    expect(none).toMatchObject({ kind: "answer", answer: expect.stringContaining("nothing to approve") });
    const raised = { ...DETAIL, severity: "CRITICAL" } as FindingDetail;
    const rose = planApproval(input(cmd, { sender: "x", target: { detail: raised } }), {
      role: "admin",
      request,
    });
    expect(rose).toMatchObject({ kind: "drop", answer: expect.stringContaining("no longer holds") });
  });

  it("/reject: the requester or an approver drops the request; another writer is refused", () => {
    const cmd = parsed("/diffward reject SC-01234567", "approval") as ApprovalCommand;
    expect(planApproval(input(cmd), { role: "write", request }).kind).toBe("drop");
    expect(planApproval(input(cmd, { sender: "m" }), { role: "maintain", request }).kind).toBe("drop");
    expect(planApproval(input(cmd, { sender: "w2" }), { role: "write", request })).toMatchObject({
      kind: "answer",
      answer: expect.stringContaining("who asked"),
    });
  });
});
