/** The resolution verbs' plans (src/commands/verbs/resolution.ts), without network. */
import { identityOf } from "../../../src/domain/identity.js";
import { describe, expect, it } from "vitest";
import { planResolution, type ResolutionCommand } from "../../../src/commands/verbs/resolution.js";
import { planResolutionCommand } from "../../../src/commands/verbs/resolution.js";
import { planApproval, type ApprovalCommand } from "../../../src/commands/verbs/approval.js";
import { RepoConfig } from "../../../src/config/repo-config.js";
import { DETAIL, input, parsed } from "../../support/verbs.js";
import { repoConfig } from "../../support/jobs.js";

describe("acceptances with an expiry", () => {
  const wontfix = (body: string) =>
    parsed(`/diffward wontfix SC-01234567 ${body}`, "resolution") as ResolutionCommand;

  it("the expiry rides in the decision, the note's parseable line and the answer", () => {
    const plan = planResolutionCommand(input(wontfix("risk_accepted until 2026-04-01")), {});
    expect(plan.kind).toBe("set");
    if (plan.kind !== "set") return;
    expect(plan.set.resolution).toEqual({ resolutionStatus: "WONT_FIX", reason: "risk_accepted" });
    expect(plan.set.note).toContain("Accepted until 2026-04-01T23:59:59.999Z by @octo-writer (diffward).");
    expect(plan.set.decision.expiresAt).toBe("2026-04-01T23:59:59.999Z");
    expect(plan.set.summary).toContain("Accepted until **2026-04-01** by `@octo-writer`");
    const noted = planResolutionCommand(input(wontfix("vendor patch pending for 10d")), {});
    if (noted.kind !== "set") throw new Error(noted.kind);
    expect(noted.set.resolution.note?.content).toContain(
      "vendor patch pending\n\nAccepted until 2026-03-14T05:06:07.000Z",
    );
  });

  it("a past date and one beyond maxAcceptanceDays are refused with the rule; nothing is planned", () => {
    const past = planResolutionCommand(input(wontfix("risk_accepted until 2026-03-03")), {});
    expect(past).toMatchObject({ kind: "refuse" });
    if (past.kind === "refuse") expect(past.answer).toContain("in the past");
    const far = planResolutionCommand(
      input(wontfix("for 31d"), { config: repoConfig({ triage: { maxAcceptanceDays: 30 } }) }),
      {},
    );
    expect(far).toMatchObject({ kind: "refuse" });
    if (far.kind === "refuse")
      expect(far.answer).toContain("more than 30 days ahead (`triage.maxAcceptanceDays`)");
  });

  it("requireExpiry refuses an acceptance without one, and only for the listed statuses", () => {
    const strict = repoConfig({ triage: { requireExpiry: ["WONT_FIX"] } });
    const plain = planResolutionCommand(input(wontfix("risk_accepted"), { config: strict }), {});
    expect(plain).toMatchObject({ kind: "refuse" });
    if (plain.kind === "refuse") expect(plain.answer).toContain("`triage.requireExpiry`");
    const mitigate = parsed("/diffward mitigate SC-01234567 monitored", "resolution") as ResolutionCommand;
    expect(planResolutionCommand(input(mitigate, { config: strict }), {}).kind).toBe("set");
    expect(planResolutionCommand(input(wontfix("risk_accepted for 5d"), { config: strict }), {}).kind).toBe(
      "set",
    );
  });

  it("a held acceptance keeps its expiry, and the approval carries it to the decision and the note", () => {
    const on = repoConfig({ triage: { approval: { minSeverity: "high", approvers: "maintain" } } });
    const held = planResolutionCommand(input(wontfix("risk_accepted until 2026-04-01"), { config: on }), {
      role: "write",
    });
    if (held.kind !== "hold") throw new Error(held.kind);
    expect(held.hold.request.expiresAt).toBe("2026-04-01T23:59:59.999Z");
    expect(held.hold.answer).toContain("until **2026-04-01**");
    const approve = parsed("/diffward approve SC-01234567", "approval") as ApprovalCommand;
    const plan = planApproval(input(approve, { sender: "octo-maint", config: on }), {
      role: "maintain",
      request: held.hold.request,
    });
    if (plan.kind !== "approve") throw new Error(plan.kind);
    expect(plan.decision.expiresAt).toBe("2026-04-01T23:59:59.999Z");
    expect(plan.note).toContain("Accepted until 2026-04-01T23:59:59.999Z by @octo-writer (diffward).");
    expect(plan.summary).toContain("Accepted until **2026-04-01**");
    const late = planApproval(
      input(approve, { sender: "octo-maint", config: on, now: Date.parse("2026-04-02T00:00:00Z") }),
      { role: "maintain", request: held.hold.request },
    );
    expect(late.kind).toBe("drop");
  });
});

describe("resolution plan", () => {
  it("a lone reason code is the reason; one signed note; the thread is resolved; the decision is remembered", () => {
    const cmd = parsed("/diffward wontfix SC-01234567 risk_accepted", "resolution") as ResolutionCommand;
    const plan = planResolution(input(cmd));
    expect(plan.resolution).toEqual({ resolutionStatus: "WONT_FIX", reason: "risk_accepted" });
    expect(plan.note).toBe(
      "Resolution set to Won't fix (reason `risk_accepted`).\n\n— GitHub user @octo-writer via diffward (octo/app#9)",
    );
    expect(plan.thread).toBe("resolve");
    expect(plan.decision).toEqual({
      findingId: DETAIL.id,
      ...identityOf(DETAIL),
      severity: "HIGH",
      resolutionStatus: "WONT_FIX",
      reason: "risk_accepted",
      by: "octo-writer",
      at: "2026-03-04T05:06:07.000Z",
    });
    expect(plan.summary).toBe(
      "`SC-01234567` is now **Won't fix** with reason `risk_accepted`, set for `@octo-writer`.",
    );
  });

  it("text goes with the resolution as a signed note, and no separate note is added", () => {
    const cmd = parsed("/diffward fp SC-01234567 the input is a constant", "resolution") as ResolutionCommand;
    const plan = planResolution(input(cmd));
    expect(plan.resolution).toEqual({
      resolutionStatus: "FALSE_POSITIVE",
      note: { content: "the input is a constant\n\n— GitHub user @octo-writer via diffward (octo/app#9)" },
    });
    expect(plan.note).toBeUndefined();
    expect(plan.decision.note).toBe("the input is a constant");
  });

  it("/reopen reopens the thread and sends its text as a separate note (the service ignores it, rule 2)", () => {
    const cmd = parsed("/diffward reopen SC-01234567 not fixed after all", "resolution") as ResolutionCommand;
    const plan = planResolution(input(cmd));
    expect(plan.resolution).toEqual({ resolutionStatus: "NOT_STARTED" });
    expect(plan.note).toContain("not fixed after all");
    expect(plan.thread).toBe("reopen");
    expect(plan.summary).toContain("Your text was added as a note");
  });

  it("the code scanning alert follows only when codeScanning.upload is on", () => {
    const cmd = parsed("/diffward fp SC-01234567", "resolution") as ResolutionCommand;
    expect(planResolution(input(cmd)).alert).toBe(false);
    const on = RepoConfig.parse({ repositoryId: "r", codeScanning: { upload: true } });
    expect(planResolution(input(cmd, { config: on })).alert).toBe(true);
  });

  it("/in-progress leaves the thread as it is", () => {
    const cmd = parsed("/diffward in-progress SC-01234567", "resolution") as ResolutionCommand;
    expect(planResolution(input(cmd)).thread).toBe("leave");
  });
});
