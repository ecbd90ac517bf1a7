/**
 * Acceptances that expire, end to end: real webhooks through the app on a real Redis, the sandbox over HTTP,
 * the GitHub stand-in. `/wontfix risk_accepted until <a few seconds ahead>` on a blocking finding turns the
 * check green; at that moment, and not before, the delayed job sets the finding back to NOT_STARTED with one
 * PATCH and the check fails again, without anyone acting. The expiry survives a worker restart and a Redis
 * flush (rebuilt by reconciliation from the service's note) and a lost job (added again); one that finds the
 * finding in another state sends nothing; a later `/reopen` cancels it; an approval keeps it; past, malformed and too-far dates, and a missing one under `triage.requireExpiry`, are refused.
 * An expiry acts only while the finding's decision still carries it: one held in the service while the
 * acceptance is renewed, or retried after a new acceptance, changes nothing; a renewal written while the
 * expiry's own write is in flight waits for the pull request's lock, so the service ends as the decision says.
 */
import type { Job } from "bullmq";
import { describe, expect, it } from "vitest";
import { processAcceptanceExpiry } from "../../src/triage/job/acceptance-expiry.js";
import type { Harness } from "../../dev/harness/harness.js";
import { applyFaults } from "../../dev/sandbox/index.js";
import { pullKey } from "../../src/runtime/names.js";
import { readDecisions } from "../../src/triage/decisions.js";
import { listAcceptanceExpiries } from "../../src/triage/expiry.js";
import { flushPrefix } from "../support/flush.js";
import {
  openConfiguredPull,
  replyTo,
  sandboxCalls,
  sayIn,
  useCommandHarness,
  WRITER,
} from "../support/commands.js";
import { findingLabel } from "../../src/scanner/labels.js";
import { dismissAlertAs } from "../../dev/harness/code-scanning.js";
import {
  checkOf,
  pushAndReport,
  sandboxFinding,
  type ReportedPull,
  SQLI,
  SECRET,
} from "../support/reported-pull.js";

const MAINTAINER = "octo-maintainer";
const PATCH_RESOLUTION = "PATCH /projects/:projectId/findings/:findingId/resolution";

let h: Harness;
useCommandHarness((started) => (h = started));

let nextPull = 700;
async function pull(config = ""): Promise<ReportedPull> {
  nextPull += 1;
  return openConfiguredPull(h, nextPull, { [WRITER]: "write", [MAINTAINER]: "maintain" }, config);
}

