import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { alertPayload, dismissAlertAs, reopenAlertAs } from "../../dev/harness/code-scanning.js";
import { writeConversationComment, writeReviewReply } from "../../dev/harness/triage.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { mergeGroupPayload, sarifSchemaErrors } from "../../dev/github-standin/index.js";
import { type AuditEntry } from "../../src/stores/audit-log.js";
import { jobId, pullKey } from "../../src/runtime/names.js";
import { readDecisions } from "../../src/triage/decisions.js";
import { completedRun, openPull, pushPull, sha } from "../support/pr.js";
import { TRIAGE_SCENARIO, nextAnswer, sandboxFinding, SQLI, SECRET } from "../support/reported-pull.js";
import { queuedPull } from "../support/merge-group.js";
import { UnthrottledOctokit } from "../support/octokit.js";
import { WRITER, waitEventJob } from "../support/commands.js";

const READER = "octo-reader";
const UPLOAD_ON = "codeScanning:\n  upload: true";
/** A private repository's config without `disclosure`: the effective disclosure is `full`. */
const privateConfig = () => demoConfig(UPLOAD_ON).replace("disclosure: full\n", "");

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    sandbox: { scenario: TRIAGE_SCENARIO, scanDurationMs: 1_000, retryAfterSeconds: 1 },
    boot: {
      Octokit: UnthrottledOctokit,
    },
  });
});
afterAll(async () => h?.close());

let n = 0;
/** Opens a private pull request with `codeScanning.upload: true` and waits for its report. */
async function reportedPull(config = privateConfig(), isPrivate = true) {
  n += 1;
  const head = sha(0x5a00 + n);
  const pr = await openPull(h, {
    head,
    repo: `cs-${n}`,
    private: isPrivate,
    config,
    permissions: { [WRITER]: "write", [READER]: "read" },
  });
  const run = await completedRun(h, pr.owner, pr.repo, head);
  const byTitle = new Map<string, string>();
  for (const f of h.sandbox.state.findings.values()) if (f.commitHash === head) byTitle.set(f.title, f.id);
  return { ...pr, head, run, byTitle };
}
type Pull = Awaited<ReturnType<typeof reportedPull>>;

/** The audit trail's entries of a pull request's repository, oldest first. */
async function auditOf(pr: { owner: string; repo: string }): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  for await (const e of h.booted.rt.stores.audit.read({ repository: `${pr.owner}/${pr.repo}` })) out.push(e);
  return out;
}

const alerts = (pr: Pull) => h.github.state.codeScanningAlerts(pr.owner, pr.repo);
function alertOf(pr: Pull, title: string) {
  const id = pr.byTitle.get(title)!;
  return alerts(pr).find((a) => a.mostRecent.message.includes(id))!;
}

/** Sends a `code_scanning_alert` delivery and waits for its job's outcome. */
async function deliver(payload: Record<string, unknown>): Promise<unknown> {
  const id = randomUUID();
  expect((await h.send("code_scanning_alert", payload, id)).status).toBe(200);
  return (await waitEventJob(h, "alert", id)).value;
}

/** Deletes diffward's own Redis state (reports, decisions, claims), leaving BullMQ's queues. */
async function flushState(): Promise<number> {
  const keys = (await h.booted.rt.redis.keys(`${h.prefix}:*`)).filter((k) => !k.includes(":diffward-"));
  if (keys.length) await h.booted.rt.redis.del(...keys);
  return keys.length;
}

