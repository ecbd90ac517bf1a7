import { describe, expect, it } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import { jobId } from "../../src/runtime/names.js";
import { writeConversationComment, writeReviewReply } from "../../dev/harness/triage.js";
import { readDecisions } from "../../src/triage/decisions.js";
import { findingLabel } from "../../src/scanner/labels.js";
import {
  checkOf,
  currentCheckRun,
  nextAnswer,
  openReportedPull,
  pushAndReport,
  threadAnswers,
  type ReportedPull,
  sandboxFinding,
  SQLI,
  SECRET,
  RATE,
} from "../support/reported-pull.js";
import { replyTo, sayIn, useCommandHarness, WRITER } from "../support/commands.js";

const READER = "octo-reader";

let h: Harness;
useCommandHarness((started) => (h = started), { publicUrl: "https://scanner.example" });

let nextPull = 100;
async function pull(): Promise<ReportedPull> {
  nextPull += 1;
  // Publishing has its own floor (commands.publishPermission, default admin, off on public repositories):
  // these pull requests let writers publish; test/e2e/command-fixes.test.ts covers the defaults.
  return openReportedPull(
    h,
    nextPull,
    { [WRITER]: "write", [READER]: "read" },
    "commands:\n  publishPermission: write",
  );
}

/** Replies `body` as `login` to diffward's comment of `title` and waits for diffward's answer. */
const reply = (pr: ReportedPull, title: string, body: string, login = WRITER) =>
  replyTo(h, pr, title, body, login);
/** Writes `body` in the conversation as `login` and waits for diffward's answer. */
const say = (pr: ReportedPull, body: string, login = WRITER) => sayIn(h, pr, body, login);

function notesOf(pr: ReportedPull, title: string): string[] {
  return sandboxFinding(h, pr, title).notes.map((n) => n.body);
}
function threadOf(pr: ReportedPull, title: string) {
  const rootId = pr.comments.get(pr.byTitle.get(title)!)!;
  return h.github.state.threads(pr.owner, pr.repo, pr.pullNumber).find((t) => t.rootCommentId === rootId)!;
}
function commentOf(pr: ReportedPull, title: string) {
  const id = pr.comments.get(pr.byTitle.get(title)!)!;
  return h.github.state.reviewComments(pr.owner, pr.repo).find((c) => c.id === id)!;
}

