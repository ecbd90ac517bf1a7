/**
 * The check-run endings every scan job plans (src/checks/endings.ts) and the progress write
 * (src/checks/progress.ts): one write each, on the job's check run, with the conclusion and the words the
 * check run shows.
 */
import { describe, expect, it } from "vitest";
import {
  planReportFailed,
  planScanEnded,
  planScanLost,
  planScanTimedOut,
  planScanUnreadable,
  planTokenMissing,
} from "../../src/checks/endings.js";
import { planProgress } from "../../src/checks/progress.js";
import type { GitHubWrite } from "../../src/github/writes.js";

const run = { owner: "acme", repo: "shop", checkRunId: 7, scanId: "scan-1" };

/** The one check-run update a plan holds: its conclusion, title and summary. */
function ending(writes: GitHubWrite[]) {
  expect(writes).toHaveLength(1);
  const w = writes[0]!;
  if (w.kind !== "update-check-run") throw new Error(`not a check-run update: ${w.kind}`);
  expect(w).toMatchObject({ repo: { owner: "acme", repo: "shop" }, checkRunId: 7 });
  return {
    purpose: w.purpose,
    ...w.check,
    title: w.check.output?.title,
    summary: w.check.output?.summary ?? "",
  };
}

describe("check-run endings", () => {
  it("a scan that ended FAILED or CANCELLED: failure, or cancelled naming who cancelled it", () => {
    expect(ending(planScanEnded(run, "FAILED"))).toMatchObject({
      conclusion: "failure",
      title: "Scan failed",
    });
    const cancelled = ending(planScanEnded(run, "CANCELLED", "octocat"));
    expect(cancelled).toMatchObject({
      conclusion: "cancelled",
      title: "Scan cancelled",
      purpose: "complete",
    });
    expect(cancelled.summary).toContain("octocat");
  });

  it("a scan the service lost says so with the service's message", () => {
    const e = ending(planScanLost(run, "no scan scan-1"));
    expect(e.conclusion).toBe("failure");
    expect(e.summary).toContain("The service no longer knows this scan: no scan scan-1");
  });

  it("a timed-out scan: timed_out, with how long diffward waited and the last percent shown", () => {
    const e = ending(planScanTimedOut({ ...run, launchedAt: 1_000, lastPercent: 40 }, 61_000));
    expect(e).toMatchObject({ conclusion: "timed_out", title: "Scan timed out" });
    expect(e.summary).toContain("at 40%");
  });

  it("an unreadable result tells an oversized answer, a failing service and an answer off the spec apart", () => {
    const tooLarge = ending(planScanUnreadable(run, { message: "m", retryable: false, kind: "pages" }, 1));
    expect(tooLarge.summary).toContain("larger than diffward accepts");
    const failing = ending(planScanUnreadable(run, { message: "m", retryable: true }, 5));
    expect(failing.summary).toContain("kept failing after 5 attempts");
    const offSpec = ending(planScanUnreadable(run, { message: "bad `shape`", retryable: false }, 1));
    expect(offSpec).toMatchObject({ conclusion: "failure", title: "Scan result could not be read" });
    expect(offSpec.summary).toContain("does not match its documented format");
  });

  it("a failed report quotes the error as code and counts the attempts", () => {
    const e = ending(planReportFailed(run, new TypeError("boom"), 1));
    expect(e).toMatchObject({ conclusion: "failure", title: "Report could not be posted" });
    expect(e.summary).toContain("1 attempt in a row");
    expect(e.summary).toContain("TypeError: boom");
    expect(ending(planReportFailed(run, "x", 3)).summary).toContain("3 attempts in a row");
  });

  it("a missing scanner token names the account and the minutes waited", () => {
    const e = ending(planTokenMissing({ ...run, accountLogin: "acme" }, 5 * 60_000));
    expect(e).toMatchObject({ conclusion: "failure", title: "Scanning service token missing" });
    expect(e.summary).toContain("for 5 minutes");
  });
});

describe("planProgress", () => {
  it("shows the rounded percent on the check run, in progress, as a progress write", () => {
    const p = ending(
      planProgress(run, {
        status: "PROCESSING",
        progress: { percent: 41.6, phasesCompleted: 2, phasesTotal: 5 },
      }),
    );
    expect(p).toMatchObject({ status: "in_progress", purpose: "progress" });
    expect(p.title).toBe("Scanning: 42%");
    expect(p.summary).toContain("2 of 5 phases done");
  });
});
