/**
 * Events GitHub could not deliver while diffward was down take effect once it is back: GitHub never
 * redelivers on its own (docs: "Handling failed webhook deliveries"), so diffward's start-up recovery lists
 * the App's deliveries on the GitHub stand-in and asks for the failed ones again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { demoConfig, demoPullFiles } from "../../dev/harness/demo-repo.js";
import { writeReviewReply } from "../../dev/harness/triage.js";
import { TRIAGE_SCENARIO, nextSha, openReportedPull, threadAnswers, SQLI } from "../support/reported-pull.js";
import type { Payload } from "../support/pr.js";
import { sandboxCalls } from "../support/commands.js";
import { UnthrottledOctokit } from "../support/octokit.js";

const PATCH_RESOLUTION = "PATCH /projects/:projectId/findings/:findingId/resolution";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    sandbox: { scenario: TRIAGE_SCENARIO, scanDurationMs: 1_000, retryAfterSeconds: 1 },
    // a redelivery asked for while the app was still down is pending 3 s, then asked for again
    settings: { redeliveryPaceMs: 0, redeliveryPendingMs: 3_000 },
    boot: {
      recoverDeliveries: true,
      Octokit: UnthrottledOctokit,
    },
  });
});
afterAll(async () => {
  await h?.close();
});

/** Stops diffward: no webhook endpoint, no workers. */
async function stopApp(): Promise<void> {
  await h.stopWeb();
  await Promise.all(h.booted.workers.map((w) => w.close()));
}

/** Starts diffward again: the web server, then the workers (which run the start-up recovery). */
async function startApp(): Promise<void> {
  await h.startWeb();
  h.booted.startWorkers();
}

const deliveriesOf = (guid: string) => h.github.state.deliveries.list().filter((d) => d.guid === guid);
const scansOf = (head: string) => [...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head);

describe("missed webhook deliveries", () => {
  it("a pull request opened and a reply posted while diffward is down each take effect exactly once after it starts", async () => {
    const reported = await openReportedPull(h, 301, { "octo-writer": "write" });
    const parentId = reported.comments.get(reported.byTitle.get(SQLI)!)!;
    const answersBefore = threadAnswers(h, reported, parentId).length;
    const patchesBefore = sandboxCalls(h, PATCH_RESOLUTION);

    await stopApp();
    // a pull request opened meanwhile
    const head = nextSha();
    const opened: Payload = webhookExample("pull_request", "opened");
    opened.number = 302;
    opened.pull_request.number = 302;
    opened.pull_request.head.sha = head;
    opened.pull_request.updated_at = new Date().toISOString();
    h.seed(opened, {
      files: demoPullFiles(),
      repoFiles: { [opened.repository.default_branch]: { ".github/diffward.yml": demoConfig("") } },
    });
    const openedSent = await h.send("pull_request", opened);
    // a slash command replied meanwhile in a finding's thread
    const reply = writeReviewReply(h, {
      ...reported,
      parentId,
      login: "octo-writer",
      body: "/FP not_reachable",
    });
    const replySent = await h.send("pull_request_review_comment", reply);
    expect([openedSent.status, replySent.status]).toEqual([0, 0]);
    expect(openedSent.delivery.status).toBe("failed to connect to host");

    await startApp();
    const run = await h.waitFor(
      () =>
        h.github.state
          .checkRuns(opened.repository.owner.login, opened.repository.name)
          .find((c) => c.headSha === head && c.status === "completed"),
      40_000,
      "the check run of the pull request opened while diffward was down",
    );
    expect(run.name).toBe("diffward");
    await h.waitFor(() => threadAnswers(h, reported, parentId).length > answersBefore, 20_000, "the answer");
    const resolved = h.sandbox.state.findings.get(reported.byTitle.get(SQLI)!)!;
    expect(resolved.resolutionStatus).toBe("FALSE_POSITIVE");

    // the same GUIDs, redelivered by GitHub (redelivery: true), succeeded; nothing was redelivered twice
    for (const guid of [openedSent.id, replySent.id]) {
      const all = deliveriesOf(guid); // newest first
      expect(all[0]).toMatchObject({ guid, redelivery: true, status: "OK" });
      expect(all.filter((d) => d.status === "OK")).toHaveLength(1);
      expect(all.filter((d) => !d.redelivery)).toHaveLength(1);
    }
    // and each took effect once: one scan of the new head, one resolution PATCH, one answer
    const again = await h.booted.recoverDeliveries();
    expect(again.redelivered).toEqual([]);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(scansOf(head)).toHaveLength(1);
    expect(sandboxCalls(h, PATCH_RESOLUTION)).toBe(patchesBefore + 1);
    expect(threadAnswers(h, reported, parentId)).toHaveLength(answersBefore + 1);
    expect(
      h.github.state
        .checkRuns(opened.repository.owner.login, opened.repository.name)
        .filter((c) => c.headSha === head),
    ).toHaveLength(1);
    expect(h.github.violations()).toEqual([]);
  });
});