describe("reply commands in a finding's review thread", () => {
  it("triaging the last blocking findings turns the check green; /reopen turns it red again", async () => {
    const pr = await pull();
    expect(checkOf(h, pr).conclusion).toBe("failure");
    expect(pr.comments.size).toBe(3);

    const label = findingLabel(pr.byTitle.get(SQLI)!, "SC");
    const failureFor = (run: { annotations: Array<Record<string, unknown>> }) =>
      run.annotations.filter(
        (a) => a["annotation_level"] === "failure" && String(a["title"]).startsWith(`${label} `),
      );
    const before = await currentCheckRun(h, pr);
    expect(failureFor(before)).toHaveLength(1);
    const fp = await reply(pr, SQLI, "/FP not_reachable");
    // GitHub appends annotations: the ruled out finding's failure annotation is gone only because the
    // PR's current check run is a fresh one on the same head; the old run still carries it.
    const after = await currentCheckRun(h, pr);
    expect(after.id).not.toBe(before.id);
    expect(after.headSha).toBe(before.headSha);
    expect(failureFor(after)).toEqual([]);
    expect(after.annotations.length).toBeGreaterThan(0); // the others are still annotated
    expect(
      failureFor(h.github.state.checkRuns(pr.owner, pr.repo).find((c) => c.id === before.id)!),
    ).toHaveLength(1);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("FALSE_POSITIVE");
    // lone reason code → `reason` (the service records it as a note stating the code) + a signed note
    expect(notesOf(pr, SQLI).some((n) => n.includes("not_reachable"))).toBe(true);
    expect(notesOf(pr, SQLI).some((n) => n.includes(`@${WRITER}`))).toBe(true);
    // one voice: the answer, the finding's comment and the check run name the status the same way
    expect(fp.answer).toContain("is now **False positive**");
    expect(commentOf(pr, SQLI).body).toContain("**Decision:** False positive");
    expect(fp.answer).not.toContain("FALSE_POSITIVE");
    expect(fp.answer).toContain(
      "The `diffward` check is now **failing**: 3 findings: 2 open (1 blocking), 1 ruled out.",
    ); // SECRET still blocks
    expect(checkOf(h, pr).output.summary).toContain("3 findings: 2 open (1 blocking), 1 ruled out");
    expect(threadOf(pr, SQLI).isResolved).toBe(true);
    expect(commentOf(pr, SQLI).body).toContain("**Decision:**");
    expect(commentOf(pr, SQLI).body).toContain(`@${WRITER}`);
    const eyes = h.github.state
      .reactions(pr.owner, pr.repo)
      .filter((r) => r.commentId === fp.payload.comment.id && r.content === "eyes");
    expect(eyes).toHaveLength(1);

    await reply(pr, SECRET, "/wontfix risk_accepted rotated weekly by ops");
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("WONT_FIX");
    expect(checkOf(h, pr).conclusion).toBe("success");
    expect(checkOf(h, pr).output.title).toMatch(/No blocking findings/);

    const reopen = await reply(pr, SQLI, "/reopen the guard moved");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
    expect(notesOf(pr, SQLI).some((n) => n.includes("the guard moved") && n.includes(`@${WRITER}`))).toBe(
      true,
    );
    expect(threadOf(pr, SQLI).isResolved).toBe(false);
    expect(reopen.answer).toContain("**failing**");
    expect(checkOf(h, pr).conclusion).toBe("failure");
    expect(h.github.violations()).toEqual([]);
  });

  it("reason versus note: a code with text becomes one note stating both; a wrong-catalog code changes nothing", async () => {
    const pr = await pull();
    await reply(pr, SECRET, "/wontfix risk_accepted rotated weekly by ops");
    const notes = notesOf(pr, SECRET);
    expect(notes.some((n) => n.includes("Reason: `risk_accepted`. rotated weekly by ops"))).toBe(true);
    expect(notes.every((n) => !n.startsWith("Reason: `risk_accepted`.") || n.includes(`@${WRITER}`))).toBe(
      true,
    );

    const before = sandboxFinding(h, pr, SQLI).notes.length;
    const wrong = await reply(pr, SQLI, "/resolve not_reachable");
    expect(wrong.answer).toContain("nothing was changed");
    expect(wrong.answer).toContain("fixed_in_code");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
    expect(sandboxFinding(h, pr, SQLI).notes.length).toBe(before);

    await reply(pr, SQLI, "/resolve fixed_in_code");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("RESOLVED");
  });

  it("severity, note, in-progress, mitigate, duplicate, publish, help and unknown commands", async () => {
    const pr = await pull();
    const sev = await reply(pr, RATE, "/severity critical");
    expect(sandboxFinding(h, pr, RATE).severityOverride).toBe("CRITICAL");
    expect(sev.answer).toContain("set to **Critical**");
    expect(checkOf(h, pr).conclusion).toBe("failure");
    expect(commentOf(pr, RATE).body).toMatch(/critical/i);
    await reply(pr, RATE, "/severity reset");
    expect(sandboxFinding(h, pr, RATE).severityOverride).toBeNull();

    await reply(pr, RATE, "/note Looked at it with @security-team\nsecond line");
    expect(notesOf(pr, RATE).some((n) => n.includes("second line") && n.includes(`@${WRITER}`))).toBe(true);

    const ip = await reply(pr, RATE, "/in-progress fixing in #12");
    expect(sandboxFinding(h, pr, RATE).resolutionStatus).toBe("IN_PROGRESS");
    expect(notesOf(pr, RATE).some((n) => n.includes("fixing in #12"))).toBe(true);
    expect(ip.answer).toContain("added as a note");

    await reply(pr, RATE, "/mitigate monitored");
    expect(sandboxFinding(h, pr, RATE).resolutionStatus).toBe("MITIGATED");
    await reply(pr, SECRET, "/duplicate same_root_cause");
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("DUPLICATE");

    const pub = await reply(pr, SQLI, "/publish");
    expect(pub.answer).toMatch(/public artifact `[^`]+`/);
    expect(pub.answer).toContain("https://scanner.example/");
    expect(pub.answer).toContain("never asks for an access password");

    const help = await reply(pr, SQLI, "/help");
    expect(help.answer).toContain("/false-positive");
    expect(help.answer).toContain("compensating_control");
    const unknown = await reply(pr, SQLI, "/frobnicate");
    expect(unknown.answer).toContain("Unknown command `frobnicate`");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
  });

  it("a /severity without a level is answered with the valid levels", async () => {
    const pr = await pull();
    const res = await reply(pr, RATE, "/severity extreme");
    expect(res.answer).toContain("`critical`");
    expect(sandboxFinding(h, pr, RATE).severityOverride).toBeNull();
  });
});

describe("who may act", () => {
  it("below commands.minPermission: a polite refusal and nothing changed; help and status stay open", async () => {
    const pr = await pull();
    const notes = sandboxFinding(h, pr, SQLI).notes.length;
    const res = await reply(pr, SQLI, "/fp", READER);
    expect(res.answer).toContain("needs at least the `write` permission");
    expect(res.answer).toContain("nothing was changed");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
    expect(sandboxFinding(h, pr, SQLI).notes.length).toBe(notes);

    const pub = await say(pr, `/diffward publish ${pr.byTitle.get(SQLI)}`, READER);
    expect(pub.answer).toContain("needs at least");
    const status = await say(pr, "/diffward status", READER);
    expect(status.answer).toContain("diffward status");
    expect(status.answer).toContain("blocking");
    const help = await reply(pr, SQLI, "/help", READER);
    expect(help.answer).toContain("diffward commands");
  });

  it("comments by bots (diffward itself included) are never commands", async () => {
    const pr = await pull();
    const parentId = pr.comments.get(pr.byTitle.get(SQLI)!)!;
    h.github.state.setPermission(pr.owner, pr.repo, "diffward[bot]", "admin");
    const payload = writeReviewReply(h, {
      ...pr,
      parentId,
      login: "diffward[bot]",
      type: "Bot",
      body: "/fp",
    });
    const sent = await h.send("pull_request_review_comment", payload);
    expect(sent.status).toBe(200);
    // The handler finished before the delivery was acknowledged: no job was enqueued.
    expect(await h.booted.rt.queues.events.getJob(jobId("cmd", sent.id))).toBeUndefined();
    const conv = writeConversationComment(h, { ...pr, login: "renovate[bot]", body: "/diffward fp x" });
    const sent2 = await h.send("issue_comment", conv);
    expect(await h.booted.rt.queues.events.getJob(jobId("cmd", sent2.id))).toBeUndefined();
    // A human's plain text is not a command either.
    const text = writeReviewReply(h, { ...pr, parentId, login: WRITER, body: "thanks, will fix" });
    const sent3 = await h.send("pull_request_review_comment", text);
    expect(await h.booted.rt.queues.events.getJob(jobId("cmd", sent3.id))).toBeUndefined();
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
  });

  it("a redelivered webhook runs the command once", async () => {
    const pr = await pull();
    const parentId = pr.comments.get(pr.byTitle.get(SQLI)!)!;
    const payload = writeReviewReply(h, { ...pr, parentId, login: WRITER, body: "/note once only" });
    const first = await h.send("pull_request_review_comment", payload, "delivery-once-1");
    await nextAnswer(h, () => threadAnswers(h, pr, parentId), 0, "first answer");
    const job = await h.booted.rt.queues.events.getJob(jobId("cmd", first.id));
    // the answer is posted before the job's last steps (comment edit, check recompute): wait for the end
    await h.waitFor(async () => (await job!.isCompleted()) || undefined, 20_000, "first job to complete");
    // GitHub's "Redeliver" keeps the delivery id: BullMQ keeps the finished job, nothing runs again.
    await h.send("pull_request_review_comment", payload, "delivery-once-1");
    // A second delivery id for the same comment is caught by the comment claim.
    const other = await h.send("pull_request_review_comment", payload, "delivery-once-2");
    const otherJob = await h.waitFor(() => h.booted.rt.queues.events.getJob(jobId("cmd", other.id)));
    await h.waitFor(async () => (await otherJob.isCompleted()) || undefined, 20_000, "second job");
    const done = await h.booted.rt.queues.events.getJob(jobId("cmd", other.id));
    expect(done!.returnvalue).toBe("duplicate");
    expect(threadAnswers(h, pr, parentId)).toHaveLength(1);
    expect(notesOf(pr, SQLI).filter((n) => n.includes("once only"))).toHaveLength(1);
  });
});

describe("conversation commands", () => {
  it("a command whose job runs after the App was uninstalled is not answered, and nothing is read or written", async () => {
    const pr = await pull();
    const payload = writeConversationComment(h, { ...pr, login: WRITER, body: "/diffward status" });
    const installationId = payload.installation.id as number;
    const answers = () =>
      h.github.state.issueComments(pr.owner, pr.repo, pr.pullNumber).filter((c) => c.user.type === "Bot");
    const before = answers().length;
    const requests = h.github.requests.length;
    // the uninstall was processed after the comment was delivered, before its job ran
    await h.booted.rt.stores.pulls.setInstallationRemoved(installationId, true);
    try {
      const sent = await h.send("issue_comment", payload);
      const job = await h.waitFor(
        async () => {
          const j = await h.booted.rt.queues.events.getJob(jobId("cmd", sent.id));
          return j?.finishedOn ? j : undefined;
        },
        15_000,
        "the command's job ended",
      );
      expect(job.returnvalue).toBe("installation-removed");
      expect(answers()).toHaveLength(before);
      // no token asked, no config read, no reaction: GitHub refuses a removed installation
      expect(h.github.requests.slice(requests).filter((r) => r.installationId === installationId)).toEqual(
        [],
      );
    } finally {
      await h.booted.rt.stores.pulls.setInstallationRemoved(installationId, false);
    }
  });

  it("every finding verb by label or id, plus status, credits, guidance, areas, cancel and help", async () => {
    const pr = await pull();
    const sqli = pr.byTitle.get(SQLI)!;
    const secret = pr.byTitle.get(SECRET)!;
    const rate = pr.byTitle.get(RATE)!;
    const bare = sqli.slice(-8);

    await say(pr, `/diffward resolve XY-${bare} fixed_in_code`);
    expect(h.sandbox.state.findings.get(sqli)!.resolutionStatus).toBe("RESOLVED");
    expect(threadOf(pr, SQLI).isResolved).toBe(true);
    await say(pr, `/diffward fp ${findingLabel(secret)} guarded_elsewhere`);
    expect(h.sandbox.state.findings.get(secret)!.resolutionStatus).toBe("FALSE_POSITIVE");
    expect(checkOf(h, pr).conclusion).toBe("success");
    await say(pr, `/diffward reopen ${secret} not so sure`);
    expect(h.sandbox.state.findings.get(secret)!.resolutionStatus).toBe("NOT_STARTED");
    expect(checkOf(h, pr).conclusion).toBe("failure");
    await say(pr, `/diffward in-progress ${rate}`);
    expect(h.sandbox.state.findings.get(rate)!.resolutionStatus).toBe("IN_PROGRESS");
    await say(pr, `/diffward mitigate ${rate} limited_exposure`);
    expect(h.sandbox.state.findings.get(rate)!.resolutionStatus).toBe("MITIGATED");
    await say(pr, `/diffward wontfix ${secret} out_of_scope`);
    expect(h.sandbox.state.findings.get(secret)!.resolutionStatus).toBe("WONT_FIX");
    await say(pr, `/diffward duplicate ${secret}`);
    expect(h.sandbox.state.findings.get(secret)!.resolutionStatus).toBe("DUPLICATE");
    await say(pr, `/diffward severity ${rate} low`);
    expect(h.sandbox.state.findings.get(rate)!.severityOverride).toBe("LOW");
    await say(pr, `/diffward note ${rate} checked with the team`);
    expect(
      h.sandbox.state.findings.get(rate)!.notes.some((n) => n.body.includes("checked with the team")),
    ).toBe(true);
    const pub = await say(pr, `/diffward publish ${findingLabel(rate)}`);
    expect(pub.answer).toContain("public artifact");

    const status = await say(pr, "/diffward status");
    expect(status.answer).toMatch(/last report: scan `[^`]+`/);
    const credits = await say(pr, "/diffward credits");
    expect(credits.answer).toMatch(/\d+ available/);
    const guidance = await say(pr, "/diffward guidance");
    expect(guidance.answer).toContain("**Guidance**");
    const areas = await say(pr, "/diffward areas");
    expect(areas.answer).toContain("**Audit areas**");
    const cancel = await say(pr, "/diffward cancel");
    expect(cancel.answer).toContain("nothing to cancel");
    const help = await say(pr, "/diffward help");
    expect(help.answer).toContain("/diffward rescan");
    const missing = await say(pr, "/diffward resolve");
    expect(missing.answer).toContain("needs a finding label or id");
    const unknown = await say(pr, "/diffward resolve SC-zzzzzzzz");
    expect(unknown.answer).toContain("does not know this finding");
  });

  it("a label matching several findings lists the candidates and asks for the full id; nothing changes", async () => {
    const pr = await pull();
    const sqli = pr.byTitle.get(SQLI)!;
    const twin = h.sandbox.state.makeLabelConflict(sqli);
    const res = await say(pr, `/diffward resolve ${findingLabel(sqli)} fixed_in_code`);
    expect(res.answer).toContain("full finding id");
    expect(res.answer).toContain(sqli);
    expect(h.sandbox.state.findings.get(sqli)!.resolutionStatus).toBe("NOT_STARTED");
    expect(h.sandbox.state.findings.get(twin)!.resolutionStatus).toBe("NOT_STARTED");
    await say(pr, `/diffward resolve ${sqli} fixed_in_code`);
    expect(h.sandbox.state.findings.get(sqli)!.resolutionStatus).toBe("RESOLVED");
    expect(h.sandbox.state.findings.get(twin)!.resolutionStatus).toBe("NOT_STARTED");
  });

  it("/diffward rescan launches exactly one new scan, with the requested budget", async () => {
    const pr = await pull();
    const scansBefore = h.sandbox.state.scans.size;
    const res = await say(pr, "/diffward rescan budget=50");
    expect(res.answer).toContain("50 credits");
    const scan = await h.waitFor(
      () =>
        [...h.sandbox.state.scans.values()].find((s) => s.commitHash === pr.headSha && s.creditBudget === 50),
      20_000,
      "rescan launched",
    );
    expect(scan).toBeDefined();
    // redelivery of the same command comment launches nothing more
    await h.send("issue_comment", res.payload);
    const launched = await h.waitFor(
      () => {
        const c = checkOf(h, pr);
        return c.status === "completed" && c.externalId === scan.id ? c : undefined;
      },
      30_000,
      "rescan reported",
    );
    expect(launched.conclusion).toBe("failure");
    expect(h.sandbox.state.scans.size).toBe(scansBefore + 1);
  });
});

