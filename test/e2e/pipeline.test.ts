import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { demoConfig, demoPullFiles } from "../../dev/harness/demo-repo.js";
import { reportEnded } from "../support/pr.js";

const HEAD_1 = "a".repeat(39) + "1";
const MERGE_BASE = "c".repeat(40);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a raw webhook payload, edited in place
type Payload = any;

function openedPayload(head = HEAD_1): Payload {
  const p: Payload = webhookExample("pull_request", "opened");
  p.pull_request.head.sha = head;
  p.pull_request.updated_at = "2026-11-22T10:00:00Z";
  return p;
}

describe("pull request pipeline, end to end over HTTP", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 2_500, retryAfterSeconds: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("opened: one check run, one diff scan with the merge base, one review, annotations, zero OpenAPI violations", async () => {
    const payload = openedPayload();
    const repo = payload.repository;
    h.seed(payload, {
      files: demoPullFiles(),
      mergeBaseSha: MERGE_BASE,
      repoFiles: { [repo.default_branch]: { ".github/diffward.yml": demoConfig() } },
    });
    const res = await h.send("pull_request", payload);
    expect(res.status).toBe(200);

    const owner = repo.owner.login;
    const name = repo.name;
    const done = await h.waitFor(
      () =>
        h.github.state.checkRuns(owner, name).find((c) => c.headSha === HEAD_1 && c.status === "completed"),
      30_000,
      "completed check run",
    );
    await reportEnded(h, done.externalId); // the review goes after the completion
    expect(done.conclusion).toBe("failure"); // the demo scenario has a confirmed critical finding
    expect(done.output.title).toMatch(/blocking/i);
    expect(done.externalId).toMatch(/\S/);

    const scans = [...h.sandbox.state.scans.values()];
    expect(scans).toHaveLength(1);
    expect(scans[0]!.commitHash).toBe(HEAD_1);
    expect(scans[0]!.baseCommit).toBe(MERGE_BASE);

    const reviews = h.github.state.reviews(owner, name);
    expect(reviews).toHaveLength(1);
    const comments = h.github.state.reviewComments(owner, name);
    expect(comments.length).toBeGreaterThan(0);
    expect(comments.every((c) => c.body.includes("<!-- diffward:finding="))).toBe(true);
    expect(comments.some((c) => c.path === "lib/legacy.js")).toBe(false); // outside the diff: summary only
    expect(h.github.violations()).toEqual([]);

    // Writes per pull request, from the stand-in's request log: the check run created,
    // completed with its annotations, then ONE review; a progress write only when the lane was idle.
    const writes = h.github.requests.filter(
      (r) => r.method !== "GET" && r.path.startsWith(`/repos/${owner}/${name}/`) && r.status < 300,
    );
    const kinds = writes.map((r) =>
      r.operationId === "checks/update" && (r.body as { conclusion?: string }).conclusion
        ? "complete"
        : r.operationId,
    );
    expect(kinds[0]).toBe("checks/create");
    expect(kinds.indexOf("complete")).toBeGreaterThan(0);
    expect(kinds.indexOf("pulls/create-review")).toBeGreaterThan(kinds.indexOf("complete"));
    const progress = kinds.filter((k) => k === "checks/update").length;
    expect(writes.length - progress).toBe(3); // create, complete (≤ 50 annotations), review
  });
});
