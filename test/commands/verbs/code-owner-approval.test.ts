/** Code owners as approvers (`triage.approval.codeowners`): the hold, approval and audit plans, without network. */
import { describe, expect, it } from "vitest";
import { planResolutionCommand, type ResolutionCommand } from "../../../src/commands/verbs/resolution.js";
import { auditResolution } from "../../../src/commands/verbs/resolution.js";
import { auditApproval, planApproval, type ApprovalCommand } from "../../../src/commands/verbs/approval.js";
import type { CodeOwnership } from "../../../src/domain/code-owner-approval.js";
import { approvalRequest } from "../../support/finding.js";
import { DETAIL, input, parsed } from "../../support/verbs.js";
import { repoConfig } from "../../support/jobs.js";

const codeOwnersOn = (notify = false) =>
  repoConfig({
    triage: { approval: { minSeverity: "high", approvers: "maintain", codeowners: true, notify } },
  });
const OWNED: CodeOwnership = {
  file: "src/db.ts",
  source: ".github/CODEOWNERS",
  owners: ["@octo-dana", "@octo/payments"],
  notes: ["The e-mail owner `ops@example.com` cannot be checked by diffward and is skipped"],
};
const request = {
  ...approvalRequest(DETAIL, "2026-03-04T05:00:00.000Z"),
  codeowners: true,
  codeOwners: OWNED,
};
const fp = () => parsed("/diffward fp SC-01234567 not_reachable", "resolution") as ResolutionCommand;
const approve = () => parsed("/diffward approve SC-01234567", "approval") as ApprovalCommand;

describe("a dismissal held under triage.approval.codeowners", () => {
  it("records the owners in the request and names them in inline code, without a mention", () => {
    const plan = planResolutionCommand(input(fp(), { config: codeOwnersOn() }), {
      role: "write",
      codeOwners: OWNED,
    });
    if (plan.kind !== "hold") throw new Error(plan.kind);
    expect(plan.hold.request).toMatchObject({ codeowners: true, codeOwners: OWNED });
    expect(plan.hold.answer).toContain(
      "The approver must also be a code owner of `src/db.ts` in `.github/CODEOWNERS` (`triage.approval.codeowners`): `@octo-dana`, `@octo/payments`.",
    );
    expect(plan.hold.answer).toContain("`ops@example.com` cannot be checked");
    expect(plan.hold.answer).not.toMatch(/(^|[^`])@octo-dana/);
    const audit = auditResolution(plan, input(fp(), { config: codeOwnersOn() }), "approval-requested");
    expect(audit).toMatchObject({ action: "approval-request", codeOwners: ["@octo-dana", "@octo/payments"] });
  });

  it("with notify, mentions each owner once", () => {
    const plan = planResolutionCommand(input(fp(), { config: codeOwnersOn(true) }), {
      role: "write",
      codeOwners: OWNED,
    });
    if (plan.kind !== "hold") throw new Error(plan.kind);
    expect(plan.hold.answer.match(/(?<!`)@octo-dana\b/g)).toHaveLength(1);
    expect(plan.hold.answer.match(/(?<!`)@octo\/payments\b/g)).toHaveLength(1);
  });

  it("says why the role rule applies alone when the owners cannot bind", () => {
    const fallback = { file: "src/db.ts", owners: [], notes: [], fallback: "no rule names an owner" };
    const plan = planResolutionCommand(input(fp(), { config: codeOwnersOn() }), {
      role: "write",
      codeOwners: fallback,
    });
    if (plan.kind !== "hold") throw new Error(plan.kind);
    expect(plan.hold.answer).toContain(
      "Code owners do not limit who approves this one: no rule names an owner; the role rule applies alone",
    );
    expect(auditResolution(plan, input(fp()), "approval-requested")).toMatchObject({
      codeOwners: [],
      codeOwnersNote: "no rule names an owner",
    });
  });
});

describe("/approve under triage.approval.codeowners", () => {
  const by = (sender: string) => input(approve(), { sender, config: codeOwnersOn() });

  it("a maintainer who is not a code owner is refused, the owners named and a pending invitation said", () => {
    const plan = planApproval(by("octo-maint"), {
      role: "maintain",
      request,
      codeOwners: { ownership: OWNED, approver: { owner: false, pending: ["@octo/payments"] } },
    });
    if (plan.kind !== "answer") throw new Error(plan.kind);
    expect(plan.answer).toContain(
      "needs a code owner of `src/db.ts` (`triage.approval.codeowners`): `@octo-dana`, `@octo/payments`.",
    );
    expect(plan.answer).toContain("`@octo-maint` is not a code owner of that file, so nothing was changed.");
    expect(plan.answer).toContain("Your membership of `@octo/payments` is pending");
    expect(auditApproval(plan, by("octo-maint"), "answered")).toMatchObject({
      outcome: "refused",
      codeOwners: ["@octo-dana", "@octo/payments"],
    });
  });

  it("a code owner with the role approves, and the answer and audit say through which owner", () => {
    const plan = planApproval(by("octo-dana"), {
      role: "maintain",
      request,
      codeOwners: { ownership: OWNED, approver: { owner: true, via: "@octo/payments" } },
    });
    if (plan.kind !== "approve") throw new Error(plan.kind);
    expect(plan.summary).toContain("Approved as a code owner of `src/db.ts` (`@octo/payments`).");
    expect(auditApproval(plan, by("octo-dana"), "changed")).toMatchObject({
      outcome: "applied",
      approver: "octo-dana",
      codeOwners: ["@octo-dana", "@octo/payments"],
    });
  });

  it("the role rule still comes first, and self-approval stays refused even for a code owner", () => {
    const owner = { ownership: OWNED, approver: { owner: true as const, via: "@octo-dana" } };
    const low = planApproval(by("octo-dana"), { role: "write", request, codeOwners: owner });
    expect(low.kind === "answer" && low.answer).toContain("needs the `maintain` role or above");
    const self = planApproval(by("octo-writer"), { role: "admin", request, codeOwners: owner });
    expect(self.kind === "answer" && self.answer).toContain("you cannot approve it too");
  });

  it("a request held under the rule keeps it after the config turns it off; a fallback lets the role decide", () => {
    const off = input(approve(), {
      sender: "octo-maint",
      config: repoConfig({ triage: { approval: { minSeverity: "high", approvers: "maintain" } } }),
    });
    const notOwner = { ownership: OWNED, approver: { owner: false as const, pending: [] } };
    expect(planApproval(off, { role: "maintain", request, codeOwners: notOwner }).kind).toBe("answer");
    const fallback = {
      ownership: { ...OWNED, owners: [], fallback: "GitHub lists 1 error in `CODEOWNERS`" },
    };
    const plan = planApproval(by("octo-maint"), { role: "maintain", request, codeOwners: fallback });
    if (plan.kind !== "approve") throw new Error(plan.kind);
    expect(plan.summary).toContain(
      "Code owners did not limit who approves: GitHub lists 1 error in `CODEOWNERS`; the role rule applied alone.",
    );
  });
});