describe("code scanning: uploads", () => {
  it("a private repository's report makes ONE upload, valid SARIF 2.1.0, one result per open finding", async () => {
    const pr = await reportedPull();
    const uploads = h.github.state.sarifUploads(pr.owner, pr.repo);
    expect(uploads).toHaveLength(1);
    const u = uploads[0]!;
    expect(u).toMatchObject({ ref: `refs/pull/${pr.number}/head`, commitSha: pr.head, toolName: "diffward" });
    expect(sarifSchemaErrors(u.log)).toEqual([]);
    const results = (u.log as { runs: Array<{ results: unknown[] }> }).runs[0]!.results;
    expect(results).toHaveLength(pr.byTitle.size); // every finding of the scenario is open
    expect(alerts(pr)).toHaveLength(pr.byTitle.size);
    expect(alertOf(pr, SQLI).securitySeverityLevel).toBe("critical");
    expect(pr.run.output.summary).toContain("### Code scanning");
    expect(pr.run.output.summary).toContain("security/code-scanning?query=pr%3A");
    expect(h.github.violations()).toEqual([]);

    // a new push: one more upload; the alerts follow their findings (same numbers, new instance)
    const numbers = alerts(pr).map((a) => a.number);
    await pushPull(h, pr, sha(0x5aff));
    await completedRun(h, pr.owner, pr.repo, sha(0x5aff));
    expect(h.github.state.sarifUploads(pr.owner, pr.repo)).toHaveLength(2);
    expect(alerts(pr).map((a) => a.number)).toEqual(numbers);
    expect(alerts(pr).every((a) => a.mostRecent.commitSha === sha(0x5aff))).toBe(true);
  });

  it("nothing is uploaded under an effective disclosure: summary, and the check run says why", async () => {
    const pr = await reportedPull(demoConfig(UPLOAD_ON).replace("disclosure: full\n", ""), false);
    expect(h.github.state.sarifUploads(pr.owner, pr.repo)).toHaveLength(0);
    expect(pr.run.output.summary).toContain("### Code scanning");
    expect(pr.run.output.summary).toContain("`disclosure` is `summary`");
  });

  it("a repository without code scanning refuses the upload (403): the report completes and says so", async () => {
    n += 1;
    const head = sha(0x5b00 + n);
    const pr = await openPull(h, {
      head,
      repo: `cs-${n}`,
      private: true,
      config: privateConfig(),
      send: false,
    });
    h.github.state.setCodeScanningEnabled(pr.owner, pr.repo, false);
    await h.send("pull_request", pr.payload);
    const run = await completedRun(h, pr.owner, pr.repo, head);
    expect(run.conclusion).toBe("failure"); // the scenario's blocking findings, reported as usual
    expect(h.github.state.sarifUploads(pr.owner, pr.repo)).toHaveLength(0);
    expect(run.output.summary).toContain("GitHub refused the upload to code scanning");
    expect(run.output.summary).toContain("`security_events`");
    const posts = h.github.requests.filter(
      (r) => r.method === "POST" && r.path === `/repos/${pr.owner}/${pr.repo}/code-scanning/sarifs`,
    );
    expect(posts.map((r) => r.status)).toEqual([403]); // once, never retried
  });

  it("without codeScanning.upload nothing is uploaded and the summary says nothing of it", async () => {
    const pr = await reportedPull(demoConfig());
    expect(h.github.state.sarifUploads(pr.owner, pr.repo)).toHaveLength(0);
    expect(pr.run.output.summary).not.toContain("Code scanning");
  });
});

