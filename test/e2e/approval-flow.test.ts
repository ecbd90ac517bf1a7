/**
 * Two-person dismissals end to end: real webhooks through the app, the sandbox over
 * HTTP and the GitHub stand-in. With `triage.approval` set, a writer's `/fp` on a HIGH finding changes
 * nothing on the service; a maintainer's `/approve` changes it once and the check recomputes; the
 * requester cannot approve; `/reject` drops the request; requests survive pushes; a severity raise
 * invalidates them.
 */
import { describe, expect, it } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import { writeReviewReply } from "../../dev/harness/triage.js";
import { pullKey } from "../../src/runtime/names.js";
import { readApprovals } from "../../src/triage/approvals.js";
import { readDecisions } from "../../src/triage/decisions.js";
import { findingLabel } from "../../src/scanner/labels.js";
import {
  checkOf,
  openReportedPull,
  pushAndReport,
  threadAnswers,
  type ReportedPull,
  sandboxFinding,
  SQLI,
  SECRET,
  RATE,
} from "../support/reported-pull.js";
import {
  replyTo,
  sandboxCalls,
  sayIn,
  useCommandHarness,
  waitCommandJob,
  WRITER,
} from "../support/commands.js";

const WRITER2 = "octo-writer-two";
const MAINTAINER = "octo-maintainer";
const MAINTAINER2 = "octo-maintainer-two";
const APPROVAL = "triage:\n  approval:\n    minSeverity: high\n    approvers: maintain";
const PATCH_RESOLUTION = "PATCH /projects/:projectId/findings/:findingId/resolution";

let h: Harness;
useCommandHarness((started) => (h = started), { publicUrl: "https://scanner.example" });

let nextPull = 400;
async function pull(config = APPROVAL): Promise<ReportedPull> {
  nextPull += 1;
  return openReportedPull(
    h,
    nextPull,
    { [WRITER]: "write", [WRITER2]: "write", [MAINTAINER]: "maintain", [MAINTAINER2]: "admin" },
    config,
  );
}

/** Every resolution PATCH the sandbox answered so far (all findings, all statuses). */
const patches = () => sandboxCalls(h, PATCH_RESOLUTION);

async function reply(pr: ReportedPull, title: string, body: string, login = WRITER) {
  const { answer, payload, id } = await replyTo(h, pr, title, body, login);
  // the answer is posted before the job's last steps end: wait for the job itself
  await waitJob(id);
  return { answer, payload, id };
}

async function say(pr: ReportedPull, body: string, login = WRITER) {
  const { answer, payload, id } = await sayIn(h, pr, body, login);
  await waitJob(id);
  return { answer, payload };
}

const waitJob = (deliveryId: string) => waitCommandJob(h, deliveryId);

function commentOf(pr: ReportedPull, title: string) {
  const id = pr.comments.get(pr.byTitle.get(title)!)!;
  return h.github.state.reviewComments(pr.owner, pr.repo).find((c) => c.id === id)!;
}
function threadOf(pr: ReportedPull, title: string) {
  const rootId = pr.comments.get(pr.byTitle.get(title)!)!;
  return h.github.state.threads(pr.owner, pr.repo, pr.pullNumber).find((t) => t.rootCommentId === rootId)!;
}
const checkRuns = (pr: ReportedPull) =>
  h.github.state.checkRuns(pr.owner, pr.repo).filter((c) => c.headSha === pr.headSha);
const requests = (pr: ReportedPull) => readApprovals(h.booted.rt, pullKey(pr.owner, pr.repo, pr.pullNumber));

