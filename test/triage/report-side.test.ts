import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pino from "pino";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import type { Scenario } from "../../dev/sandbox/schemas.js";
import { fingerprint, shapeKey } from "../../src/domain/identity.js";
import { findingMarker } from "../../src/render/inline-comment.js";
import { parseNotReportedMarker, renderNotReportedComment } from "../../src/render/not-reported.js";
import {
  applyThreadWrites,
  closingCoverage,
  decideCoverage,
  planNotReported,
  scopeCovers,
} from "../../src/report/not-reported.js";
import type { PostedFindingComment } from "../../src/report/posted.js";
import {
  TRIAGE_SCENARIO,
  checkOf,
  nextAnswer,
  openReportedPull,
  pushAndReport,
  pushHead,
  threadAnswers,
  waitForReport,
} from "./helpers.js";
import { writeReviewReply } from "../../dev/harness/triage.js";

const SQLI = "SQL injection in user lookup";
const SECRET = "Session secret hard-coded";
const RATE = "Missing rate limit on login";

const f = (id: string, title: string) => ({
  id,
  title,
  location: "src/a.js:1",
  category: "injection",
  resolutionStatus: "NOT_STARTED",
});
function posted(id: string, title: string, extra = "**finding text**"): PostedFindingComment {
  const fp = fingerprint(f(id, title));
  return {
    commentId: id.length * 7,
    findingId: id,
    fingerprint: fp,
    body: `${findingMarker(id, fp, shapeKey(f(id, title)))}\n\n${extra}`,
  };
}
const scan = { id: "scn_2", headSha: "abcdef0123456789abcdef0123456789abcdef01" };

describe("coverage and scope (pure)", () => {
  it("full coverage needs a settled spend below the budget and a scope covering every earlier one", () => {
    expect(decideCoverage({ ranShort: false, scopeCovers: true })).toEqual({ complete: true });
    expect(decideCoverage({ ranShort: true, scopeCovers: true })).toEqual({
      complete: false,
      why: "ran-short",
    });
    expect(decideCoverage({ ranShort: undefined, scopeCovers: true })).toMatchObject({ why: "not-settled" });
    expect(decideCoverage({ ranShort: false, scopeCovers: false })).toMatchObject({ why: "scope-changed" });

    const whole = { presetRef: "diff-standard", auditAreas: [] };
    const api = { presetRef: "diff-standard", auditAreas: ["http-api"] };
    expect(scopeCovers(whole, api)).toBe(true);
    expect(scopeCovers(api, whole)).toBe(false);
    expect(scopeCovers({ ...api, auditAreas: ["http-api", "data-access"] }, api)).toBe(true);
    expect(scopeCovers({ ...whole, presetRef: "diff-quick" }, whole)).toBe(false);
    expect(scopeCovers(whole, undefined)).toBe(false);
  });

  it("remembers every earlier scope: a narrower scan in between keeps a wider earlier one uncovered", () => {
    const whole = { presetRef: "p", auditAreas: [] as string[] };
    const api = { presetRef: "p", auditAreas: ["http-api"] };
    const first = closingCoverage(undefined, { scope: whole, ranShort: false });
    expect(first.coverage.complete).toBe(false); // no earlier report known: nothing to close on a guess
    const second = closingCoverage(
      { presetRef: "p", config: {}, scopes: first.scopes },
      { scope: api, ranShort: false },
    );
    expect(second.coverage).toMatchObject({ why: "scope-changed" });
    const third = closingCoverage(
      { presetRef: "p", config: { auditAreas: ["http-api"] }, scopes: second.scopes },
      { scope: api, ranShort: false },
    );
    expect(third.coverage).toMatchObject({ why: "scope-changed" }); // the whole-change scan's comments
    const fourth = closingCoverage(
      { presetRef: "p", config: {}, scopes: third.scopes },
      { scope: whole, ranShort: false },
    );
    expect(fourth.coverage.complete).toBe(true);
  });
});