describe("code scanning: triage kept in step", () => {
  it("a dismissal on GitHub changes exactly that finding, once, and also after a Redis flush", async () => {
    const pr = await reportedPull();
    const others = [...pr.byTitle.keys()].filter((t) => t !== SQLI);
    const before = new Map(others.map((t) => [t, sandboxFinding(h, pr, t).resolutionStatus]));
    const target = { owner: pr.owner, repo: pr.repo, alertNumber: alertOf(pr, SQLI).number };
    expect(await flushState()).toBeGreaterThan(0);
    const payload = dismissAlertAs(h, {
      ...target,
      login: WRITER,
      reason: "used in tests",
      comment: "Only the test fixtures call this, cc @octo-lead",
    });
    expect(await deliver(payload)).toBe("set");
    const f = sandboxFinding(h, pr, SQLI);
    expect(f.resolutionStatus).toBe("WONT_FIX");
    // the service records the reason as a note of its own (spec rule 1), then diffward's note follows
    const notes = f.notes.map((x) => x.body);
    expect(notes).toEqual([
      expect.stringContaining("out_of_scope"),
      expect.stringContaining(`\`${WRITER}\``),
    ]);
    expect(notes[1]).toContain("Only the test fixtures call this");
    expect(notes[1]).not.toMatch(/@octo-lead/);
    for (const t of others) expect(sandboxFinding(h, pr, t).resolutionStatus).toBe(before.get(t));
    const decision = (await readDecisions(h.booted.rt, pullKey(pr.owner, pr.repo, pr.number))).find(
      (d) => d.findingId === f.id,
    );
    expect(decision).toMatchObject({ resolutionStatus: "WONT_FIX", reason: "out_of_scope", by: WRITER });

    // the same event again (a second delivery): nothing changes a second time
    expect(await deliver(alertPayload(h, { ...target, action: "closed_by_user", login: WRITER }))).toBe(
      "unchanged",
    );
    expect(sandboxFinding(h, pr, SQLI).notes).toHaveLength(2);

    // reopening on GitHub puts it back to NOT_STARTED
    expect(await deliver(reopenAlertAs(h, { ...target, login: WRITER }))).toBe("set");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
  });

  it("a sender below commands.minPermission changes nothing", async () => {
    const pr = await reportedPull();
    const payload = dismissAlertAs(h, {
      owner: pr.owner,
      repo: pr.repo,
      alertNumber: alertOf(pr, SECRET).number,
      login: READER,
      reason: "false positive",
    });
    expect(await deliver(payload)).toBe("permission-refused");
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("NOT_STARTED");
    expect(sandboxFinding(h, pr, SECRET).notes).toHaveLength(0);
    // the refusal is in the audit trail (the finding is not read before the permission check)
    expect(await auditOf(pr)).toEqual([
      expect.objectContaining({
        actor: READER,
        action: "resolve",
        to: "FALSE_POSITIVE",
        source: "code-scanning",
        outcome: "refused",
        detail: `code scanning alert #${payload.alert.number}: the sender's permission read is below commands.minPermission (write)`,
      }),
    ]);
  });

  it("/fp in the pull request dismisses exactly that alert, once, and its echo is ignored", async () => {
    const pr = await reportedPull();
    const review = h.github.state
      .reviewComments(pr.owner, pr.repo, pr.number)
      .find((c) => c.inReplyToId === null && c.body.includes(pr.byTitle.get(SQLI)!))!;
    const answers = () =>
      h.github.state
        .reviewComments(pr.owner, pr.repo, pr.number)
        .filter((c) => c.inReplyToId === review.id && c.user.type === "Bot");
    const patches = () =>
      h.github.requests.filter((r) => r.method === "PATCH" && r.route?.includes("code-scanning/alerts"));

    const fp = writeReviewReply(h, {
      owner: pr.owner,
      repo: pr.repo,
      pullNumber: pr.number,
      parentId: review.id,
      login: WRITER,
      body: "/fp guarded_elsewhere",
    });
    expect((await h.send("pull_request_review_comment", fp)).status).toBe(200);
    await nextAnswer(h, answers, 0, "answer to /fp");
    const alert = alertOf(pr, SQLI);
    expect(alert.state).toBe("dismissed");
    expect(alert.dismissedReason).toBe("false positive");
    expect(alert.dismissedComment).toMatch(/^diffward: resolution False positive/);
    expect(alerts(pr).filter((a) => a.state === "dismissed")).toEqual([alert]);
    expect(patches()).toHaveLength(1);

    // GitHub's echo of diffward's own dismissal: the bot is the sender; nothing comes back
    const notesBefore = sandboxFinding(h, pr, SQLI).notes.length;
    const echo = alertPayload(h, {
      owner: pr.owner,
      repo: pr.repo,
      alertNumber: alert.number,
      action: "closed_by_user",
      login: "diffward[bot]",
      type: "Bot",
    });
    const id = randomUUID();
    expect((await h.send("code_scanning_alert", echo, id)).status).toBe(200);
    expect(await h.booted.rt.queues.events.getJob(jobId("alert", id))).toBeUndefined();
    // even if it reached the job, the `diffward:` comment marks it as diffward's own
    expect(await deliver({ ...echo, sender: { ...echo.sender, login: WRITER, type: "User" } })).toBe(
      "ignored",
    );
    expect(sandboxFinding(h, pr, SQLI).notes).toHaveLength(notesBefore);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("FALSE_POSITIVE");

    // a second /fp writes nothing more to the alert; /reopen reopens it
    const again = writeReviewReply(h, {
      owner: pr.owner,
      repo: pr.repo,
      pullNumber: pr.number,
      parentId: review.id,
      login: WRITER,
      body: "/fp",
    });
    expect((await h.send("pull_request_review_comment", again)).status).toBe(200);
    await nextAnswer(h, answers, 1, "answer to the second /fp");
    expect(patches()).toHaveLength(1);
    const reopen = writeReviewReply(h, {
      owner: pr.owner,
      repo: pr.repo,
      pullNumber: pr.number,
      parentId: review.id,
      login: WRITER,
      body: "/reopen",
    });
    expect((await h.send("pull_request_review_comment", reopen)).status).toBe(200);
    await nextAnswer(h, answers, 2, "answer to /reopen");
    expect(alertOf(pr, SQLI).state).toBe("open");
    expect(patches()).toHaveLength(2);
    expect(h.github.violations()).toEqual([]);
  });

  it("with triage.approval, a held /fp leaves the alert open; the approval dismisses it, once, with no echo", async () => {
    const MAINTAINER = "octo-maintainer";
    const approvalConfig =
      privateConfig() + "\ntriage:\n  approval:\n    minSeverity: high\n    approvers: maintain\n";
    n += 1;
    const head = sha(0x5c00 + n);
    const opened = await openPull(h, {
      head,
      repo: `cs-${n}`,
      private: true,
      config: approvalConfig,
      permissions: { [WRITER]: "write", [MAINTAINER]: "maintain" },
    });
    await completedRun(h, opened.owner, opened.repo, head);
    const byTitle = new Map<string, string>();
    for (const f of h.sandbox.state.findings.values()) if (f.commitHash === head) byTitle.set(f.title, f.id);
    const pr = { ...opened, head, byTitle } as unknown as Pull;
    const review = h.github.state
      .reviewComments(pr.owner, pr.repo, pr.number)
      .find((c) => c.inReplyToId === null && c.body.includes(pr.byTitle.get(SECRET)!))!;
    const answers = () =>
      h.github.state
        .reviewComments(pr.owner, pr.repo, pr.number)
        .filter((c) => c.inReplyToId === review.id && c.user.type === "Bot");
    const alertPatches = () =>
      h.github.requests.filter(
        (r) =>
          r.method === "PATCH" &&
          r.route?.includes("code-scanning/alerts") &&
          r.path.startsWith(`/repos/${pr.owner}/${pr.repo}/`),
      );
    const say = async (login: string, body: string, count: number) => {
      const p = writeReviewReply(h, {
        owner: pr.owner,
        repo: pr.repo,
        pullNumber: pr.number,
        parentId: review.id,
        login,
        body,
      });
      expect((await h.send("pull_request_review_comment", p)).status).toBe(200);
      return nextAnswer(h, answers, count, `answer to ${body}`);
    };

    const held = await say(WRITER, "/fp not_reachable", 0);
    expect(held.body).toContain("**Approval requested**");
    expect(alertOf(pr, SECRET).state).toBe("open");
    expect(alertPatches()).toHaveLength(0);

    await say(MAINTAINER, "/approve", 1);
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("FALSE_POSITIVE");
    const alert = alertOf(pr, SECRET);
    expect(alert.state).toBe("dismissed");
    expect(alert.dismissedReason).toBe("false positive");
    expect(alert.dismissedComment).toBe(
      `diffward: resolution False positive (not_reachable) set from the pull request by GitHub user ${WRITER}, approved by GitHub user ${MAINTAINER}.`,
    );
    expect(alerts(pr).filter((a) => a.state === "dismissed")).toEqual([alert]);
    expect(alertPatches()).toHaveLength(1);

    // GitHub's echo of that dismissal changes nothing on the service
    const notesBefore = sandboxFinding(h, pr, SECRET).notes.length;
    const echo = alertPayload(h, {
      owner: pr.owner,
      repo: pr.repo,
      alertNumber: alert.number,
      action: "closed_by_user",
      login: MAINTAINER,
    });
    expect(echo.alert.dismissed_comment).toBe(alert.dismissedComment);
    expect(await deliver(echo)).toBe("ignored");
    expect(sandboxFinding(h, pr, SECRET).notes).toHaveLength(notesBefore);
    expect(alertPatches()).toHaveLength(1);
    expect(h.github.violations()).toEqual([]);
  });

  it("with triage.approval, a writer's dismissal on GitHub is held: alert reopened, request announced once, approved from the PR", async () => {
    const MAINTAINER = "octo-maintainer";
    n += 1;
    const head = sha(0x5d00 + n);
    const opened = await openPull(h, {
      head,
      repo: `cs-${n}`,
      private: true,
      config: privateConfig() + "\ntriage:\n  approval:\n    minSeverity: high\n    approvers: maintain\n",
      permissions: { [WRITER]: "write", [MAINTAINER]: "maintain" },
    });
    await completedRun(h, opened.owner, opened.repo, head);
    const byTitle = new Map<string, string>();
    for (const f of h.sandbox.state.findings.values()) if (f.commitHash === head) byTitle.set(f.title, f.id);
    const pr = { ...opened, head, byTitle } as unknown as Pull;
    const target = { owner: pr.owner, repo: pr.repo, alertNumber: alertOf(pr, SECRET).number };
    const announcements = () =>
      h.github.state
        .issueComments(pr.owner, pr.repo)
        .filter(
          (c) =>
            c.issueNumber === pr.number && c.user.type === "Bot" && c.body.includes("approval requested"),
        );

    const payload = dismissAlertAs(h, {
      ...target,
      login: WRITER,
      reason: "false positive",
      comment: "not reachable",
    });
    expect(await deliver(payload)).toBe("approval-requested");
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("NOT_STARTED");
    expect(sandboxFinding(h, pr, SECRET).notes).toHaveLength(0);
    expect(alertOf(pr, SECRET).state).toBe("open");
    expect(announcements()).toHaveLength(1);
    const label = `SC-${pr.byTitle.get(SECRET)!.slice(-8)}`;
    expect(announcements()[0]!.body).toContain(`/diffward approve ${label}`);
    // the same event delivered again: nothing more is posted or set
    expect(await deliver(payload)).toBe("approval-requested");
    expect(announcements()).toHaveLength(1);
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("NOT_STARTED");

    // a maintainer approves from the pull request: the resolution is set and the alert dismissed again
    const botComments = () =>
      h.github.state
        .issueComments(pr.owner, pr.repo)
        .filter((c) => c.issueNumber === pr.number && c.user.type === "Bot");
    const before = botComments().length;
    const approve = writeConversationComment(h, {
      owner: pr.owner,
      repo: pr.repo,
      pullNumber: pr.number,
      login: MAINTAINER,
      body: `/diffward approve ${label}`,
    });
    expect((await h.send("issue_comment", approve)).status).toBe(200);
    const answer = await nextAnswer(h, botComments, before, "answer to /diffward approve");
    expect(answer.body).toContain("is now **False positive**");
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("FALSE_POSITIVE");
    expect(
      sandboxFinding(h, pr, SECRET)
        .notes.map((x) => x.body)
        .join("\n"),
    ).toContain("not reachable");
    await h.waitFor(() => alertOf(pr, SECRET).state === "dismissed" || undefined, 20_000, "alert dismissed");
    expect(alertOf(pr, SECRET).dismissedComment).toContain(`approved by GitHub user ${MAINTAINER}`);
    expect(h.github.violations()).toEqual([]);
    // the audit trail: the dismissal on GitHub held (each delivery of it), then approved from the pull request
    const held = {
      findingId: pr.byTitle.get(SECRET),
      pullNumber: pr.number,
      actor: WRITER,
      action: "approval-request",
      from: "NOT_STARTED",
      to: "FALSE_POSITIVE",
      reason: "not reachable",
      source: "code-scanning",
      outcome: "held",
    };
    const trail = await h.waitFor(async () => ((await auditOf(pr)).length >= 3 ? auditOf(pr) : undefined));
    expect(trail).toEqual([
      expect.objectContaining(held),
      expect.objectContaining(held),
      expect.objectContaining({
        findingId: pr.byTitle.get(SECRET),
        actor: WRITER,
        approver: MAINTAINER,
        action: "approve",
        to: "FALSE_POSITIVE",
        source: "command",
        outcome: "applied",
      }),
    ]);
  });
  /**
   * A merge group's report with `triage.approval` (plus `approvalExtra`, and `codeowners` as the base
   * branch's `.github/CODEOWNERS` when given), and the alert of its secret finding.
   */
  async function groupAlert(approvalExtra = "", codeowners?: string) {
    n += 1;
    const MAINTAINER = "octo-maintainer";
    const base = sha(0x5e00 + n * 4);
    const { pr: opened, group } = queuedPull(
      h,
      {
        head: sha(0x5e01 + n * 4),
        repo: `cs-${n}`,
        private: true,
        config:
          privateConfig().replace(UPLOAD_ON, `${UPLOAD_ON}\nmergeQueue: scan`) +
          `\ntriage:\n  approval:\n    minSeverity: high\n    approvers: maintain\n${approvalExtra}`,
        permissions: { [WRITER]: "write", [MAINTAINER]: "maintain" },
      },
      { head: sha(0x5e02 + n * 4), base: base },
    );
    if (codeowners !== undefined)
      h.github.state.setFile(
        opened.owner,
        opened.repo,
        h.github.state.repository(opened.owner, opened.repo)!.defaultBranch,
        ".github/CODEOWNERS",
        codeowners,
      );
    await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
    await completedRun(h, opened.owner, opened.repo, group.headSha, 30_000);
    const secretId = [...h.sandbox.state.findings.values()].find(
      (f) => f.commitHash === group.headSha && f.title === SECRET,
    )!.id;
    const alert = await h.waitFor(
      () => alerts(opened as unknown as Pull).find((a) => a.mostRecent.message.includes(secretId)),
      10_000,
      "the merge group's alert",
    );
    const target = { owner: opened.owner, repo: opened.repo, alertNumber: alert.number };
    const secret = () => h.sandbox.state.findings.get(secretId)!;
    return { opened, group, secretId, alert, target, secret, MAINTAINER };
  }

  it("with triage.approval, a writer's dismissal of a merge group's alert (no pull request ref) is reopened with a note on the finding saying why and how, and the same on the pull request its ref names, once", async () => {
    const { opened, group, secretId, alert, target, secret, MAINTAINER } = await groupAlert();
    expect(alert.mostRecent.ref).toBe(group.headRef);
    const botComments = () =>
      h.github.state.issueComments(opened.owner, opened.repo).filter((c) => c.user.type === "Bot");

    const payload = dismissAlertAs(h, {
      ...target,
      login: WRITER,
      reason: "false positive",
      comment: "not reachable",
    });
    expect(await deliver(payload)).toBe("approval-requested");
    expect(alert.state).toBe("open");
    expect(secret().resolutionStatus).toBe("NOT_STARTED");
    // the trace: a note on the finding (the service is where the finding's history is kept)
    const label = `SC-${secretId.slice(-8)}`;
    expect(secret().notes).toHaveLength(1);
    const note = secret().notes[0]!.body;
    expect(note).toContain(`\`${WRITER}\``);
    expect(note).toContain(`alert #${alert.number}`);
    expect(note).toContain(group.headRef);
    expect(note).toContain("False positive");
    expect(note).toContain("not reachable");
    expect(note).toMatch(/approval/i);
    expect(note).toContain("`maintain`");
    expect(note).toContain(label);
    expect(note).toContain(`pull request #${opened.number}`); // the pull request the merge group's ref names
    expect(note).toContain("`/fp`");
    expect(note).toMatch(/reopened/i);
    // and the same text in the conversation of the pull request the merge group's ref names
    expect(botComments().map((c) => [c.issueNumber, c.body])).toEqual([[opened.number, note]]);
    // the same event delivered again: no second note
    expect(await deliver(payload)).toBe("approval-requested");
    expect(secret().notes).toHaveLength(1);
    expect(botComments()).toHaveLength(1);
    // a maintainer's own dismissal needs no approval and goes through
    expect(await deliver(dismissAlertAs(h, { ...target, login: MAINTAINER, reason: "false positive" }))).toBe(
      "set",
    );
    expect(secret().resolutionStatus).toBe("FALSE_POSITIVE");
    expect(h.github.violations()).toEqual([]);
  });

  it("with triage.approval.codeowners, a merge group's held dismissal names the code owners of the base branch that an approval needs", async () => {
    const { opened, target, secret } = await groupAlert("    codeowners: true\n", "* @Octo-Dana\n");
    const payload = dismissAlertAs(h, { ...target, login: WRITER, reason: "false positive" });
    expect(await deliver(payload)).toBe("approval-requested");
    const note = secret().notes[0]!.body;
    expect(note).toContain("The approver must also be a code owner of");
    expect(note).toContain("`.github/CODEOWNERS`");
    expect(note).toContain("`@Octo-Dana`");
    expect(secret().resolutionStatus).toBe("NOT_STARTED");
    const trail = await h.waitFor(async () =>
      (await auditOf(opened)).length > 0 ? auditOf(opened) : undefined,
    );
    expect(trail).toEqual([
      expect.objectContaining({ action: "approval-request", outcome: "held", codeOwners: expect.anything() }),
    ]);
    expect(h.github.violations()).toEqual([]);
  });
});