describe("decisions survive pushes", () => {
  it("the next push's scan gets the decision (with a note naming it), so the check stays green", async () => {
    const pr = await pull();
    await reply(pr, SQLI, "/fp not_reachable");
    await reply(pr, SECRET, "/resolve fixed_in_code");
    expect(checkOf(h, pr).conclusion).toBe("success");
    const decisions = await readDecisions(h.booted.rt, `${pr.owner}/${pr.repo}#${pr.pullNumber}`);
    expect(decisions.map((d) => d.resolutionStatus).sort()).toEqual(["FALSE_POSITIVE", "RESOLVED"]);

    const head2 = (pr.headSha.slice(0, 39) + (pr.headSha.endsWith("f") ? "e" : "f")).toLowerCase();
    h.github.state.updatePullRequestHead({
      owner: pr.owner,
      repo: pr.repo,
      number: pr.pullNumber,
      sha: head2,
    });
    const sync = structuredClone(pr.payload);
    sync.action = "synchronize";
    sync.pull_request.head.sha = head2;
    sync.pull_request.updated_at = new Date(Date.now() + 1000).toISOString();
    await h.send("pull_request", sync);
    const check2 = await h.waitFor(
      () =>
        h.github.state
          .checkRuns(pr.owner, pr.repo)
          .find((c) => c.headSha === head2 && c.status === "completed"),
      30_000,
      "second scan reported",
    );
    expect(check2.conclusion).toBe("success");
    const newFindings = [...h.sandbox.state.findings.values()].filter(
      (f) => h.sandbox.state.scans.get(f.scanId)?.commitHash === head2,
    );
    const newSqli = newFindings.find((f) => f.title === SQLI)!;
    expect(newSqli.id).not.toBe(pr.byTitle.get(SQLI));
    expect(newSqli.resolutionStatus).toBe("FALSE_POSITIVE");
    const note = newSqli.notes.map((n) => n.body).find((b) => b.includes("earlier decision"))!;
    // status names as the glossary writes them everywhere diffward posts
    expect(note).toContain("**False positive**");
    expect(note).toContain(`@${WRITER}`);
    expect(note).toContain(pr.byTitle.get(SQLI)!);
    expect(newFindings.find((f) => f.title === SECRET)!.resolutionStatus).toBe("RESOLVED");
    expect(newFindings.find((f) => f.title === RATE)!.resolutionStatus).toBe("NOT_STARTED");
  });
});

