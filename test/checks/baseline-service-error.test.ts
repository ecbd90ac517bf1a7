import { describe, expect, it } from "vitest";
import { baselineServiceError } from "../../src/checks/baseline-service-error.js";
import { decideLaunchError } from "../../src/scan/decide-launch.js";
import { launchJob } from "../support/jobs.js";

describe("a baseline's launch refused by the service", () => {
  const baselineLaunch = {
    ...launchJob,
    pullNumber: 0,
    mergeBase: null,
    presetRef: "full-standard",
    target: { kind: "baseline" as const, branch: "main" },
  };
  it("402 concludes neutral saying why, and is never retried", () => {
    const plan = decideLaunchError(
      { kind: "conclude", conclusion: "action_required", code: "insufficient_credits", message: "balance 0" },
      {
        d: baselineLaunch,
        attempt: 1,
        maxAttempts: 8,
        now: 0,
        initializingWindowMs: 1,
        balance: { balanceCredits: 0, availableCredits: 0 },
      },
    );
    expect(plan.next).toEqual({ kind: "concluded" });
    expect(plan.writes).toHaveLength(1);
    expect(plan.writes[0]).toMatchObject({
      check: { conclusion: "neutral", output: { title: "Baseline not scanned: not enough credits" } },
    });
  });
  it("diff_base_required is a configuration error; other errors read as for a pull request", () => {
    expect(baselineServiceError("diff_base_required", "needs base", baselineLaunch)).toMatchObject({
      conclusion: "failure",
      output: { title: "Invalid baseline configuration" },
    });
    expect(baselineServiceError("not_found", "x", baselineLaunch)).toBeUndefined();
    // a pull request's 402 stays action_required
    const pr = decideLaunchError(
      { kind: "conclude", conclusion: "action_required", code: "insufficient_credits", message: "balance 0" },
      { d: launchJob, attempt: 1, maxAttempts: 8, now: 0, initializingWindowMs: 1 },
    );
    expect(pr.writes[0]).toMatchObject({ check: { conclusion: "action_required" } });
  });
});