/** Last in the file: they leave alert writes behind that tests counting every alert PATCH would see. */
describe("code scanning: acceptances that expire", () => {
  /** Replies `/wontfix risk_accepted until <ms from now>` under the SQL injection's comment; returns the moment. */
  async function acceptBriefly(pr: Pull, ms: number): Promise<number> {
    const until = new Date(Date.now() + ms).toISOString().replace(/\.\d{3}Z$/, "Z");
    const review = h.github.state
      .reviewComments(pr.owner, pr.repo, pr.number)
      .find((c) => c.inReplyToId === null && c.body.includes(pr.byTitle.get(SQLI)!))!;
    const body = `/wontfix risk_accepted until ${until}`;
    const reply = writeReviewReply(h, {
      ...pr,
      pullNumber: pr.number,
      parentId: review.id,
      login: WRITER,
      body,
    });
    expect((await h.send("pull_request_review_comment", reply)).status).toBe(200);
    await h.waitFor(() => alertOf(pr, SQLI).state === "dismissed" || undefined, 10_000, "alert dismissed");
    return Date.parse(until);
  }

  it("an acceptance's expiry reopens the alert its /wontfix dismissed, at its moment", async () => {
    const pr = await reportedPull();
    const at = await acceptBriefly(pr, 4_000);
    expect(alertOf(pr, SQLI).dismissedReason).toBe("won't fix");
    await h.waitFor(() => alertOf(pr, SQLI).state === "open" || undefined, 15_000, "alert reopened");
    expect(Date.now()).toBeGreaterThanOrEqual(at);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
  });

  it("a dismissal on GitHub before the moment cancels the acceptance's expiry", async () => {
    const pr = await reportedPull();
    const at = await acceptBriefly(pr, 4_000);
    const target = { owner: pr.owner, repo: pr.repo, alertNumber: alertOf(pr, SQLI).number };
    // the dismissal's reason changed in GitHub's UI: won't fix → false positive
    expect(await deliver(dismissAlertAs(h, { ...target, login: WRITER, reason: "false positive" }))).toBe(
      "set",
    );
    await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now()) + 2_000));
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("FALSE_POSITIVE");
    expect(sandboxFinding(h, pr, SQLI).notes.some((x) => x.body.includes("expired on"))).toBe(false);
    expect(alertOf(pr, SQLI).state).toBe("dismissed");
    // cancelled when the decision changed, not merely skipped at the moment
    const audit = [];
    for await (const e of h.booted.rt.stores.audit.read({}))
      if (e.findingId === pr.byTitle.get(SQLI)) audit.push([e.action, e.source, e.outcome]);
    expect(audit).toContainEqual(["expiry-cancelled", "code-scanning", "applied"]);
    expect(audit.filter(([action]) => action === "expire")).toEqual([]);
  });
});
