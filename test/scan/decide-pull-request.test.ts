import { describe, expect, it } from "vitest";
import type { GitHubWrite } from "../../src/github/writes.js";
import {
  decideHead,
  decidePullRequest,
  nextFactNeeded,
  planRerunInProgress,
  planResumedStop,
  rerunToCollapseInto,
  type PullRequestFact,
  type PullRequestFacts,
} from "../../src/scan/decide-pull-request.js";
import type { PullState } from "../../src/stores/pull-state.js";
import { pullRequestEvent as event, repoConfig as config } from "../support/jobs.js";

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
    receivedAt: Date.UTC(2026, 0, 1, 0, 0, 5),
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

  it("a head that comes back (close then reopen, force-push A → B → A) is a new generation with a new launch job id", () => {
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

describe("a Re-run pressed again while an earlier Re-run's scan of the head runs", () => {
  const press = (nonce: string) => ({
    ...event,
    action: "rerequested",
    explicit: { nonce, requestedBy: "bob" },
  });
  const running: PullState = {
    ...prev,
    headSha: event.headSha,
    explicitNonce: "d-first",
    rerun: true,
    scanId: "scan_9",
  };

  it("a Re-run's launch records it; the next press of the same open head collapses into it, not a retry of the same press nor another head", () => {
    const { f } = facts({ event: press("d-first") });
    expect(decidePullRequest(f).state).toMatchObject({ rerun: true, explicitNonce: "d-first" });
    expect(
      decidePullRequest(facts({ event: { ...event, explicit: { nonce: "cmd-1" } } }).f).state.rerun,
    ).toBe(undefined);
    expect(rerunToCollapseInto(press("d-second"), running)).toMatchObject({
      checkRunId: 11,
      scanId: "scan_9",
    });
    expect(rerunToCollapseInto(press("d-first"), running)).toBeUndefined();
    expect(rerunToCollapseInto(press("d-second"), { ...running, headSha: "e".repeat(40) })).toBeUndefined();
    expect(rerunToCollapseInto(press("d-second"), { ...running, closed: true })).toBeUndefined();
    // an automatic scan or a rescan running: a Re-run replaces it as before
    expect(rerunToCollapseInto(press("d-second"), { ...running, rerun: undefined })).toBeUndefined();
    expect(rerunToCollapseInto({ ...press("d-second"), action: "rescan" }, running)).toBeUndefined();
  });

  it("the answer: the running re-run's output says no second scan was launched, and the state keeps who asked", () => {
    const answer = planRerunInProgress(press("d-second"), { ...running, checkRunId: 11 });
    expect(kinds(answer.writes)).toEqual(["update-check-run:update"]);
    expect(answer.writes[0]).toMatchObject({ checkRunId: 11, bestEffort: true });
    const check = (answer.writes[0] as Extract<GitHubWrite, { kind: "update-check-run" }>).check;
    expect(check.status).toBeUndefined();
    expect(check.output?.title).toBe("Re-run already in progress");
    expect(check.output?.summary).toContain("`@bob` pressed **Re-run** for this commit again");
    expect(check.output?.summary).toContain("(scan `scan_9`)");
    expect(answer.state).toMatchObject({ ...running, rerunAgain: { by: "bob" } });
  });
});

describe("planResumedStop: a resumed check run the state does not follow ends", () => {
  const resume = { checkRunId: 21, since: 0 };
  it("closed meanwhile: cancelled as closed; a newer head: superseded by it; the same check run: nothing", () => {
    const closed = planResumedStop({ ...event, resume }, { ...prev, closed: true });
    expect(closed).toEqual([
      expect.objectContaining({
        checkRunId: 21,
        check: expect.objectContaining({ conclusion: "cancelled" }),
      }),
    ]);
    expect(JSON.stringify(closed)).toContain("The pull request was closed, so diffward cancelled the scan");
    const newer = planResumedStop({ ...event, resume }, prev);
    expect(newer[0]).toMatchObject({
      checkRunId: 21,
      check: { output: { title: `Superseded by ${prev.headSha.slice(0, 7)}` } },
    });
    expect(planResumedStop({ ...event, resume }, { ...prev, checkRunId: 21 })).toEqual([]);
    expect(planResumedStop(event, prev)).toEqual([]);
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

  it("a check run reconciliation resumed: decided on that check run, launched at once after a scan-list lookup; a draft concludes it", () => {
    const resume = { checkRunId: 21, since: 1_700_000_000_000 };
    const head = decideHead({ ...event, resume }, undefined);
    expect(head).toEqual({ kind: "follow", generation: 1, resumeCheckRunId: 21 });
    const plan = decidePullRequest(
      facts({ event: { ...event, resume }, head: head as PullRequestFacts["head"] }).f,
    );
    expect(plan).toMatchObject({ outcome: "launch-enqueued", writes: [], checkRunId: 21 });
    expect(plan.launch).toMatchObject({ delayMs: 0, data: { lookupSince: resume.since } });
    expect(plan.launch!.jobId).toMatch(/-r21$/);
    const draft = decidePullRequest(
      facts({ event: { ...event, draft: true, resume }, head: head as PullRequestFacts["head"] }).f,
    );
    expect(draft.outcome).toBe("draft-skipped");
    expect(draft.writes).toEqual([
      expect.objectContaining({
        kind: "update-check-run",
        checkRunId: 21,
        check: expect.objectContaining({ conclusion: "skipped" }),
      }),
    ]);
  });

  it("refuses to decide on facts it did not get", () => {
    expect(() => decidePullRequest({ ...facts().f, mergeBase: undefined })).toThrow(/merge-base/);
  });
});

describe("decidePullRequest: the scanning service unavailable", () => {
  const unavailable = { kind: "unavailable" as const, since: 1_700_000_000_000, maxWaitMs: 60 * 60_000 };

  it("reads on as with a token, creates the check run in progress saying so, and the launch waits from then", () => {
    const { f, asked } = facts({}, { token: (x) => (x.token = unavailable) });
    expect(asked).toEqual(["token", "files", "permission", "config-in-pull", "merge-base"]);
    const plan = decidePullRequest(f);
    expect(plan.outcome).toBe("launch-enqueued");
    expect(kinds(plan.writes)).toEqual(["create-check-run:create"]);
    const check = (plan.writes[0] as Extract<GitHubWrite, { kind: "create-check-run" }>).check;
    expect(check.status).toBe("in_progress");
    expect(check.output?.title).toBe("Scanning service unavailable");
    expect(check.output?.summary).toContain(
      "The scanning service is unavailable; diffward retries and resumes on its own.",
    );
    expect(check.output?.summary).toContain("60 minutes");
    expect(plan.launch?.data.outageSince).toBe(unavailable.since);
  });

  it("updates a resumed check run to say so instead of leaving it queued", () => {
    const { f } = facts(
      { head: { kind: "follow", generation: 1, resumeCheckRunId: 21 } },
      { token: (x) => (x.token = unavailable) },
    );
    const plan = decidePullRequest(f);
    expect(kinds(plan.writes)).toEqual(["update-check-run:update"]);
    expect(plan.checkRunId).toBe(21);
  });

  it("a gate still decides without the service: a skipped author concludes as before", () => {
    const { f } = facts(
      { config: { kind: "ok", config: config({ authors: { skip: ["alice"] } }) } },
      { token: (x) => (x.token = unavailable) },
    );
    const plan = decidePullRequest(f);
    expect(plan.outcome).toBe("skipped");
    expect(plan.launch).toBeUndefined();
  });
});
