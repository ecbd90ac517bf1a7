import type { AuditEntry } from "../../src/stores/audit-log.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import type { Scenario } from "../../dev/sandbox/schemas.js";
import {
  TRIAGE_SCENARIO,
  checkOf,
  nextAnswer,
  openReportedPull,
  pushAndReport,
  pushHead,
  threadAnswers,
  waitForReport,
  SQLI,
  SECRET,
  RATE,
} from "../support/reported-pull.js";
import { writeReviewReply } from "../../dev/harness/triage.js";
import { UnthrottledOctokit } from "../support/octokit.js";

let h: Harness;
let scanMs = 800;
beforeAll(async () => {
  h = await startHarness({
    sandbox: { scenario: TRIAGE_SCENARIO, scanDurationMs: () => scanMs, retryAfterSeconds: 1 },
    boot: {
      Octokit: UnthrottledOctokit,
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

    // the audit trail has the auto-close and the reopening, by diffward's bot, the resolution untouched
    const trail = await h.waitFor(async () => {
      const all: AuditEntry[] = [];
      for await (const e of h.booted.rt.stores.audit.read({ repository: `${pr.owner}/${pr.repo}` }))
        if (e.pullNumber === pr.pullNumber) all.push(e);
      return all.length >= 2 ? all : undefined;
    });
    const bot = await h.booted.rt.botLogin();
    expect(trail).toEqual([
      expect.objectContaining({
        findingId: secretId,
        actor: bot,
        action: "auto-close",
        source: "auto-close",
        outcome: "applied",
        detail: expect.stringContaining(`of ${second.head}: comment marked, review thread resolved`),
      }),
      // the finding reported again, under its id in the new scan
      expect.objectContaining({
        findingId: third.byTitle.get(SECRET)!.id,
        actor: bot,
        action: "reopen",
        source: "auto-close",
      }),
    ]);
    expect(trail[0]).not.toHaveProperty("to");
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
      const report = await h.booted.rt.stores.reports.get(`${pr.owner}/${pr.repo}#${pr.pullNumber}`);
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
