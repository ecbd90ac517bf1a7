import { describe, expect, it } from "vitest";
import { decideReuse, parseMergeGroupRef } from "../../src/domain/merge-queue.js";
import { webhookExample } from "../../dev/harness/examples.js";
import type { Payload } from "../support/pr.js";

const SHA = "929f8209d40f77f4abc622a499c93a83babdbe64";
const HEAD = "a".repeat(40);

describe("parseMergeGroupRef", () => {
  it("reads GitHub's own example ref (@octokit/webhooks-examples merge_group.checks_requested)", () => {
    const p: Payload = webhookExample("merge_group", "checks_requested");
    expect(parseMergeGroupRef(p.merge_group.head_ref)).toEqual({
      baseBranch: "main",
      pullNumber: 104,
      refSha: SHA,
    });
  });

  it("keeps slashes of the base branch and takes the last pr-<n>-<sha> segment", () => {
    expect(parseMergeGroupRef(`refs/heads/gh-readonly-queue/release/2.x/pr-7-${SHA}`)).toEqual({
      baseBranch: "release/2.x",
      pullNumber: 7,
      refSha: SHA,
    });
    expect(parseMergeGroupRef(`refs/heads/gh-readonly-queue/team/pr-3-${SHA}/pr-12-${SHA}`)).toMatchObject({
      baseBranch: `team/pr-3-${SHA}`,
      pullNumber: 12,
    });
    expect(parseMergeGroupRef(`gh-readonly-queue/main/pr-5-${SHA}`)).toMatchObject({ pullNumber: 5 });
  });

  it("refuses what is not a merge-queue ref, without throwing", () => {
    for (const ref of [
      "refs/heads/main",
      `refs/heads/gh-readonly-queue/pr-5-${SHA}`, // no base branch
      `refs/heads/gh-readonly-queue/main/pr-0-${SHA}`, // no pull request 0
      `refs/heads/gh-readonly-queue/main/pr-5-${SHA.slice(0, 12)}`, // short sha
      `refs/heads/gh-readonly-queue/main/pr-x-${SHA}`,
      `refs/heads/gh-readonly-queue/main/pr-99999999999-${SHA}`,
      `refs/tags/gh-readonly-queue/main/pr-5-${SHA}`,
      "",
    ])
      expect(parseMergeGroupRef(ref)).toBeUndefined();
  });
});

describe("decideReuse", () => {
  const report = { scanId: "scan_1", headSha: HEAD, checkRunId: 10 };
  const run = (
    o: Partial<{ id: number; status: string; conclusion: string | null; externalId: string | null }>,
  ) => ({
    id: 10,
    status: "completed",
    conclusion: "success",
    externalId: "scan_1",
    ...o,
  });

  it("reuses a completed report on the pull request's current head with its current conclusion", () => {
    for (const conclusion of ["success", "neutral", "failure"] as const)
      expect(
        decideReuse({ pull: { number: 4, headSha: HEAD }, report, checkRuns: [run({ conclusion })] }),
      ).toEqual({
        kind: "reuse",
        conclusion,
        pullNumber: 4,
        headSha: HEAD,
        scanId: "scan_1",
        checkRunId: 10,
      });
  });

  it("scans when there is no report, the head moved, a newer run replaced it, it runs, or it was an error", () => {
    const pull = { number: 4, headSha: HEAD };
    expect(decideReuse({ pull, checkRuns: [run({})] })).toEqual({ kind: "scan", why: "no-report" });
    expect(
      decideReuse({ pull: { number: 4, headSha: "b".repeat(40) }, report, checkRuns: [run({})] }),
    ).toEqual({
      kind: "scan",
      why: "head-moved",
    });
    expect(decideReuse({ pull, report, checkRuns: [run({ id: 11 }), run({})] })).toEqual({
      kind: "scan",
      why: "newer-check-run",
    });
    expect(decideReuse({ pull, report, checkRuns: [] })).toEqual({ kind: "scan", why: "newer-check-run" });
    expect(
      decideReuse({ pull, report, checkRuns: [run({ status: "in_progress", conclusion: null })] }),
    ).toEqual({
      kind: "scan",
      why: "not-completed",
    });
    for (const conclusion of ["cancelled", "timed_out", "action_required", "skipped", null])
      expect(decideReuse({ pull, report, checkRuns: [run({ conclusion })] })).toEqual({
        kind: "scan",
        why: "not-reusable",
      });
    expect(decideReuse({ pull, report, checkRuns: [run({ externalId: "scan_other" })] })).toEqual({
      kind: "scan",
      why: "not-reusable",
    });
  });
});
