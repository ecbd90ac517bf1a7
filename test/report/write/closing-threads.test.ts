/**
 * Applying a report's thread writes through the write path (src/report/write/closing-threads.ts): a failed
 * thread change is not fatal.
 */
import { describe, expect, it } from "vitest";
import pino from "pino";
import type { ApplyWrites } from "../../../src/github/writes.js";
import { applyThreadWrites } from "../../../src/report/write/closing-threads.js";

describe("applyThreadWrites", () => {
  it("a thread error is logged and skipped; the comment edit is still made", async () => {
    const calls: string[] = [];
    // the write path as applyWrites answers: a best-effort write that failed is `failed`, any other throws
    const apply: ApplyWrites = async (writes) =>
      writes.map((w) => {
        if (w.kind === "update-review-comment") {
          calls.push(`edit ${w.commentId}`);
          return { kind: "done" };
        }
        calls.push("resolve");
        if (!w.bestEffort) throw new Error("Resource not accessible by integration");
        return { kind: "failed", message: "Resource not accessible by integration" };
      });
    const octokit = {
      graphql: async (q: string) => {
        if (q.includes("reviewThreads"))
          return {
            repository: {
              pullRequest: {
                reviewThreads: {
                  pageInfo: { hasNextPage: false, endCursor: null },
                  nodes: [{ id: "PRRT_1", isResolved: false, comments: { nodes: [{ databaseId: 5 }] } }],
                },
              },
            },
          };
        throw new Error(`unexpected GraphQL document: ${q}`);
      },
    };
    const done = await applyThreadWrites(
      octokit as never,
      apply,
      { owner: "o", repo: "r", pullNumber: 1 },
      [{ kind: "close", commentId: 5, findingId: "x", body: "b" }],
      pino({ level: "silent" }),
    );
    expect(calls).toEqual(["edit 5", "resolve"]);
    // the comment was edited (an applied close, audited), the thread left as it was
    expect(done).toEqual({
      closed: 0,
      reopened: 0,
      applied: [{ kind: "close", commentId: 5, findingId: "x", body: "b" }],
    });
  });
});