describe("severity overrides survive pushes", () => {
  it("an override made before a push still applies after it (with a note naming it), and the check follows", async () => {
    const pr = await pull();
    await reply(pr, SECRET, "/severity low");
    await reply(pr, SQLI, "/fp not_reachable");
    expect(checkOf(h, pr).conclusion).toBe("success");

    const next = await pushAndReport(h, pr);
    const secret = next.byTitle.get(SECRET)!;
    expect(secret.id).not.toBe(pr.byTitle.get(SECRET));
    expect(secret.severityOverride).toBe("LOW");
    const note = secret.notes.map((n) => n.body).find((b) => b.includes("earlier severity override"))!;
    expect(note).toContain("**Low** (the finding was reported as High)");
    expect(note).toContain(`@${WRITER}`);
    // the FALSE_POSITIVE was taken at CRITICAL and is carried too; SECRET is LOW now: nothing blocks
    expect(next.byTitle.get(SQLI)!.resolutionStatus).toBe("FALSE_POSITIVE");
    expect(next.check.conclusion).toBe("success");
    expect(next.byTitle.get(RATE)!.severityOverride).toBeNull();

    // `/severity reset` forgets the override: the next push keeps the service's own severity
    const parentId = [...h.github.state.reviewComments(pr.owner, pr.repo, pr.pullNumber)].find(
      (c) => c.inReplyToId === null && c.body.includes(encodeURIComponent(secret.id)),
    )!.id;
    const before = threadAnswers(h, pr, parentId).length;
    await h.send(
      "pull_request_review_comment",
      writeReviewReply(h, { ...pr, parentId, login: WRITER, body: "/severity reset" }),
    );
    await nextAnswer(h, () => threadAnswers(h, pr, parentId), before, "answer to reset");
    expect(h.sandbox.state.findings.get(secret.id)!.severityOverride).toBeNull();
    const third = await pushAndReport(h, pr);
    expect(third.byTitle.get(SECRET)!.severityOverride).toBeNull();
    expect(third.check.conclusion).toBe("failure");
  });
});

describe("service errors", () => {
  it("a 5xx is retried and a 429 waits for Retry-After; the command then succeeds once", async () => {
    const pr = await pull();
    await fetch(`${h.sandbox.url.replace(/\/api\/v1$/, "")}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ errors: { count: 2, status: 503, route: "PATCH .*/resolution" } }),
    });
    await reply(pr, SQLI, "/resolve code_removed");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("RESOLVED");

    await fetch(`${h.sandbox.url.replace(/\/api\/v1$/, "")}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rateLimits: { count: 1, retryAfterSeconds: 1, route: "PATCH .*/severity" } }),
    });
    await reply(pr, RATE, "/severity high");
    expect(sandboxFinding(h, pr, RATE).severityOverride).toBe("HIGH");
    expect(checkOf(h, pr).conclusion).toBe("failure");
  });
});