const patches = () => sandboxCalls(h, PATCH_RESOLUTION);
/** Every entry of the audit trail so far. */
async function auditEntries() {
  const out = [];
  for await (const e of h.booted.rt.stores.audit.read({})) out.push(e);
  return out;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** An ISO 8601 moment `ms` from now, as a user would type it (seconds, `Z`). */
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The id of the expiry the finding's decision carries now (`undefined`: none). */
async function expiryIdNow(pr: ReportedPull, title = SQLI) {
  const decisions = await readDecisions(h.booted.rt, pullKey(pr.owner, pr.repo, pr.pullNumber));
  return decisions.find((d) => d.findingId === pr.byTitle.get(title))?.expiryId;
}

/** The expiry job's state, read from the queue. */
async function jobState(expiryId: string) {
  return (await h.booted.rt.queues.events.getJob(expiryId))?.getState();
}

/**
 * Holds the next resolution PATCH, the expiry's NOT_STARTED (sent under the pull request's lock), 3 s in the
 * service, and waits until it is held.
 */
async function expiryPatchHeld() {
  applyFaults(h.sandbox.state, {
    delays: { count: 1, ms: 3_000, route: "^PATCH /projects/[^/]+/findings/[^/]+/resolution$" },
  });
  await h.waitFor(
    () => h.sandbox.state.faults.delays?.remaining === 0 || undefined,
    10_000,
    "the expiry's PATCH held in the service",
  );
}

/** `/fp` on the HIGH finding, so the CRITICAL one is the only blocking finding left. */
async function onlySqliBlocks(pr: ReportedPull) {
  await replyTo(h, pr, SECRET, "/fp not_reachable");
  await h.waitFor(
    () => sandboxFinding(h, pr, SECRET).resolutionStatus === "FALSE_POSITIVE",
    10_000,
    "fp set",
  );
}

/** Accepts the SQL injection until `until`; returns the PATCH count once the check is green. */
async function acceptUntil(pr: ReportedPull, until: string, login = WRITER) {
  const { answer } = await replyTo(h, pr, SQLI, `/wontfix risk_accepted until ${until}`, login);
  await h.waitFor(() => checkOf(h, pr).conclusion === "success" || undefined, 10_000, "check green");
  return { answer, sent: patches() };
}

/** Holds until `at` (ms) asserting, every 100 ms, that no resolution PATCH went out and the finding is accepted. */
async function nothingBefore(pr: ReportedPull, sent: number, at: number) {
  while (Date.now() < at) {
    expect(patches()).toBe(sent);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("WONT_FIX");
    await sleep(100);
  }
}

/** Waits for the expiry: the finding NOT_STARTED, the check red; then exactly one more PATCH, and it stays one. */
async function expiredOnce(pr: ReportedPull, sent: number, expiresAt: number) {
  await h.waitFor(
    () => sandboxFinding(h, pr, SQLI).resolutionStatus === "NOT_STARTED" || undefined,
    15_000,
    "expired",
  );
  expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
  await sleep(500);
  expect(patches()).toBe(sent + 1);
}

describe("an acceptance with an expiry", () => {
  it("turns the check green, then at its moment (not before) one PATCH sets the finding back and the check fails", async () => {
    const pr = await pull();
    await onlySqliBlocks(pr);
    const until = inMs(5_000);
    const { answer, sent } = await acceptUntil(pr, until);
    const expiresAt = Date.parse(until);
    expect(answer).toContain(
      `Accepted until **${until.slice(0, 10)} ${until.slice(11, 19)} UTC** by \`@${WRITER}\``,
    );
    const rootId = pr.comments.get(pr.byTitle.get(SQLI)!)!;
    const comment = () => h.github.state.reviewComments(pr.owner, pr.repo).find((c) => c.id === rootId)!;
    expect(comment().body).toContain(`accepted until **${until.slice(0, 10)}`);
    expect(checkOf(h, pr).output.summary + (checkOf(h, pr).output.text ?? "")).toContain("accepted until");
    // the service's note carries the expiry in its parseable line
    expect(
      sandboxFinding(h, pr, SQLI)
        .notes.map((n) => n.body)
        .join("\n"),
    ).toContain(`Accepted until ${new Date(expiresAt).toISOString()} by @${WRITER} (diffward).`);
    const soon = await listAcceptanceExpiries(h.booted.rt, pr.payload.installation.id, { withinMs: 60_000 });
    expect(soon.map((e) => [e.pullNumber, e.findingId, e.by])).toContainEqual([
      pr.pullNumber,
      pr.byTitle.get(SQLI),
      WRITER,
    ]);

    await nothingBefore(pr, sent, expiresAt - 150);
    await expiredOnce(pr, sent, expiresAt);
    await h.waitFor(() => checkOf(h, pr).conclusion === "failure" || undefined, 10_000, "check red again");
    const thread = h.github.state
      .threads(pr.owner, pr.repo, pr.pullNumber)
      .find((t) => t.rootCommentId === rootId)!;
    expect(thread.isResolved).toBe(false);
    await h.waitFor(() => comment().body.includes("expired on") || undefined, 10_000, "comment");
    expect(sandboxFinding(h, pr, SQLI).notes.at(-1)!.body).toContain(
      `Risk acceptance by @${WRITER} expired on`,
    );
    const decisions = await readDecisions(h.booted.rt, pullKey(pr.owner, pr.repo, pr.pullNumber));
    expect(decisions.find((d) => d.findingId === pr.byTitle.get(SQLI))).toMatchObject({
      resolutionStatus: "NOT_STARTED",
    });
    const audit = await auditEntries();
    expect(audit).toContainEqual(
      expect.objectContaining({
        action: "expire",
        source: "expiry",
        outcome: "applied",
        actor: WRITER,
        to: "NOT_STARTED",
      }),
    );

    // the job run again (a retry after its reflection failed): no second PATCH, note or audit entry
    const ours = soon.find((e) => e.findingId === pr.byTitle.get(SQLI))!;
    const job = {
      id: ours.expiryId,
      data: {
        installationId: pr.payload.installation.id,
        accountLogin: pr.payload.repository.owner.login,
        owner: pr.owner,
        repo: pr.repo,
        pullNumber: pr.pullNumber,
        expiryId: ours.expiryId,
      },
    } as unknown as Job;
    const notes = sandboxFinding(h, pr, SQLI).notes.length;
    await h.booted.rt.redis.hdel(`${h.booted.rt.stores.prefix}:once:expiry:${ours.expiryId}`, "reflected");
    expect(await processAcceptanceExpiry(h.booted.rt, job)).toBe("expired");
    expect(await processAcceptanceExpiry(h.booted.rt, job)).toBe("cancelled");
    expect(patches()).toBe(sent + 1);
    expect(sandboxFinding(h, pr, SQLI).notes).toHaveLength(notes);
    const expires = (await auditEntries()).filter(
      (e) => e.action === "expire" && e.findingId === pr.byTitle.get(SQLI),
    );
    expect(expires).toHaveLength(1);
  });

  it("follows the finding to a new push: the carried acceptance expires on the new scan's finding, once", async () => {
    const pr = await pull();
    await onlySqliBlocks(pr);
    const until = inMs(9_000);
    await acceptUntil(pr, until);
    const pushed = await pushAndReport(h, pr);
    const carried = pushed.byTitle.get(SQLI)!;
    expect(carried.id).not.toBe(pr.byTitle.get(SQLI));
    expect(carried.resolutionStatus).toBe("WONT_FIX");
    expect(carried.notes.map((n) => n.body).join("\n")).toContain(
      `Accepted until ${new Date(Date.parse(until)).toISOString()} by @${WRITER} (diffward).`,
    );
    const newCheck = () => checkOf(h, { ...pr, headSha: pushed.head });
    expect(newCheck().conclusion).toBe("success");
    expect(newCheck().output.summary + (newCheck().output.text ?? "")).toContain("accepted until");
    const sent = patches();
    await h.waitFor(() => carried.resolutionStatus === "NOT_STARTED" || undefined, 15_000, "carried expired");
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until));
    await sleep(500);
    expect(patches()).toBe(sent + 1);
    await h.waitFor(() => newCheck().conclusion === "failure" || undefined, 10_000, "new head's check red");
  });

  it("survives a worker restart: nothing while no worker runs, one PATCH once one starts again", async () => {
    const pr = await pull();
    await onlySqliBlocks(pr);
    const until = inMs(4_000);
    const { sent } = await acceptUntil(pr, until);
    await Promise.all(h.booted.workers.map((w) => w.close()));
    h.booted.workers.length = 0;
    await sleep(Math.max(0, Date.parse(until) - Date.now()) + 1_000);
    expect(patches()).toBe(sent);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("WONT_FIX");
    h.booted.startWorkers();
    await expiredOnce(pr, sent, Date.parse(until));
    await h.waitFor(() => checkOf(h, pr).conclusion === "failure" || undefined, 10_000, "check red again");
  });

  it("survives a Redis flush: reconciliation rebuilds it from the service's note, and it applies once at its moment", async () => {
    const pr = await pull();
    await onlySqliBlocks(pr);
    const until = inMs(7_000);
    const { sent } = await acceptUntil(pr, until);
    expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);
    const summary = await h.booted.reconcile();
    expect(summary.errors).toBe(0);
    const rebuilt = await readDecisions(h.booted.rt, pullKey(pr.owner, pr.repo, pr.pullNumber));
    expect(rebuilt.find((d) => d.findingId === pr.byTitle.get(SQLI))).toMatchObject({
      resolutionStatus: "WONT_FIX",
      by: WRITER,
      expiresAt: new Date(Date.parse(until)).toISOString(),
    });
    await nothingBefore(pr, sent, Date.parse(until) - 150);
    await expiredOnce(pr, sent, Date.parse(until));
    // a second reconciliation finds the acceptance ended: nothing is rebuilt
    await h.booted.reconcile();
    await sleep(1_000);
    expect(patches()).toBe(sent + 1);
  });

  it("a lost job is added again by reconciliation from the recorded expiry, and applies once at its moment", async () => {
    const pr = await pull();
    await onlySqliBlocks(pr);
    const until = inMs(6_000);
    const { sent } = await acceptUntil(pr, until);
    const decisions = await readDecisions(h.booted.rt, pullKey(pr.owner, pr.repo, pr.pullNumber));
    const expiryId = decisions.find((d) => d.findingId === pr.byTitle.get(SQLI))!.expiryId!;
    await (await h.booted.rt.queues.events.getJob(expiryId))!.remove();
    await h.booted.reconcile();
    const job = await h.booted.rt.queues.events.getJob(expiryId);
    expect(await job?.getState()).toBe("delayed");
    expect(job?.opts.attempts).toBe(16);
    await nothingBefore(pr, sent, Date.parse(until) - 150);
    await expiredOnce(pr, sent, Date.parse(until));
  });

  it("an expiry that finds the finding in another state (changed in the service's UI) changes nothing", async () => {
    const pr = await pull();
    await onlySqliBlocks(pr);
    const until = inMs(4_000);
    const { sent } = await acceptUntil(pr, until);
    // the service's own UI (no webhook reaches diffward): the sandbox's state changed directly
    sandboxFinding(h, pr, SQLI).resolutionStatus = "FALSE_POSITIVE";
    await h.waitFor(
      async () =>
        (await auditEntries()).find(
          (e) => e.action === "expire" && e.findingId === pr.byTitle.get(SQLI) && e.outcome === "skipped",
        ),
      15_000,
      "expiry skipped",
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until));
    expect(patches()).toBe(sent);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("FALSE_POSITIVE");
    expect(sandboxFinding(h, pr, SQLI).notes.some((n) => n.body.includes("expired on"))).toBe(false);
  });

  it("a later /reopen cancels it: no PATCH at the old moment", async () => {
    const pr = await pull();
    const until = inMs(4_000);
    await replyTo(h, pr, SQLI, `/wontfix risk_accepted until ${until}`);
    await h.waitFor(
      () => sandboxFinding(h, pr, SQLI).resolutionStatus === "WONT_FIX" || undefined,
      10_000,
      "accepted",
    );
    const sent = patches();
    await replyTo(h, pr, SQLI, "/reopen looking again");
    expect(patches()).toBe(sent + 1);
    await sleep(Math.max(0, Date.parse(until) - Date.now()) + 2_000);
    expect(patches()).toBe(sent + 1);
    expect(sandboxFinding(h, pr, SQLI).notes.some((n) => n.body.includes("expired on"))).toBe(false);
    const audit = await auditEntries();
    expect(audit).toContainEqual(
      expect.objectContaining({
        action: "expiry-cancelled",
        from: "WONT_FIX",
        to: "NOT_STARTED",
        actor: WRITER,
      }),
    );
  });

  it("an approved acceptance keeps its expiry through /approve", async () => {
    const pr = await pull("triage:\n  approval:\n    minSeverity: high\n    approvers: maintain");
    const until = inMs(8_000);
    const held = await replyTo(h, pr, SQLI, `/wontfix risk_accepted until ${until}`);
    expect(held.answer).toContain("**Approval requested**");
    const sent = patches();
    const approved = await replyTo(h, pr, SQLI, "/approve", MAINTAINER);
    expect(approved.answer).toContain("Accepted until");
    await h.waitFor(
      () => sandboxFinding(h, pr, SQLI).resolutionStatus === "WONT_FIX" || undefined,
      10_000,
      "approved",
    );
    expect(patches()).toBe(sent + 1);
    await nothingBefore(pr, sent + 1, Date.parse(until) - 150);
    await expiredOnce(pr, sent + 1, Date.parse(until));
  });

  it("refuses a past, a malformed and a too-far date, and a missing one under requireExpiry, sending nothing; the conversation form passes them", async () => {
    const pr = await pull("triage:\n  maxAcceptanceDays: 30\n  requireExpiry: [WONT_FIX]");
    const sent = patches();
    const cases: Array<[string, string]> = [
      ["/wontfix risk_accepted until 2020-01-01", "in the past"],
      ["/wontfix risk_accepted until 2027-02-30", "is not a date diffward can read"],
      ["/wontfix risk_accepted for 31d", "more than 30 days ahead (`triage.maxAcceptanceDays`)"],
      ["/wontfix risk_accepted", "`triage.requireExpiry`"],
    ];
    for (const [body, rule] of cases) {
      const { answer } = await replyTo(h, pr, SQLI, body);
      expect(answer, body).toContain(rule);
    }
    expect(patches()).toBe(sent);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
    // each refusal is in the audit trail: the writer's, on the finding, with the rule it broke and no expiry
    const ofPull = async () =>
      (await auditEntries()).filter(
        (e) => e.repository === `${pr.owner}/${pr.repo}` && e.pullNumber === pr.pullNumber,
      );
    const refused = await h.waitFor(
      async () => {
        const found = (await ofPull()).filter((e) => e.outcome === "refused");
        return found.length >= cases.length ? found : undefined;
      },
      10_000,
      "the refusals' audit entries",
    );
    expect(refused).toHaveLength(cases.length);
    cases.forEach(([, rule], i) => {
      // a date that does not parse is refused before the finding is read: the thread names the finding
      expect(refused[i]).toMatchObject({
        action: "resolve",
        actor: WRITER,
        findingId: pr.byTitle.get(SQLI),
        source: "command",
      });
      expect(refused[i]!.detail).toContain(rule);
      expect(refused[i]!.expiresAt).toBeUndefined();
    });
    // the conversation form with an expiry passes the same rules
    const label = findingLabel(pr.byTitle.get(SQLI)!, h.booted.rt.settings.labelPrefix);
    const { answer } = await sayIn(h, pr, `/diffward wontfix ${label} vendor fix due for 7d`);
    expect(answer).toContain("Accepted until **");
    expect(patches()).toBe(sent + 1);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("WONT_FIX");
    const applied = await h.waitFor(
      async () => (await ofPull()).find((e) => e.outcome === "applied"),
      10_000,
      "the acceptance's audit entry",
    );
    expect(applied).toMatchObject({ action: "resolve", actor: WRITER, to: "WONT_FIX" });
    expect(Date.parse(applied.expiresAt!) - Date.now()).toBeGreaterThan(6 * 24 * 3600_000);
  });

  it("an expiry held in the service while the acceptance is renewed changes nothing, and the renewal's own expiry applies", async () => {
    const pr = await pull();
    await onlySqliBlocks(pr);
    const until = inMs(4_000);
    await acceptUntil(pr, until);
    const first = (await expiryIdNow(pr))!;
    // every service request that arrives meanwhile waits 6 s: the expiry's first read of the finding is held
    await sleep(Math.max(0, Date.parse(until) - Date.now() - 300));
    applyFaults(h.sandbox.state, { latencyMs: 6_000 });
    await h.waitFor(async () => (await jobState(first)) === "active", 5_000, "the expiry running");
    await sleep(500);
    applyFaults(h.sandbox.state, { latencyMs: 0 });
    const { answer } = await replyTo(h, pr, SQLI, "/wontfix risk_accepted for 30d");
    expect(answer).toContain("Accepted until");
    expect(answer).toContain("passing");
    // the renewal was answered while the old expiry still waited for the service
    expect(await jobState(first)).toBe("active");
    const renewal = await expiryIdNow(pr);
    expect(renewal).toBeDefined();
    expect(renewal).not.toBe(first);

    await h.waitFor(async () => (await jobState(first)) === "completed", 15_000, "the held expiry's end");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("WONT_FIX");
    expect(sandboxFinding(h, pr, SQLI).notes.some((n) => n.body.includes("expired on"))).toBe(false);
    const decisions = await readDecisions(h.booted.rt, pullKey(pr.owner, pr.repo, pr.pullNumber));
    const decision = decisions.find((d) => d.findingId === pr.byTitle.get(SQLI))!;
    expect(decision).toMatchObject({ resolutionStatus: "WONT_FIX", expiryId: renewal });
    expect(Date.parse(decision.expiresAt!) - Date.now()).toBeGreaterThan(29 * 24 * 3600_000);
    expect(checkOf(h, pr).conclusion).toBe("success");
    expect((await h.booted.rt.queues.events.getJob(first))!.returnvalue).toBe("cancelled");

    // the renewal's own expiry, brought forward to now, applies: the finding is set back and the check fails
    const sent = patches();
    await (await h.booted.rt.queues.events.getJob(renewal!))!.promote();
    await h.waitFor(
      () => sandboxFinding(h, pr, SQLI).resolutionStatus === "NOT_STARTED" || undefined,
      15_000,
      "the renewal expired",
    );
    await h.waitFor(() => checkOf(h, pr).conclusion === "failure" || undefined, 10_000, "check red");
    expect(patches()).toBe(sent + 1);
    expect(await expiryIdNow(pr)).toBeUndefined();
  });

  it("a /wontfix written while the expiry's NOT_STARTED is in flight waits for the pull request's lock: the service and the decision both end WONT_FIX", async () => {
    const pr = await pull();
    await onlySqliBlocks(pr);
    await acceptUntil(pr, inMs(3_000));
    const first = (await expiryIdNow(pr))!;
    const sent = patches();
    await expiryPatchHeld();
    const { answer } = await replyTo(h, pr, SQLI, "/wontfix risk_accepted for 30d");
    expect(answer).toContain("Accepted until");

    await h.waitFor(async () => (await jobState(first)) === "completed", 15_000, "the expiry's end");
    expect((await h.booted.rt.queues.events.getJob(first))!.returnvalue).toBe("expired");
    // the command's PATCH came after the expiry's: the service ends where the decision does
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("WONT_FIX");
    expect(answer).toContain("passing");
    const renewal = await expiryIdNow(pr);
    expect(renewal).toBeDefined();
    expect(renewal).not.toBe(first);
    const decisions = await readDecisions(h.booted.rt, pullKey(pr.owner, pr.repo, pr.pullNumber));
    expect(decisions.find((d) => d.findingId === pr.byTitle.get(SQLI))).toMatchObject({
      resolutionStatus: "WONT_FIX",
      expiryId: renewal,
    });
    // each write once: the expiry's NOT_STARTED and the command's WONT_FIX
    expect(patches()).toBe(sent + 2);
    expect(checkOf(h, pr).conclusion).toBe("success");
  });

  it("a dismissal in GitHub's code scanning while the expiry's NOT_STARTED is in flight waits for the pull request's lock: the service and the decision both end as the dismissal says", async () => {
    const pr = await pull("codeScanning:\n  upload: true");
    await onlySqliBlocks(pr);
    const id = pr.byTitle.get(SQLI)!;
    const alert = () =>
      h.github.state.codeScanningAlerts(pr.owner, pr.repo).find((a) => a.mostRecent.message.includes(id));
    await h.waitFor(() => alert(), 10_000, "the finding's code scanning alert");
    await acceptUntil(pr, inMs(3_000));
    const first = (await expiryIdNow(pr))!;
    const sent = patches();
    await expiryPatchHeld();
    const dismissal = dismissAlertAs(h, {
      owner: pr.owner,
      repo: pr.repo,
      alertNumber: alert()!.number,
      login: MAINTAINER,
      reason: "false positive",
      comment: "only reachable from tests",
    });
    expect((await h.send("code_scanning_alert", dismissal)).status).toBe(200);

    await h.waitFor(async () => (await jobState(first)) === "completed", 15_000, "the expiry's end");
    const key = pullKey(pr.owner, pr.repo, pr.pullNumber);
    await h.waitFor(
      async () =>
        (await readDecisions(h.booted.rt, key)).find((d) => d.findingId === id)?.resolutionStatus ===
          "FALSE_POSITIVE" || undefined,
      15_000,
      "the dismissal's decision",
    );
    // the dismissal's PATCH came after the expiry's: the service ends where the decision does
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("FALSE_POSITIVE");
    expect(await expiryIdNow(pr)).toBeUndefined();
    // each write once: the expiry's NOT_STARTED, then the dismissal's FALSE_POSITIVE (not one sent past the
    // lock while the expiry's was in flight, then sent again when it found NOT_STARTED)
    expect(patches()).toBe(sent + 2);
  });

  it("an expiry retried after its reflection failed and the finding was accepted again leaves the code scanning alert dismissed", async () => {
    const pr = await pull("codeScanning:\n  upload: true");
    const alert = () =>
      h.github.state
        .codeScanningAlerts(pr.owner, pr.repo)
        .find((a) => a.mostRecent.message.includes(pr.byTitle.get(SQLI)!));
    await h.waitFor(() => alert(), 10_000, "the finding's code scanning alert");
    const until = inMs(4_000);
    await replyTo(h, pr, SQLI, `/wontfix risk_accepted until ${until}`);
    expect(alert()!.state).toBe("dismissed");
    const first = (await expiryIdNow(pr))!;
    // the expiry's reflection fails once, at its check run recompute (the finding list), after the alert reopened
    applyFaults(h.sandbox.state, {
      errors: { count: 1, status: 503, route: "^GET /projects/[^/]+/findings$" },
    });
    const failed = await h.waitFor(
      async () => {
        const job = await h.booted.rt.queues.events.getJob(first);
        return job && job.attemptsMade === 1 && (await job.getState()) === "delayed" ? job : undefined;
      },
      15_000,
      "the expiry's first attempt failed",
    );
    // its retry waits until the finding is accepted again
    await failed.changeDelay(60_000);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
    expect(alert()!.state).toBe("open");
    const { answer } = await replyTo(h, pr, SQLI, "/wontfix risk_accepted for 30d");
    expect(answer).toContain("Accepted until");
    expect(alert()!.state).toBe("dismissed");

    await failed.promote();
    await h.waitFor(async () => (await jobState(first)) === "completed", 15_000, "the retried expiry's end");
    expect(alert()!.state).toBe("dismissed");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("WONT_FIX");
    expect(await expiryIdNow(pr)).not.toBe(first);
    expect((await h.booted.rt.queues.events.getJob(first))!.returnvalue).toBe("cancelled");
  });
});