describe("planNotReported (pure)", () => {
  const a = posted("fnd_aaaaaaaa1111", "SQL injection");
  const b = posted("fnd_bbbbbbbb2222", "Open redirect");
  const full = { complete: true } as const;

  it("closes the comments of findings the scan no longer reports, with full coverage only", () => {
    const findings = [{ id: a.findingId, fingerprint: a.fingerprint, resolutionStatus: "NOT_STARTED" }];
    const writes = planNotReported({ posted: [a, b], findings, coverage: full, scan });
    expect(writes.map((w) => [w.kind, w.commentId])).toEqual([["close", b.commentId]]);
    const body = (writes[0] as { body: string }).body;
    expect(body.split("\n")[0]).toBe(b.body.split("\n")[0]); // the finding marker stays first
    expect(body).toContain("Not reported by the scan of `abcdef0`");
    expect(body).toContain("<details><summary>As last reported</summary>");
    expect(body).toContain("**finding text**");
    expect(parseNotReportedMarker(body)).toBe("scn_2");
    for (const why of ["ran-short", "not-settled", "scope-changed"] as const)
      expect(planNotReported({ posted: [a, b], findings, coverage: { complete: false, why }, scan })).toEqual(
        [],
      );
  });

  it("a new id with the same fingerprint is the same finding; an already closed comment is left alone", () => {
    const moved = [{ id: "fnd_cccccccc3333", fingerprint: b.fingerprint, resolutionStatus: "NOT_STARTED" }];
    expect(planNotReported({ posted: [b], findings: moved, coverage: full, scan })).toEqual([]);
    const closed = { ...b, body: renderNotReportedComment(b.body, { id: "scn_1", headSha: "1234567890" }) };
    expect(renderNotReportedComment(closed.body, scan)).toBe(closed.body);
    expect(planNotReported({ posted: [closed], findings: [], coverage: full, scan })).toEqual([]);
  });

  it("reopens a closed comment's thread when the finding is reported again and still open", () => {
    const closed = { ...b, body: renderNotReportedComment(b.body, { id: "scn_1", headSha: "1234567890" }) };
    const again = (resolutionStatus: string) => [
      { id: "fnd_new", fingerprint: b.fingerprint, resolutionStatus },
    ];
    expect(
      planNotReported({
        posted: [closed],
        findings: again("NOT_STARTED"),
        coverage: { complete: false, why: "ran-short" },
        scan,
      }),
    ).toEqual([{ kind: "reopen", commentId: b.commentId, findingId: "fnd_new" }]);
    expect(
      planNotReported({ posted: [closed], findings: again("FALSE_POSITIVE"), coverage: full, scan }),
    ).toEqual([]);
  });

  it("a thread error is logged and skipped; the comment edit is still made", async () => {
    const calls: string[] = [];
    const octokit = {
      rest: {
        pulls: {
          updateReviewComment: async (p: { comment_id: number }) => {
            calls.push(`edit ${p.comment_id}`);
            return { data: {} };
          },
        },
      },
      graphql: async (q: string) => {
        if (q.includes("reviewThreads"))
          return {
            repository: {
              pullRequest: {
                reviewThreads: {
                  pageInfo: { hasNextPage: false, endCursor: null },
                  nodes: [{ id: "PRRT_1", isResolved: false, comments: { nodes: [{ databaseId: 5 }] } }],
                },
              },
            },
          };
        calls.push("resolve");
        throw new Error("Resource not accessible by integration");
      },
    };
    const done = await applyThreadWrites(
      octokit as never,
      { owner: "o", repo: "r", pullNumber: 1 },
      [{ kind: "close", commentId: 5, findingId: "x", body: "b" }],
      pino({ level: "silent" }),
    );
    expect(calls).toEqual(["edit 5", "resolve"]);
    // the comment was edited (an applied close, audited), the thread left as it was
    expect(done).toEqual({
      closed: 0,
      reopened: 0,
      applied: [{ kind: "close", commentId: 5, findingId: "x", body: "b" }],
    });
  });
});

let h: Harness;
let scanMs = 800;
beforeAll(async () => {
  h = await startHarness({
    sandbox: { scenario: TRIAGE_SCENARIO, scanDurationMs: () => scanMs, retryAfterSeconds: 1 },
    boot: {
      Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({
        ...o,
        throttle: { ...(o.throttle as object), enabled: false },
      })) as typeof ProbotOctokit,
    },
  });
});
afterAll(async () => {
  await h?.close();
});

function setScenario(change: (s: Scenario) => Scenario) {
  h.sandbox.state.scenario = change(structuredClone(h.sandbox.state.scenario!));
}

