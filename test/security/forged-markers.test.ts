/**
 * Regression tests of "forged finding markers are never trusted", against the real app on Redis,
 * the sandbox and the GitHub stand-in: a hidden finding marker counts only in a comment written by
 * diffward's own bot login (`<app slug>[bot]`, from `GET /app`). Another bot's or a user's comment carrying
 * a copied marker is ignored by the report (never edited, never taken for diffward's comment) and is no
 * finding thread for commands (a `/diffward publish SC-…` replied under it does nothing).
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Harness } from "../../dev/harness/harness.js";
import { writeReviewReply } from "../../dev/harness/triage.js";
import { findingMarker } from "../../src/render/inline-comment.js";
import { findingLabel } from "../../src/scanner/labels.js";
import { pushAndReport, threadAnswers, type ReportedPull, SQLI, SECRET } from "../support/reported-pull.js";
import { openConfiguredPull, useCommandHarness, WRITER } from "../support/commands.js";

let h: Harness;
useCommandHarness((started) => (h = started), { scanDurationMs: 800 });

let nextPull = 500;
async function pull(configExtra = ""): Promise<ReportedPull> {
  nextPull += 1;
  return openConfiguredPull(h, nextPull, { [WRITER]: "write" }, configExtra);
}

/** Writes a thread root on the pull request as `login` (a user or another bot), copying `body`. */
function forge(pr: ReportedPull, copyOf: number, login: string, type: "User" | "Bot", body?: string) {
  const comments = h.github.state.reviewComments(pr.owner, pr.repo);
  const original = comments.find((c) => c.id === copyOf)!;
  const id = h.github.state.newId();
  comments.push({
    ...original,
    id,
    inReplyToId: null,
    body: body ?? original.body,
    user: { login, type, id: h.github.state.userId(login) },
  });
  return id;
}

const bodyOf = (pr: ReportedPull, id: number) =>
  h.github.state.reviewComments(pr.owner, pr.repo).find((c) => c.id === id)!.body;

async function queuesIdle() {
  await h.waitFor(
    async () => {
      const counts = await Promise.all(
        Object.values(h.booted.rt.queues).map((q) =>
          q.getJobCounts("active", "waiting", "prioritized", "delayed"),
        ),
      );
      return counts.every((c) => Object.values(c).every((n) => n === 0)) || undefined;
    },
    20_000,
    "queues idle",
  );
}

describe("finding markers are trusted only from diffward's own bot login", () => {
  it("the app reads its bot login from GET /app once per process", async () => {
    expect(await h.booted.rt.botLogin()).toBe("diffward[bot]");
    const before = h.github.requests.filter((r) => r.method === "GET" && r.path === "/app").length;
    await h.booted.rt.botLogin();
    expect(h.github.requests.filter((r) => r.method === "GET" && r.path === "/app").length).toBe(before);
  });

  it("the report neither edits nor trusts another bot's or a user's comment carrying a copied marker", async () => {
    const pr = await pull();
    const secretComment = pr.comments.get(pr.byTitle.get(SECRET)!)!;
    // Copies of diffward's own comment (its marker first), and a marker of a finding that does not exist.
    const fakeMarker = `${findingMarker(`f_${randomBytes(4).toString("hex")}`, "ab".repeat(32), "cd".repeat(32))}\nlooks like diffward`;
    const forged = [
      forge(pr, secretComment, "other-app[bot]", "Bot"),
      forge(pr, secretComment, "mallory", "User"),
      forge(pr, secretComment, "other-app[bot]", "Bot", fakeMarker),
      forge(pr, secretComment, "mallory", "User", fakeMarker),
    ];
    const before = forged.map((id) => bodyOf(pr, id));
    const ownBefore = bodyOf(pr, secretComment);

    const second = await pushAndReport(h, pr);
    await queuesIdle();
    // The forged comments are untouched: not updated as the finding's comment, not closed as "not reported".
    expect(forged.map((id) => bodyOf(pr, id))).toEqual(before);
    // diffward's own comment is the one that follows the finding into the new scan.
    const ownAfter = bodyOf(pr, secretComment);
    expect(ownAfter).not.toBe(ownBefore);
    expect(ownAfter).toContain(encodeURIComponent(second.byTitle.get(SECRET)!.id));
    const roots = h.github.state
      .reviewComments(pr.owner, pr.repo, pr.pullNumber)
      .filter((c) => c.inReplyToId === null && c.user.login === "diffward[bot]");
    expect(
      roots.filter((c) => c.body.includes(encodeURIComponent(second.byTitle.get(SECRET)!.id))),
    ).toHaveLength(1);
    expect(h.github.violations()).toEqual([]);
  });

  it("a /diffward publish replied under another bot's or a user's copy of a finding comment does nothing", async () => {
    const pr = await pull("commands:\n  publishPermission: write");
    const sqli = pr.byTitle.get(SQLI)!;
    const own = pr.comments.get(sqli)!;
    const command = `/diffward publish ${findingLabel(sqli)}`;
    const published = () =>
      h.sandbox.state.published.filter((p) => p.kind === "finding" && p.targetId === sqli).length;
    for (const [login, type] of [
      ["other-app[bot]", "Bot"],
      ["mallory", "User"],
    ] as const) {
      const parentId = forge(pr, own, login, type);
      const payload = writeReviewReply(h, { ...pr, parentId, login: WRITER, body: command });
      expect((await h.send("pull_request_review_comment", payload)).status).toBe(200);
      await queuesIdle();
      expect(published()).toBe(0);
      expect(threadAnswers(h, pr, parentId)).toEqual([]);
    }
    // The same reply under diffward's own comment publishes: the path itself works.
    const payload = writeReviewReply(h, { ...pr, parentId: own, login: WRITER, body: command });
    expect((await h.send("pull_request_review_comment", payload)).status).toBe(200);
    await h.waitFor(() => published() === 1 || undefined, 20_000, "published through diffward's own comment");
  });
});
