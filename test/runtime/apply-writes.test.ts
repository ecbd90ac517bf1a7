import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { createCheck, updateCheck } from "../../src/github/writes.js";
import { applyWrites, createdCheckRunId } from "../../src/runtime/apply-writes.js";
import { quickRetryOctokit } from "../support/octokit.js";
import { openPull, sha } from "../support/pr.js";

/**
 * GitHub answering 5xx on writes for longer than Octokit's own retries (3 after each request): the write
 * is sent again through the installation's write lane (real Redis) to the GitHub stand-in over HTTP, and lands
 * once.
 */
describe("applyWrites: GitHub 5xx on a write", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      settings: { writeRetryDelaysMs: [200, 200, 200] },
      // Octokit's own retries, as in production (3), 10 ms apart instead of 1 s, 4 s and 9 s
      boot: { Octokit: quickRetryOctokit(10) },
    });
  });
  afterAll(async () => h?.close());

  async function seededCheckRun(n: number) {
    const pr = await openPull(h, { head: sha(3100 + n), repo: `write-5xx-${n}`, config: null, send: false });
    const installationId = pr.payload.installation.id as number;
    const repo = { owner: pr.owner, repo: pr.repo };
    const created = await applyWrites(h.booted.rt, installationId, [
      createCheck(repo, sha(3100 + n), { status: "in_progress" }),
    ]);
    return { repo, installationId, checkRunId: createdCheckRunId(created)! };
  }

  const patches = (path: RegExp) =>
    h.github.requests.filter((r) => r.method === "PATCH" && path.test(r.path));

  it("a check-run conclusion answered 502 past Octokit's retries is sent again and lands once", async () => {
    const { repo, installationId, checkRunId } = await seededCheckRun(1);
    const route = new RegExp(`/repos/${repo.owner}/${repo.repo}/check-runs/${checkRunId}$`);
    // Octokit sends it 4 times (all 502), the lane's first retry gets a 502 then Octokit's retry lands it.
    h.github.setFaults({ next5xx: 5, status: 502, route });
    const results = await applyWrites(h.booted.rt, installationId, [
      updateCheck(repo, checkRunId, { conclusion: "neutral", output: { title: "Done", summary: "ok" } }),
    ]);
    h.github.setFaults({});
    expect(results).toEqual([{ kind: "done" }]);
    const sent = patches(route);
    expect(sent.filter((r) => r.status === 502)).toHaveLength(5);
    expect(sent.filter((r) => r.status === 200)).toHaveLength(1);
    const run = h.github.state.checkRuns(repo.owner, repo.repo).find((c) => c.id === checkRunId);
    expect(run?.conclusion).toBe("neutral");
    expect(run?.output?.title).toBe("Done");
  }, 60_000);

  it("a best-effort update (a superseded head's conclusion) is not dropped on a 5xx burst", async () => {
    const { repo, installationId, checkRunId } = await seededCheckRun(2);
    const route = new RegExp(`/repos/${repo.owner}/${repo.repo}/check-runs/${checkRunId}$`);
    h.github.setFaults({ next5xx: 4, status: 503, route });
    const results = await applyWrites(h.booted.rt, installationId, [
      { ...updateCheck(repo, checkRunId, { conclusion: "cancelled" }), bestEffort: true },
    ]);
    h.github.setFaults({});
    expect(results).toEqual([{ kind: "done" }]);
    expect(patches(route).filter((r) => r.status === 200)).toHaveLength(1);
    const run = h.github.state.checkRuns(repo.owner, repo.repo).find((c) => c.id === checkRunId);
    expect(run?.conclusion).toBe("cancelled");
  }, 60_000);

  it("a create answered 5xx past Octokit's retries is not sent again by the lane (its job looks it up first)", async () => {
    const pr = await openPull(h, { head: sha(3103), repo: "write-5xx-3", config: null, send: false });
    const installationId = pr.payload.installation.id as number;
    const route = new RegExp(`/repos/${pr.owner}/${pr.repo}/check-runs$`);
    h.github.setFaults({ next5xx: 4, status: 502, route });
    await expect(
      applyWrites(h.booted.rt, installationId, [
        createCheck({ owner: pr.owner, repo: pr.repo }, sha(3103), { status: "queued" }),
      ]),
    ).rejects.toMatchObject({ status: 502 });
    h.github.setFaults({});
    expect(h.github.requests.filter((r) => r.method === "POST" && route.test(r.path))).toHaveLength(4);
    expect(h.github.state.checkRuns(pr.owner, pr.repo)).toHaveLength(0);
  }, 60_000);
  it("a command's answer (a comment) answered 502 past Octokit's retries is not sent again: a 5xx may hide one GitHub made", async () => {
    const pr = await openPull(h, { head: sha(3104), repo: "write-5xx-4", config: null, send: false });
    const installationId = pr.payload.installation.id as number;
    const pull = { owner: pr.owner, repo: pr.repo, pullNumber: pr.number };
    const route = new RegExp(`/repos/${pr.owner}/${pr.repo}/issues/${pr.number}/comments$`);
    h.github.setFaults({ next5xx: 4, status: 502, route });
    await expect(
      applyWrites(h.booted.rt, installationId, [
        { kind: "create-issue-comment", pull, body: "answer", purpose: "answer" },
      ]),
    ).rejects.toMatchObject({ status: 502 });
    h.github.setFaults({});
    expect(h.github.requests.filter((r) => r.method === "POST" && route.test(r.path))).toHaveLength(4);
  }, 60_000);

  it("a reaction to a command answered 502 past Octokit's retries is sent again and lands once", async () => {
    const pr = await openPull(h, { head: sha(3105), repo: "write-5xx-5", config: null, send: false });
    const installationId = pr.payload.installation.id as number;
    const pull = { owner: pr.owner, repo: pr.repo, pullNumber: pr.number };
    const [posted] = await applyWrites(h.booted.rt, installationId, [
      { kind: "create-issue-comment", pull, body: "/diffward status", purpose: "answer" },
    ]);
    const commentId = posted?.kind === "create-issue-comment" ? posted.commentId : -1;
    const route = new RegExp(`/repos/${pr.owner}/${pr.repo}/issues/comments/${commentId}/reactions$`);
    h.github.setFaults({ next5xx: 5, status: 502, route });
    const results = await applyWrites(h.booted.rt, installationId, [
      { kind: "add-reaction", repo: pull, on: "issue", commentId, content: "eyes", purpose: "answer" },
    ]);
    h.github.setFaults({});
    expect(results).toEqual([{ kind: "done" }]);
    const sent = h.github.requests.filter((r) => r.method === "POST" && route.test(r.path));
    expect(sent.filter((r) => r.status === 502)).toHaveLength(5);
    expect(sent.filter((r) => r.status === 201)).toHaveLength(1);
    const reactions = h.github.state.reactions(pr.owner, pr.repo).filter((r) => r.commentId === commentId);
    expect(reactions.map((r) => r.content)).toEqual(["eyes"]);
  }, 60_000);
});
