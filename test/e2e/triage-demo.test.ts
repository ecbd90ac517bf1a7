import { describe, expect, it } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import { demoApproval, demoReplyCommand } from "../../dev/harness/triage.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { openReportedPull } from "../support/reported-pull.js";
import { useCommandHarness } from "../support/commands.js";

let h: Harness;
useCommandHarness((started) => (h = started));

describe("demoReplyCommand", () => {
  it("shows one reply command and its effect: answer, updated comment, service state", async () => {
    const pr = await openReportedPull(h, 7);
    const shown = await demoReplyCommand(h, pr);
    expect(shown.command).toBe("/fp not_reachable");
    expect(shown.resolutionStatus).toBe("FALSE_POSITIVE");
    expect(shown.answer).toContain("is now **False positive**");
    expect(shown.commentBefore).not.toContain("**Decision:**");
    expect(shown.commentAfter).toContain("**Decision:**");
    expect(shown.commentAfter).toContain("@octo-reviewer");
  });
});

describe("demoApproval", () => {
  it("shows a held dismissal of a HIGH or CRITICAL finding and its approval by a maintainer", async () => {
    const pr = await openReportedPull(h, 8);
    const shown = await demoApproval(h, {
      ...pr,
      defaultBranch: pr.payload.repository.default_branch,
      baseConfig: demoConfig,
    });
    expect(["HIGH", "CRITICAL"]).toContain(shown.severity);
    expect(shown.heldAnswer).toContain("**Approval requested**");
    expect(shown.statusWhileHeld).toBe("NOT_STARTED");
    expect(shown.commentWhileHeld).toContain("Dismissal awaiting approval");
    expect(shown.approvedAnswer).toContain("is now **Won't fix**");
    expect(shown.approvedAnswer).toContain("approved by `@octo-lead`");
    expect(shown.statusAfter).toBe("WONT_FIX");
  });
});
