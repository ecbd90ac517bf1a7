import { describe, expect, it } from "vitest";
import type { GitHubWrite } from "../../../src/github/writes.js";
import { decideDegrade, decideReportWrites } from "../../../src/report/decide/decide-report.js";
import type { ReportFinding } from "../../../src/domain/finding-types.js";
import { launchJob as launch } from "../../support/jobs.js";

const kinds = (ws: GitHubWrite[]) => ws.map((w) => `${w.kind}:${w.purpose}`);

describe("decideReportWrites: a completed scan's writes", () => {
  const finding = { id: "f1" } as ReportFinding;
  const plan = {
    verdict: { conclusion: "failure" as const, total: 120, blocking: 1, bySeverity: {} },
    post: [{ finding, path: "src/a.ts", line: 3 }],
    update: [{ finding: { id: "f2" } as ReportFinding, path: "src/b.ts", line: 4, existingCommentId: 99 }],
    notInline: [],
  };
  const annotations = Array.from({ length: 120 }, (_, i) => ({
    path: "src/a.ts",
    start_line: i + 1,
    end_line: i + 1,
    annotation_level: "warning" as const,
    message: `m${i}`,
  }));

  it("one review, changed comments refreshed, completion with 50 annotations then one write per further 50", () => {
    const w = decideReportWrites({
      d: { ...launch, checkRunId: 21 },
      plan: plan as never,
      comments: [{ id: 99, body: "old", path: "src/b.ts" }],
      bodyOf: (f) => `body ${f.id}`,
      output: { title: "1 blocking", summary: "s" },
      annotations,
    });
    expect(kinds(w.commentUpdates)).toEqual(["update-review-comment:review"]);
    expect(w.review).toMatchObject({
      kind: "create-review",
      comments: [{ path: "src/a.ts", line: 3, body: "body f1" }],
    });
    expect(
      w.completion.map(
        (c) => (c as { check: { output?: { annotations?: unknown[] } } }).check.output?.annotations?.length,
      ),
    ).toEqual([50, 50, 20]);
    expect(w.completion.every((c) => c.purpose === "complete")).toBe(true);
    expect(w.completion[0]).toMatchObject({ check: { conclusion: "failure" } });
    expect(w.conclusion).toBe("failure");
  });

  it("an unchanged comment is not rewritten; the PR's invalid config fails the check whatever the findings", () => {
    const w = decideReportWrites({
      d: { ...launch, checkRunId: 21, configProblemsInPull: ["bad"] },
      plan: { ...plan, post: [], verdict: { ...plan.verdict, conclusion: "success" } } as never,
      comments: [{ id: 99, body: "body f2", path: "src/b.ts" }],
      bodyOf: (f) => `body ${f.id}`,
      output: { title: "t", summary: "s" },
      annotations: [],
    });
    expect(w.commentUpdates).toEqual([]);
    expect(w.review).toBeUndefined();
    expect(w.conclusion).toBe("failure");
  });
});

describe("decideDegrade (GitHub's 500 writes an hour)", () => {
  it("keeps everything while the budget covers a completion and a review per scan in flight", () => {
    expect(decideDegrade({ perHour: 500, used: 100, inFlight: 50 }, 1)).toEqual({
      progress: true,
      review: true,
      level: 0,
    });
    expect(decideDegrade(undefined, 1).level).toBe(0); // no lane: nothing to degrade
  });

  it("turns progress off first, then folds the review into the check run", () => {
    // 200 PRs opened at once: 200 creations sent, 200 scans in flight
    const burst = { perHour: 500, used: 200, inFlight: 200 };
    expect(decideDegrade(burst, 1)).toEqual({ progress: false, review: true, level: 1 });
    // later in the burst: 150 reports left to complete, 90 writes left
    const late = { perHour: 500, used: 410, inFlight: 150 };
    expect(decideDegrade(late, 1)).toEqual({ progress: false, review: false, level: 2 });
  });

  it("a burst of 200 pull requests fits in 500 writes: every scan still gets its completion", () => {
    // simulate: 200 creations, then reports one by one; each report sends its completion, and a review when allowed
    let used = 200;
    let reviews = 0;
    for (let inFlight = 200; inFlight > 0; inFlight--) {
      const d = decideDegrade({ perHour: 500, used, inFlight }, 1);
      used += 1 + (d.review ? 1 : 0);
      if (d.review) reviews++;
      expect(used).toBeLessThanOrEqual(500);
    }
    expect(reviews).toBeGreaterThan(0);
  });
});