describe("findings that close themselves (sandbox and GitHub stand-in)", () => {
  it("a finding fixed by a later push has its thread resolved without a command, and reopens when reported again", async () => {
    const original = structuredClone(h.sandbox.state.scenario!);
    const pr = await openReportedPull(h, 301);
    const secretId = pr.byTitle.get(SECRET)!;
    const rootId = pr.comments.get(secretId)!;
    const thread = () =>
      h.github.state.threads(pr.owner, pr.repo, pr.pullNumber).find((t) => t.rootCommentId === rootId)!;
    const comment = () => h.github.state.reviewComments(pr.owner, pr.repo).find((c) => c.id === rootId)!;
    expect(thread().isResolved).toBe(false);

    setScenario((s) => ({ ...s, findings: s.findings.filter((x) => x.title !== SECRET) }));
    const second = await pushAndReport(h, pr);
    await h.waitFor(() => thread().isResolved || undefined, 20_000, "thread resolved");
    expect(comment().body).toContain(`Not reported by the scan of \`${second.head.slice(0, 7)}\``);
    expect(comment().body.startsWith(`<!-- diffward:finding=${encodeURIComponent(secretId)} `)).toBe(true);
    // diffward never sets RESOLVED on the service by itself
    expect(h.sandbox.state.findings.get(secretId)!.resolutionStatus).toBe("NOT_STARTED");
    // the findings still reported keep their threads open
    const sqliRoot = pr.comments.get(pr.byTitle.get(SQLI)!)!;
    expect(
      h.github.state.threads(pr.owner, pr.repo, pr.pullNumber).find((t) => t.rootCommentId === sqliRoot)!
        .isResolved,
    ).toBe(false);

    h.sandbox.state.scenario = original;
    const third = await pushAndReport(h, pr);
    await h.waitFor(() => !thread().isResolved || undefined, 20_000, "thread reopened");
    expect(comment().body).not.toContain("Not reported by the scan");
    expect(comment().body).toContain(encodeURIComponent(third.byTitle.get(SECRET)!.id));
    expect(checkOf(h, { ...pr, headSha: third.head }).conclusion).toBe("failure");
    expect(h.github.violations()).toEqual([]);
  });

  it("a scan that ran short of its budget closes nothing", async () => {
    const original = structuredClone(h.sandbox.state.scenario!);
    const pr = await openReportedPull(h, 302);
    const rootId = pr.comments.get(pr.byTitle.get(RATE)!)!;
    // the next scan would need far more than any budget: it stops early, its coverage is partial
    setScenario((s) => ({
      ...s,
      spendCredits: 1_000_000,
      findings: s.findings.filter((x) => x.title !== RATE),
    }));
    try {
      const second = await pushAndReport(h, pr);
      expect(second.byTitle.has(RATE)).toBe(false);
      const report = await h.booted.rt.state.getJson<{ extras?: { credits?: { ranShort?: boolean } } }>(
        "report",
        `${pr.owner}/${pr.repo}#${pr.pullNumber}`,
      );
      expect(report?.extras?.credits, JSON.stringify(report?.extras)).toMatchObject({ ranShort: true });
      const thread = h.github.state
        .threads(pr.owner, pr.repo, pr.pullNumber)
        .find((t) => t.rootCommentId === rootId)!;
      expect(thread.isResolved).toBe(false);
      const body = h.github.state.reviewComments(pr.owner, pr.repo).find((c) => c.id === rootId)!.body;
      expect(body).not.toContain("Not reported");
    } finally {
      h.sandbox.state.scenario = original;
    }
  });
});

describe("the service's discussion in the pull request", () => {
  const teamNote = {
    id: "note_team_1",
    body: "Confirmed by the pentest. See @alice's write-up in #42 <script>x</script>\n\n```sql\nSELECT 1 -- `x`\n```",
    createdAtMs: Date.parse("2026-02-03T10:00:00Z"),
    author: { id: "usr_dana", name: "Dana (AppSec)", email: "dana@corp.example" },
  };

  it("on each report, the finding comment shows the notes written in the service, safely, in a collapsed block", async () => {
    const pr = await openReportedPull(h, 303);
    scanMs = 60_000; // the next scan runs until it is completed by hand, so the team's note lands first
    try {
      const head = await pushHead(h, pr);
      const scan = await h.waitFor(
        () => [...h.sandbox.state.scans.values()].find((s) => s.commitHash === head),
        20_000,
        "scan launched",
      );
      h.sandbox.state.completeNow(scan.id);
      const sqli = [...h.sandbox.state.findings.values()].find(
        (f) => f.scanId === scan.id && f.title === SQLI,
      )!;
      sqli.notes.push(teamNote);
      await waitForReport(h, pr, head);
    } finally {
      scanMs = 800;
    }
    const rootId = pr.comments.get(pr.byTitle.get(SQLI)!)!;
    const body = h.github.state.reviewComments(pr.owner, pr.repo).find((c) => c.id === rootId)!.body;
    expect(body).toContain("<details><summary>Discussion in the scanning service (1 note)</summary>");
    expect(body).toContain("**Dana (AppSec)** · 2026-02-03");
    expect(body).toContain("Confirmed by the pentest.");
    expect(body).not.toContain("dana@corp.example");
    expect(body).not.toMatch(/@alice|#42|(?<!\\)<script>/); // `\<` is an escaped, literal `<`
    expect(h.github.violations()).toEqual([]);
  });

  it("a command's comment refresh shows them too, without diffward's own signed notes", async () => {
    const pr = await openReportedPull(h, 304);
    const id = pr.byTitle.get(RATE)!;
    h.sandbox.state.findings.get(id)!.notes.push(teamNote);
    const parentId = pr.comments.get(id)!;
    h.github.state.setPermission(pr.owner, pr.repo, "octo-writer", "write");
    await h.send(
      "pull_request_review_comment",
      writeReviewReply(h, { ...pr, parentId, login: "octo-writer", body: "/note tracked in JIRA-7" }),
    );
    await nextAnswer(h, () => threadAnswers(h, pr, parentId), 0, "answer to /note");
    const body = await h.waitFor(() => {
      const b = h.github.state.reviewComments(pr.owner, pr.repo).find((c) => c.id === parentId)!.body;
      return b.includes("Discussion in the scanning service") ? b : undefined;
    });
    expect(body).toContain("(1 note)");
    expect(body).toContain("Dana (AppSec)");
    expect(body).not.toContain("tracked in JIRA-7"); // diffward's own note is already in the thread
  });
});
