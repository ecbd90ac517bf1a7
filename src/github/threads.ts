import { z } from "zod";
import type { InstallationOctokit, PullRef } from "./octokit-types.js";

/** A review thread of a pull request, as far as triage needs it. */
export interface ReviewThreadRef {
  /** GraphQL node id (`PRRT_…`) */
  id: string;
  isResolved: boolean;
}

const ThreadNode = z.looseObject({
  id: z.string(),
  isResolved: z.boolean(),
  comments: z.looseObject({
    nodes: z.array(z.looseObject({ databaseId: z.number().int().nullable() })),
  }),
});
type ThreadNode = z.infer<typeof ThreadNode>;

const ThreadsPage = z.looseObject({
  repository: z
    .looseObject({
      pullRequest: z
        .looseObject({
          reviewThreads: z.looseObject({
            pageInfo: z.looseObject({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
            nodes: z.array(ThreadNode),
          }),
        })
        .nullable(),
    })
    .nullable(),
});

const THREADS_QUERY = `query diffwardThreads($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 1) { nodes { databaseId } } }
      }
    }
  }
}`;

/** At most this many pages of 100 threads are read (10,000 threads), so a loop always ends. */
const MAX_THREAD_PAGES = 100;

/**
 * The review thread whose first comment is `rootCommentId` (the REST id of diffward's finding comment).
 * Source: GitHub GraphQL `PullRequest.reviewThreads` (pages of 100, `after` cursor) with each thread's
 * first comment's `databaseId`. REST has no thread ids, so this query is the only way to map them.
 * @returns the thread, or `undefined` when no thread starts with that comment.
 */
export async function findReviewThread(
  octokit: InstallationOctokit,
  pull: PullRef,
  rootCommentId: number,
): Promise<ReviewThreadRef | undefined> {
  for await (const nodes of threadPages(octokit, pull)) {
    const hit = nodes.find((t) => t.comments.nodes[0]?.databaseId === rootCommentId);
    if (hit) return { id: hit.id, isResolved: hit.isResolved };
  }
  return undefined;
}

/**
 * Every review thread of a pull request by the REST id of its first comment (GitHub GraphQL
 * `PullRequest.reviewThreads`, pages of 100, at most 10,000 threads): one read for a report that changes
 * several threads, instead of one {@link findReviewThread} per thread.
 */
export async function listReviewThreads(
  octokit: InstallationOctokit,
  pull: PullRef,
): Promise<Map<number, ReviewThreadRef>> {
  const out = new Map<number, ReviewThreadRef>();
  for await (const nodes of threadPages(octokit, pull)) {
    for (const t of nodes) {
      const root = t.comments.nodes[0]?.databaseId;
      if (typeof root === "number") out.set(root, { id: t.id, isResolved: t.isResolved });
    }
  }
  return out;
}

/**
 * The pull request's review threads, one page (up to 100 threads) at a time, at most `MAX_THREAD_PAGES`
 * pages; stops early when the caller stops iterating, when GitHub returns no pull request, or at the last page.
 */
async function* threadPages(
  octokit: InstallationOctokit,
  pull: PullRef,
): AsyncGenerator<ThreadNode[], void, undefined> {
  let cursor: string | null = null;
  for (let page = 0; page < MAX_THREAD_PAGES; page++) {
    const raw: unknown = await octokit.graphql(THREADS_QUERY, {
      owner: pull.owner,
      name: pull.repo,
      number: pull.pullNumber,
      cursor,
    });
    const threads = ThreadsPage.parse(raw).repository?.pullRequest?.reviewThreads;
    if (!threads) return;
    yield threads.nodes;
    if (!threads.pageInfo.hasNextPage || !threads.pageInfo.endCursor) return;
    cursor = threads.pageInfo.endCursor;
  }
}

const ThreadMutation = z.looseObject({
  thread: z.looseObject({ id: z.string(), isResolved: z.boolean() }),
});

/**
 * Marks a review thread resolved (`resolved: true`, GraphQL mutation `resolveReviewThread`) or
 * unresolved (`unresolveReviewThread`). Needs the `pull_requests: write` permission.
 * @returns the thread's state after the call.
 * @throws the GraphQL error (unknown thread id, missing permission); callers treat it as non-fatal.
 */
export async function setReviewThreadResolved(
  octokit: InstallationOctokit,
  threadId: string,
  resolved: boolean,
): Promise<ReviewThreadRef> {
  const field = resolved ? "resolveReviewThread" : "unresolveReviewThread";
  const raw: Record<string, unknown> = await octokit.graphql(
    `mutation diffwardThread($threadId: ID!) { ${field}(input: { threadId: $threadId }) { thread { id isResolved } } }`,
    { threadId },
  );
  const { thread } = ThreadMutation.parse(raw[field]);
  return { id: thread.id, isResolved: thread.isResolved };
}
