import { describe, expect, it } from "vitest";
import { decideLaunchError, planLaunched } from "../../src/jobs/decide-launch.js";
import { launchJob as launch } from "../support/jobs.js";

const at = { d: launch, attempt: 1, maxAttempts: 8, now: 1_000_000, initializingWindowMs: 60_000 };

describe("decideLaunchError: what a refused or failed launch leads to", () => {
  it("ambiguous errors retry silently, and conclude failure on the last attempt", () => {
    expect(decideLaunchError({ kind: "ambiguous", message: "502" }, at)).toEqual({
      writes: [],
      next: { kind: "retry" },
    });
    const last = decideLaunchError({ kind: "ambiguous", message: "502" }, { ...at, attempt: 8 });
    expect(last.next.kind).toBe("retry");
    expect(last.writes[0]).toMatchObject({ check: { conclusion: "failure" } });
  });

  it("repository_initializing says so once, waits, and times out past the window", () => {
    const wait = { kind: "wait", delayMs: 15_000, why: "repository_initializing" } as const;
    const first = decideLaunchError(wait, at);
    expect(first.writes[0]).toMatchObject({
      check: { status: "in_progress", output: { title: "Repository is being analyzed for the first time" } },
    });
    expect(first.next).toEqual({
      kind: "wait",
      delayMs: 15_000,
      data: { initializingSince: at.now, initializingTries: 1 },
    });
    expect(
      decideLaunchError(wait, { ...at, d: { ...launch, initializingSince: at.now - 1_000 } }).writes,
    ).toEqual([]);
    const late = decideLaunchError(wait, { ...at, d: { ...launch, initializingSince: at.now - 60_000 } });
    expect(late.next.kind).toBe("concluded");
  });

  it("a preset refusing baseCommit relaunches as a whole-repository scan; a 402 concludes action_required with the balance", () => {
    expect(
      decideLaunchError(
        { kind: "conclude", conclusion: "failure", code: "diff_base_not_allowed", message: "no" },
        at,
      ).next,
    ).toEqual({ kind: "wait", delayMs: 10, data: { mergeBase: null, wholeRepository: true } });
    const paid = decideLaunchError(
      { kind: "conclude", conclusion: "action_required", code: "insufficient_credits", message: "short" },
      { ...at, balance: { balanceCredits: 3, availableCredits: 3 } },
    );
    expect(paid.next.kind).toBe("concluded");
    expect(paid.writes[0]).toMatchObject({ check: { conclusion: "action_required" } });
  });

  it("the launched write carries the scan id as external_id and is a progress write", () => {
    expect(planLaunched(launch, "scan_1", 40)).toEqual([
      expect.objectContaining({
        kind: "update-check-run",
        purpose: "progress",
        check: expect.objectContaining({ externalId: "scan_1", status: "in_progress" }),
      }),
    ]);
  });
});

