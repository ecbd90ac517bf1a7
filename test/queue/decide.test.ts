import { describe, expect, it } from "vitest";
import { parseRepoConfig, type RepoConfig } from "../../src/config/repo-config.js";
import type { GitHubWrite } from "../../src/github/writes.js";
import {
  decideHead,
  decidePullRequest,
  nextFactNeeded,
  type PullRequestFact,
  type PullRequestFacts,
} from "../../src/jobs/decide-pull-request.js";
import { decideLaunchError, planLaunched } from "../../src/jobs/decide-launch.js";
import { decideDegrade, decideReportWrites } from "../../src/jobs/report/decide.js";
import type { LaunchJobData, PullRequestJobData } from "../../src/jobs/types.js";
import type { PullState } from "../../src/runtime/state.js";
import type { ReportFinding } from "../../src/domain/types.js";

function config(extra: Record<string, unknown> = {}): RepoConfig {
  const parsed = parseRepoConfig({ repositoryId: "repo_1", ...extra });
  if (!parsed.ok) throw new Error(parsed.problems.join("; "));
  return parsed.config;
}

const event: PullRequestJobData = {
  deliveryId: "d-1",
  action: "opened",
  installationId: 7,
  accountLogin: "acme",
  owner: "acme",
  repo: "web",
  repoPrivate: true,
  defaultBranch: "main",
  pullNumber: 3,
  headSha: "b".repeat(40),
  headRef: "feature",
  baseRef: "main",
  draft: false,
  updatedAt: "2026-01-02T00:00:00Z",
  authorLogin: "alice",
  title: "Add login",
  headRepoFullName: "acme/web",
};

const prev: PullState = {
  installationId: 7,
  owner: "acme",
  repo: "web",
  pullNumber: 3,
  headSha: "a".repeat(40),
  updatedAt: "2026-01-01T00:00:00Z",
  checkRunId: 11,
  launchKey: "lk-old",
};

/** Feeds the facts the decision asks for, in the order it asks, and records that order. */
function facts(
  over: Partial<PullRequestFacts> = {},
  answers: Partial<Record<PullRequestFact, (f: PullRequestFacts) => void>> = {},
): { f: PullRequestFacts; asked: PullRequestFact[] } {
  const f: PullRequestFacts = {
    event,
    attemptsStarted: 1,
    config: { kind: "ok", config: config() },
    head: { kind: "follow", generation: 1 },
    settings: { guidanceFile: "SCANNER.md", defaultPreset: "diff-standard" },
    ...over,
  };
  const defaults: Record<PullRequestFact, (f: PullRequestFacts) => void> = {
    adoption: (x) => (x.adoption = { checkRunId: undefined }),
    token: (x) => (x.token = { kind: "found" }),
    files: (x) => (x.files = [{ filename: "src/a.ts", status: "modified", additions: 3, deletions: 1 }]),
    permission: (x) => (x.authorPermitted = true),
    "config-in-pull": (x) => (x.configProblemsInPull = []),
    "merge-base": (x) => (x.mergeBase = { mergeBase: "c".repeat(40), headCommitMessage: "feat: login" }),
  };
  const asked: PullRequestFact[] = [];
  for (let next = nextFactNeeded(f); next; next = nextFactNeeded(f)) {
    asked.push(next);
    (answers[next] ?? defaults[next])(f);
  }
  return { f, asked };
}

const kinds = (ws: GitHubWrite[]) => ws.map((w) => `${w.kind}:${w.purpose}`);

describe("decideHead: which head is followed", () => {
  it("an older delivery of another head is stale; the same head already launched is a duplicate", () => {
    expect(decideHead({ ...event, updatedAt: "2025-12-31T00:00:00Z" }, prev).kind).toBe("stale-event");
    expect(decideHead(event, { ...prev, headSha: event.headSha }).kind).toBe("duplicate-delivery");
  });

  it("an event older than the close that ended the pull request is stale, whatever its head; a reopen is not", () => {
    const closed = { ...prev, headSha: event.headSha, closed: true, updatedAt: "2026-06-01T00:00:00Z" };
    expect(decideHead({ ...event, updatedAt: "2026-05-31T23:59:59Z" }, closed).kind).toBe("stale-event");
    expect(decideHead({ ...event, updatedAt: "2026-06-01T00:00:05Z" }, closed).kind).toBe("follow");
  });

  it("a new head stops the old one and concludes its check run; an explicit rescan of the same head concludes it as replaced", () => {
    expect(decideHead(event, prev)).toEqual({
      kind: "follow",
      generation: 1,
      stop: { reason: { kind: "superseded", bySha: event.headSha }, concludeCheckRun: true },
    });
    const rescan = decideHead({ ...event, explicit: { nonce: "n1" } }, { ...prev, headSha: event.headSha });
    expect(rescan).toMatchObject({
      kind: "follow",
      stop: { reason: { kind: "superseded", sameHead: true }, concludeCheckRun: true },
    });
  });

  it("a retry of the same request resumes its check run instead of creating another", () => {
    const d = decideHead(event, { ...prev, headSha: event.headSha, launchKey: undefined });
    expect(d).toEqual({ kind: "follow", generation: 1, resumeCheckRunId: 11 });
  });

  it("a head that comes back (close then reopen, force-push A → B → A) is a new generation with a new launch job id (issue 10 item 1)", () => {
    const closed = { ...prev, headSha: event.headSha, closed: true, generation: 3 };
    const reopened = decideHead(event, closed);
    expect(reopened).toMatchObject({ kind: "follow", generation: 4 });
    const first = decidePullRequest(facts({ head: { kind: "follow", generation: 1 } }).f);
    const back = decidePullRequest(facts({ head: { kind: "follow", generation: 4 } }).f);
    expect(first.launch?.data.launchKey).toBe(back.launch?.data.launchKey); // same scan identity
    expect(first.launch?.jobId).not.toBe(back.launch?.jobId); // but a job BullMQ will not ignore
    expect(back.state.generation).toBe(4);
  });
});

