/**
 * Finding identity end to end: a team decision follows the same finding to the next
 * push's scan, says so when it was matched by fingerprint rather than by id, and never closes a different
 * finding of the same shape. Real app, Redis, the sandbox over HTTP and the GitHub stand-in; between
 * pushes the sandbox's scenario is swapped to model what the service reports for the new head.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { loadScenario } from "../../dev/sandbox/findings-source.js";
import type { ScenarioInput } from "../../dev/sandbox/schemas.js";
import { writeReviewReply } from "../../dev/harness/triage.js";
import { findingLabel } from "../../src/scanner/labels.js";
import {
  checkOf,
  nextAnswer,
  openReportedPull,
  pushAndReport,
  threadAnswers,
  type ReportedPull,
} from "../support/reported-pull.js";
import { UnthrottledOctokit } from "../support/octokit.js";

const AWS_8 = "Hard-coded AWS key on line 8";
const AWS_240 = "Hard-coded 'AWS' key on line 240";
const key = (title: string, location: string, triageStatus?: "RECURRING" | "NEW") => ({
  title,
  location,
  severity: "HIGH" as const,
  category: "secrets",
  ...(triageStatus ? { triageStatus } : {}),
  description: "A cloud access key is a literal.",
});
const scenario = (...findings: ScenarioInput["findings"]): ScenarioInput => ({
  name: "identity",
  spendCredits: 10,
  findings,
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    sandbox: {
      scenario: scenario(key(AWS_8, "src/server.js:8")),
      scanDurationMs: 1_000,
      retryAfterSeconds: 1,
    },
    boot: {
      Octokit: UnthrottledOctokit,
    },
  });
});
afterAll(async () => {
  await h?.close();
});

let nextPull = 300;
/** Opens a pull request whose scan reports `first`, and marks its AWS_8 finding a false positive. */
async function decidedPull(first: ScenarioInput): Promise<ReportedPull> {
  h.sandbox.state.scenario = loadScenario(first);
  nextPull += 1;
  const pr = await openReportedPull(h, nextPull, { "octo-writer": "write" });
  const parentId = pr.comments.get(pr.byTitle.get(AWS_8)!)!;
  const payload = writeReviewReply(h, { ...pr, parentId, login: "octo-writer", body: "/fp not_reachable" });
  expect((await h.send("pull_request_review_comment", payload)).status).toBe(200);
  await nextAnswer(h, () => threadAnswers(h, pr, parentId), 0, "answer to /fp");
  expect(checkOf(h, pr).conclusion).toBe("success");
  return pr;
}

const label = (id: string) => findingLabel(id, h.booted.rt.settings.labelPrefix);

describe("finding identity across pushes", () => {
  it("a false positive is not carried to a different finding of the same shape (the AWS-key pair)", async () => {
    const pr = await decidedPull(scenario(key(AWS_8, "src/server.js:8")));
    h.sandbox.state.scenario = loadScenario(scenario(key(AWS_240, "src/server.js:240")));
    const next = await pushAndReport(h, pr);
    const other = next.byTitle.get(AWS_240)!;
    expect(other.resolutionStatus).toBe("NOT_STARTED");
    expect(other.notes).toEqual([]);
    expect(next.check.conclusion).toBe("failure");
    expect(next.check.output.summary).not.toContain("matched by fingerprint");
  });

  it("the same finding on the same line keeps its decision, and the report says it was matched by fingerprint", async () => {
    const pr = await decidedPull(scenario(key(AWS_8, "src/server.js:8")));
    const earlier = pr.byTitle.get(AWS_8)!;
    const next = await pushAndReport(h, pr);
    const same = next.byTitle.get(AWS_8)!;
    expect(same.id).not.toBe(earlier);
    expect(same.triageStatus).toBe("RECURRING"); // the sandbox recognises title, location and category
    expect(same.resolutionStatus).toBe("FALSE_POSITIVE");
    expect(next.check.conclusion).toBe("success");
    const text = `matched by fingerprint to \`${label(earlier)}\``;
    expect(next.check.output.summary).toContain(text);
    const comment = h.github.state
      .reviewComments(pr.owner, pr.repo, pr.pullNumber)
      .find((c) => c.inReplyToId === null && c.body.includes(encodeURIComponent(same.id)))!;
    expect(comment.body).toContain(text);
    expect(same.notes.map((n) => n.body).join("\n")).toContain(text);
  });

  it("a finding the service recognises keeps its decision when a push only shifts its line; a NEW one does not", async () => {
    const pr = await decidedPull(scenario(key(AWS_8, "src/server.js:8")));
    const earlier = pr.byTitle.get(AWS_8)!;
    h.sandbox.state.scenario = loadScenario(scenario(key(AWS_8, "src/server.js:11", "RECURRING")));
    const next = await pushAndReport(h, pr);
    const moved = next.byTitle.get(AWS_8)!;
    expect(moved.resolutionStatus).toBe("FALSE_POSITIVE");
    expect(next.check.conclusion).toBe("success");
    expect(next.check.output.summary).toContain(`matched by fingerprint to \`${label(earlier)}\``);

    // the service calls the moved finding NEW: nobody has looked at it, it stays open
    const pr2 = await decidedPull(scenario(key(AWS_8, "src/server.js:8")));
    h.sandbox.state.scenario = loadScenario(scenario(key(AWS_8, "src/server.js:14", "NEW")));
    const next2 = await pushAndReport(h, pr2);
    expect(next2.byTitle.get(AWS_8)!.resolutionStatus).toBe("NOT_STARTED");
    expect(next2.check.conclusion).toBe("failure");
  });
});
