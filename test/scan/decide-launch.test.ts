import { describe, expect, it } from "vitest";
import {
  decideLaunchError,
  decideLaunchStart,
  launchRequest,
  planLaunchRefused,
  planLaunched,
  planNoToken,
} from "../../src/scan/decide-launch.js";
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

  it("after a Re-run pressed again was answered, the launched write keeps that answer", () => {
    const [write] = planLaunched(launch, "scan_1", 40, { by: "bob" });
    expect(write).toMatchObject({
      purpose: "progress",
      check: { externalId: "scan_1", status: "in_progress", output: { title: "Re-run already in progress" } },
    });
    expect(planLaunched(launch, "scan_1", 40)[0]).toMatchObject({
      check: { output: { title: "Scan queued" } },
    });
  });
});

describe("decideLaunchStart: how a launch starts, at most once per launch key", () => {
  const ready = { wanted: true, removed: false, tokenFound: true, record: {} };

  it("spends nothing for a launch no longer wanted or whose installation was removed", () => {
    expect(decideLaunchStart(launch, { wanted: false })).toEqual({ kind: "superseded", why: "unwanted" });
    expect(decideLaunchStart(launch, { wanted: true, removed: true })).toEqual({
      kind: "superseded",
      why: "removed",
    });
  });

  it("withdraws a launch no longer wanted whose attempt's outcome is unknown (its scan may run and spend)", () => {
    const pending = { record: { attemptStartedAt: 5 }, tokenFound: true };
    expect(decideLaunchStart(launch, { wanted: false, ...pending })).toEqual({
      kind: "withdraw",
      why: "unwanted",
      since: 5,
    });
    expect(decideLaunchStart(launch, { wanted: true, removed: true, ...pending })).toEqual({
      kind: "withdraw",
      why: "removed",
      since: 5,
    });
    // a recorded scan is stopped by whoever stops its target; without a token nothing can be looked up
    expect(
      decideLaunchStart(launch, {
        wanted: false,
        record: { attemptStartedAt: 5, scanId: "s1" },
        tokenFound: true,
      }),
    ).toEqual({ kind: "superseded", why: "unwanted" });
    expect(decideLaunchStart(launch, { wanted: false, ...pending, tokenFound: false })).toEqual({
      kind: "superseded",
      why: "unwanted",
    });
  });

  it("concludes without a token, and follows the scan a launch key already has", () => {
    expect(decideLaunchStart(launch, { wanted: true, removed: false, tokenFound: false })).toEqual({
      kind: "no-token",
    });
    expect(decideLaunchStart(launch, { ...ready, record: { scanId: "s1", creditBudget: 40 } })).toEqual({
      kind: "already-launched",
      scanId: "s1",
      creditBudget: 40,
    });
  });

  it("reports a launch key's completed scan again instead of following or launching it anew", () => {
    const record = { scanId: "s1", creditBudget: 40 };
    expect(decideLaunchStart(launch, { ...ready, record, ended: "COMPLETED" })).toEqual({
      kind: "report-again",
      scanId: "s1",
      creditBudget: 40,
    });
    // a scan that failed or was cancelled is not a report: it is followed as before (its stop forgot the key)
    for (const ended of ["FAILED", "CANCELLED"] as const)
      expect(decideLaunchStart(launch, { ...ready, record, ended }).kind).toBe("already-launched");
  });

  it("looks an earlier attempt up first (same base and preset), a resumed check run's head (any scan)", () => {
    expect(decideLaunchStart(launch, { ...ready, record: { attemptStartedAt: 5 } })).toEqual({
      kind: "look-up",
      since: 5,
      anyOfHead: false,
    });
    expect(decideLaunchStart({ lookupSince: 9 }, ready)).toEqual({
      kind: "look-up",
      since: 9,
      anyOfHead: true,
    });
    expect(decideLaunchStart(launch, ready)).toEqual({ kind: "launch" });
  });
});

describe("the launch's writes and request", () => {
  it("a refusal concludes the check run with its conclusion, title and summary; no token is neutral", () => {
    expect(
      planLaunchRefused(launch, { conclusion: "action_required", title: "Cap", summary: "why" }),
    ).toEqual([
      expect.objectContaining({
        check: { conclusion: "action_required", output: { title: "Cap", summary: "why" } },
      }),
    ]);
    expect(planNoToken(launch)[0]).toMatchObject({ check: { conclusion: "neutral" } });
  });

  it("the POST body: head, merge base, the commit message cut to 1,000 characters, the budget when set", () => {
    const body = launchRequest({ ...launch, commitMessage: "m".repeat(1_500), auditAreaKeys: [] }, 30);
    expect(body).toEqual({
      repositoryId: launch.repositoryId,
      presetRef: launch.presetRef,
      commitHash: launch.headSha,
      baseCommit: launch.mergeBase,
      branch: launch.headRef,
      commitMessage: "m".repeat(1_000),
      creditBudget: 30,
    });
    expect(launchRequest(launch, undefined)).not.toHaveProperty("creditBudget");
  });
});