describe("two-person dismissals (triage.approval)", () => {
  it("a writer's /fp on a HIGH finding changes nothing; the requester cannot approve; a maintainer's /approve sets it once and the check recomputes", async () => {
    const pr = await pull();
    expect(checkOf(h, pr).conclusion).toBe("failure");
    const runsBefore = checkRuns(pr).length;
    const patchesBefore = patches();

    const fp = await reply(pr, SECRET, "/fp not_reachable");
    // no PATCH, the finding is as it was, the check run is untouched
    expect(patches()).toBe(patchesBefore);
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("NOT_STARTED");
    expect(sandboxFinding(h, pr, SECRET).notes).toEqual([]);
    expect(checkRuns(pr)).toHaveLength(runsBefore);
    expect(checkOf(h, pr).conclusion).toBe("failure");
    // the answer says approval is requested, and from whom
    expect(fp.answer).toContain("**Approval requested**");
    expect(fp.answer).toContain("`maintain` role or above");
    expect(fp.answer).toContain("Nothing was changed on the scanning service");
    expect(fp.answer).not.toContain("is now");
    // the finding's comment shows the pending request
    expect(commentOf(pr, SECRET).body).toContain("Dismissal awaiting approval");
    expect(commentOf(pr, SECRET).body).toContain(`@${WRITER}`);
    expect(threadOf(pr, SECRET).isResolved).toBe(false);
    expect(await requests(pr)).toMatchObject([
      { findingId: pr.byTitle.get(SECRET), resolutionStatus: "FALSE_POSITIVE", reason: "not_reachable" },
    ]);

    // the requester cannot approve their own request (even with the right role it would be refused)
    const self = await reply(pr, SECRET, "/approve", WRITER);
    expect(self.answer).toContain("you cannot approve it too");
    expect(patches()).toBe(patchesBefore);
    // a second writer is below `approvers`
    const low = await reply(pr, SECRET, "/approve", WRITER2);
    expect(low.answer).toContain("needs the `maintain` role or above");
    expect(patches()).toBe(patchesBefore);
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("NOT_STARTED");

    // a maintainer approves: exactly one PATCH with the requested status and reason, a note naming both
    const ok = await reply(pr, SECRET, "/approve", MAINTAINER);
    expect(patches()).toBe(patchesBefore + 1);
    const f = sandboxFinding(h, pr, SECRET);
    expect(f.resolutionStatus).toBe("FALSE_POSITIVE");
    const notes = f.notes.map((n) => n.body);
    expect(notes.some((n) => n.includes("not_reachable"))).toBe(true);
    const both = notes.find((n) => n.includes(`@${MAINTAINER}`));
    expect(both).toContain(`requested by GitHub user @${WRITER}`);
    expect(both).toContain(`approved by GitHub user @${MAINTAINER}`);
    expect(ok.answer).toContain("is now **False positive**");
    expect(ok.answer).toContain(`approved by \`@${MAINTAINER}\``);
    // the check recomputes: SQLI (CRITICAL) still blocks, SECRET is ruled out
    expect(ok.answer).toContain("3 findings: 2 open (1 blocking), 1 ruled out");
    expect(checkRuns(pr).length).toBeGreaterThan(runsBefore);
    expect(checkOf(h, pr).output.summary).toContain("1 ruled out");
    expect(commentOf(pr, SECRET).body).toContain("**Decision:** False positive");
    expect(commentOf(pr, SECRET).body).toContain(`approved by \`@${MAINTAINER}\``);
    expect(commentOf(pr, SECRET).body).not.toContain("Dismissal awaiting approval");
    expect(threadOf(pr, SECRET).isResolved).toBe(true);
    expect(await requests(pr)).toEqual([]);
    const decision = (await readDecisions(h.booted.rt, pullKey(pr.owner, pr.repo, pr.pullNumber))).find(
      (d) => d.findingId === f.id,
    );
    expect(decision).toMatchObject({
      by: WRITER,
      approvedBy: MAINTAINER,
      resolutionStatus: "FALSE_POSITIVE",
    });

    // the same approval comment delivered again (a new delivery id): no second PATCH
    const again = await h.send("pull_request_review_comment", ok.payload);
    expect(await waitJob(again.id)).toEqual({ value: "duplicate" });
    // and a second maintainer approval now finds nothing to approve
    const late = await reply(pr, SECRET, "/approve", MAINTAINER);
    expect(late.answer).toContain("is awaiting approval, so there is nothing to approve");
    expect(patches()).toBe(patchesBefore + 1);
  });

  it("below minSeverity, or by an approver, a dismissal goes through at once", async () => {
    const pr = await pull();
    const before = patches();
    const medium = await reply(pr, RATE, "/wontfix risk_accepted");
    expect(medium.answer).toContain("is now **Won't fix**");
    expect(sandboxFinding(h, pr, RATE).resolutionStatus).toBe("WONT_FIX");
    const direct = await reply(pr, SQLI, "/fp not_reachable", MAINTAINER);
    expect(direct.answer).toContain("is now **False positive**");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("FALSE_POSITIVE");
    expect(patches()).toBe(before + 2);
    expect(await requests(pr)).toEqual([]);
  });

  it("/reject (or /diffward reject <label>) drops the request: by its requester or an approver, not by another writer", async () => {
    const pr = await pull();
    const label = findingLabel(pr.byTitle.get(SQLI)!, "SC");
    const before = patches();
    const held = await say(pr, `/diffward wontfix ${label} the input is a constant in production`);
    expect(held.answer).toContain("**Approval requested**");
    expect(held.answer).toContain(`/diffward approve ${label}`);
    expect(commentOf(pr, SQLI).body).toContain("Dismissal awaiting approval");

    const other = await say(pr, `/diffward reject ${label}`, WRITER2);
    expect(other.answer).toContain(`Only \`@${WRITER}\` (who asked) or a user with the \`maintain\` role`);
    expect(await requests(pr)).toHaveLength(1);

    const rejected = await reply(pr, SQLI, "/reject", MAINTAINER);
    expect(rejected.answer).toContain("Rejected");
    expect(await requests(pr)).toEqual([]);
    expect(commentOf(pr, SQLI).body).not.toContain("Dismissal awaiting approval");
    const none = await say(pr, `/diffward approve ${label}`, MAINTAINER);
    expect(none.answer).toContain("nothing to approve");
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");

    // the requester may withdraw their own request
    await reply(pr, SQLI, "/duplicate");
    expect(await requests(pr)).toHaveLength(1);
    const withdrawn = await reply(pr, SQLI, "/reject", WRITER);
    expect(withdrawn.answer).toContain("Withdrawn");
    expect(await requests(pr)).toEqual([]);
    expect(patches()).toBe(before);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("NOT_STARTED");
  });

  it("a request survives a push and is approved on the new scan's finding; a note request keeps its text", async () => {
    const pr = await pull();
    await reply(pr, SECRET, "/fp the secret is read from the vault in production");
    const before = patches();
    const pushed = await pushAndReport(h, pr);
    const moved = pushed.byTitle.get(SECRET)!;
    expect(moved.id).not.toBe(pr.byTitle.get(SECRET));
    expect(await requests(pr)).toMatchObject([{ findingId: moved.id, requestedBy: WRITER }]);
    expect(moved.resolutionStatus).toBe("NOT_STARTED");

    const ok = await say(
      pr,
      `/diffward approve ${findingLabel(moved.id, "SC")} checked the vault config`,
      MAINTAINER,
    );
    expect(ok.answer).toContain("is now **False positive**");
    expect(patches()).toBe(before + 1);
    const f = h.sandbox.state.findings.get(moved.id)!;
    expect(f.resolutionStatus).toBe("FALSE_POSITIVE");
    // the requester's text goes as the resolution's note, with the approver's words and both people named
    const note = f.notes.map((n) => n.body).find((n) => n.includes("vault in production"));
    expect(note).toContain("checked the vault config");
    expect(note).toContain(`requested by GitHub user @${WRITER} and approved by GitHub user @${MAINTAINER}`);
  });

  it("a severity raise above the request invalidates it: /approve then drops it and changes nothing", async () => {
    const pr = await pull();
    await reply(pr, SECRET, "/mitigate");
    expect(await requests(pr)).toHaveLength(1);
    await reply(pr, SECRET, "/severity critical", MAINTAINER);
    const before = patches();
    const ok = await reply(pr, SECRET, "/approve", MAINTAINER);
    expect(ok.answer).toContain("no longer holds and was dropped");
    expect(patches()).toBe(before);
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("NOT_STARTED");
    expect(await requests(pr)).toEqual([]);
  });

  it("two approvers at once: exactly one PATCH, the other is told it is taken care of", async () => {
    const pr = await pull();
    await reply(pr, SQLI, "/fp guarded_elsewhere");
    const before = patches();
    const parentId = pr.comments.get(pr.byTitle.get(SQLI)!)!;
    const answered = threadAnswers(h, pr, parentId).length;
    const a = writeReviewReply(h, { ...pr, parentId, login: MAINTAINER, body: "/approve" });
    const b = writeReviewReply(h, { ...pr, parentId, login: MAINTAINER2, body: "/approve" });
    const [sa, sb] = await Promise.all([
      h.send("pull_request_review_comment", a),
      h.send("pull_request_review_comment", b),
    ]);
    await Promise.all([waitJob(sa.id), waitJob(sb.id)]);
    await h.waitFor(
      () => threadAnswers(h, pr, parentId).length >= answered + 2 || undefined,
      20_000,
      "two answers",
    );
    const answers = threadAnswers(h, pr, parentId)
      .slice(answered)
      .map((c) => c.body);
    expect(patches()).toBe(before + 1);
    expect(sandboxFinding(h, pr, SQLI).resolutionStatus).toBe("FALSE_POSITIVE");
    expect(answers.filter((x) => x.includes("is now **False positive**"))).toHaveLength(1);
    expect(
      answers.filter(
        (x) =>
          x.includes("is approving the dismissal") ||
          x.includes("nothing to approve") ||
          x.includes("no longer awaiting"),
      ),
    ).toHaveLength(1);
  });

  it("a closing resolution set directly by an approver settles the pending request, and says so", async () => {
    const pr = await pull();
    await reply(pr, SECRET, "/wontfix risk_accepted");
    expect(await requests(pr)).toHaveLength(1);
    const direct = await reply(pr, SECRET, "/resolve fixed_in_code", MAINTAINER);
    expect(direct.answer).toContain("is now **Resolved**");
    expect(direct.answer).toContain(`This settles the Won't fix dismissal \`@${WRITER}\` asked for`);
    expect(await requests(pr)).toEqual([]);
    expect(commentOf(pr, SECRET).body).not.toContain("Dismissal awaiting approval");
  });

  it("a writer's /resolve is held like their /fp: whatever stops a finding from blocking needs the second person", async () => {
    const pr = await pull();
    expect(checkOf(h, pr).conclusion).toBe("failure");
    const before = patches();
    for (const title of [SQLI, SECRET]) {
      const fp = await reply(pr, title, "/fp not_reachable");
      expect(fp.answer).toContain("**Approval requested**");
    }
    expect(await requests(pr)).toHaveLength(2);
    // the same writer marks the same findings resolved: held too, and the pending request is replaced, not lost
    for (const title of [SQLI, SECRET]) {
      const resolved = await reply(pr, title, "/resolve");
      expect(resolved.answer).toContain("**Approval requested**");
      expect(resolved.answer).toContain("as **Resolved**");
      expect(resolved.answer).toContain(`It replaces the False positive dismissal \`@${WRITER}\` asked for`);
      expect(sandboxFinding(h, pr, title).resolutionStatus).toBe("NOT_STARTED");
    }
    expect(patches()).toBe(before);
    expect(checkOf(h, pr).conclusion).toBe("failure");
    expect(await requests(pr)).toMatchObject([
      { findingId: pr.byTitle.get(SQLI), resolutionStatus: "RESOLVED", requestedBy: WRITER },
      { findingId: pr.byTitle.get(SECRET), resolutionStatus: "RESOLVED", requestedBy: WRITER },
    ]);
    // a maintainer approves one: exactly one PATCH, to Resolved
    const ok = await reply(pr, SECRET, "/approve", MAINTAINER);
    expect(ok.answer).toContain("is now **Resolved**");
    expect(patches()).toBe(before + 1);
    expect(sandboxFinding(h, pr, SECRET).resolutionStatus).toBe("RESOLVED");
    expect(checkOf(h, pr).conclusion).toBe("failure");
  });

  it("a writer cannot lower a HIGH finding below minSeverity (it would skip the second person); an approver can", async () => {
    const pr = await pull();
    const SEVERITY = "PATCH /projects/:projectId/findings/:findingId/severity";
    const severityPatches = () =>
      Object.values(h.sandbox.state.stats.requests[SEVERITY] ?? {}).reduce((a, b) => a + b, 0);
    const before = severityPatches();
    const low = await reply(pr, SECRET, "/severity low");
    expect(low.answer).toContain("needs the `maintain` role or above (you have `write`)");
    expect(low.answer).toContain("Nothing was changed");
    const reset = await reply(pr, SECRET, "/severity reset");
    expect(reset.answer).toContain("back to the service's own severity");
    expect(severityPatches()).toBe(before);
    expect(sandboxFinding(h, pr, SECRET).severity).toBe("HIGH");
    // raising, or staying at or above minSeverity, is open to writers
    const up = await reply(pr, SECRET, "/severity critical");
    expect(up.answer).toContain("set to **Critical**");
    expect(severityPatches()).toBe(before + 1);
    // the approver may lower it
    const down = await reply(pr, SECRET, "/severity low", MAINTAINER);
    expect(down.answer).toContain("set to **Low**");
    expect(severityPatches()).toBe(before + 2);
  });
});