describe("decidePullRequest: reads only what it needs, then plans one check-run write", () => {
  it("a scannable pull request: reads token, files, permission, PR config, merge base; one queued check run; a debounced launch", () => {
    const { f, asked } = facts();
    expect(asked).toEqual(["token", "files", "permission", "config-in-pull", "merge-base"]);
    const plan = decidePullRequest(f);
    expect(plan.outcome).toBe("launch-enqueued");
    expect(kinds(plan.writes)).toEqual(["create-check-run:create"]);
    expect(plan.writes[0]).toMatchObject({ check: { status: "queued" } });
    expect(plan.launch).toMatchObject({
      delayMs: config().debounceSeconds * 1000,
      data: { mergeBase: "c".repeat(40), commitMessage: "feat: login", presetRef: "diff-standard" },
    });
    expect(plan.state).toMatchObject({
      launchKey: plan.launch!.data.launchKey,
      launchJobId: plan.launch!.jobId,
    });
  });

  it("an invalid config reads nothing more and fails the check with the exact problems", () => {
    const { f, asked } = facts({ config: { kind: "invalid", problems: ["repositoryId: required"] } });
    expect(asked).toEqual([]);
    const plan = decidePullRequest(f);
    expect(plan.outcome).toBe("invalid-config");
    expect(plan.writes).toHaveLength(1);
    expect(plan.writes[0]).toMatchObject({ kind: "create-check-run", check: { conclusion: "failure" } });
    expect(JSON.stringify(plan.writes[0])).toContain("repositoryId: required");
  });

  it("a skipped draft writes nothing and keeps no check run", () => {
    const { f, asked } = facts({ event: { ...event, draft: true } });
    expect(asked).toEqual([]);
    expect(decidePullRequest(f)).toMatchObject({
      outcome: "draft-skipped",
      writes: [],
      keepsCheckRun: false,
    });
  });

  it("no token: one write that concludes (no queued run updated afterwards), nothing more read", () => {
    const absent = facts({}, { token: (x) => (x.token = { kind: "absent" }) });
    expect(absent.asked).toEqual(["token"]);
    const plan = decidePullRequest(absent.f);
    expect(plan.outcome).toBe("no-token");
    expect(plan.writes).toEqual([
      expect.objectContaining({
        kind: "create-check-run",
        check: expect.objectContaining({ conclusion: "neutral" }),
      }),
    ]);
    const refused = decidePullRequest(
      facts({}, { token: (x) => (x.token = { kind: "refused", message: "revoked" }) }).f,
    );
    expect(refused.writes[0]).toMatchObject({ check: { conclusion: "failure" } });
  });

  it("gates: authors.skip concludes skipped without reading the merge base; a fork below the floor waits for Scan anyway", () => {
    const skipped = facts({ config: { kind: "ok", config: config({ authors: { skip: ["alice"] } }) } });
    expect(skipped.asked).not.toContain("merge-base");
    expect(decidePullRequest(skipped.f).writes[0]).toMatchObject({ check: { conclusion: "skipped" } });

    const fork = facts(
      {
        event: {
          ...event,
          headRepoFullName: "mallory/web",
          pullHtmlUrl: "https://github.com/acme/web/pull/3",
        },
      },
      { permission: (x) => (x.authorPermitted = false) },
    );
    const plan = decidePullRequest(fork.f);
    expect(plan.outcome).toBe("awaiting-approval");
    expect(plan.writes[0]).toMatchObject({
      check: { conclusion: "action_required", detailsUrl: "https://github.com/acme/web/pull/3" },
    });
    expect((plan.writes[0] as { check: { actions?: unknown[] } }).check.actions).toHaveLength(1);
    expect(plan.launch).toBeUndefined();
  });

  it("a retried job updates the check run it already has (resumed or adopted) instead of creating a second", () => {
    const resumed = decidePullRequest(
      facts({ head: { kind: "follow", generation: 1, resumeCheckRunId: 11 } }).f,
    );
    expect(resumed.writes).toEqual([]); // already queued
    expect(resumed.checkRunId).toBe(11);
    const adopted = facts(
      { attemptsStarted: 2 },
      { adoption: (x) => (x.adoption = { checkRunId: 12 }), token: (x) => (x.token = { kind: "absent" }) },
    );
    expect(adopted.asked).toEqual(["adoption", "token"]);
    expect(decidePullRequest(adopted.f).writes).toEqual([
      expect.objectContaining({ kind: "update-check-run", checkRunId: 12, purpose: "complete" }),
    ]);
  });

  it("refuses to decide on facts it did not get", () => {
    expect(() => decidePullRequest({ ...facts().f, mergeBase: undefined })).toThrow(/merge-base/);
  });
});

const launch: LaunchJobData = {
  ...event,
  mergeBase: "c".repeat(40),
  repositoryId: "repo_1",
  presetRef: "diff-standard",
  checkRunId: 21,
  launchKey: "lk",
  explicit: false,
  config: config(),
};
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

describe("decideDegrade (GitHub's 500 writes an hour, issue 15 item 3)", () => {
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
