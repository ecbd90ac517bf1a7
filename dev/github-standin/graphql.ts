import { z } from "zod";
import type { RouteContext, RouteReply } from "./http.js";
import type { ReviewThread } from "./state.js";

/** A GraphQL request body: `query` text and optional `variables`. */
export const GraphqlBody = z.looseObject({
  query: z.string(),
  variables: z.record(z.string(), z.unknown()).nullish(),
});
export type GraphqlBody = z.infer<typeof GraphqlBody>;

/** Result of a GraphQL call; `unsupported` marks a query the stand-in does not understand (a violation). */
export interface GraphqlResult {
  reply: RouteReply;
  unsupported?: string;
}

/** Reads argument `name` of the query text: a `$variable` reference or a literal string/number. */
function arg(query: string, vars: Record<string, unknown>, name: string): unknown {
  const m = new RegExp(`\\b${name}\\s*:\\s*(?:\\$(\\w+)|"((?:[^"\\\\]|\\\\.)*)"|(\\d+))`).exec(query);
  if (m === null) return undefined;
  if (m[1] !== undefined) return vars[m[1]];
  if (m[2] !== undefined) return m[2];
  return m[3] === undefined ? undefined : Number(m[3]);
}

function threadJson(ctx: RouteContext, t: ReviewThread, owner: string, repo: string) {
  const comments = ctx.state
    .reviewComments(owner, repo)
    .filter((c) => c.id === t.rootCommentId || c.inReplyToId === t.rootCommentId);
  const root = comments[0];
  return {
    id: t.id,
    isResolved: t.isResolved,
    isOutdated: false,
    path: root?.path ?? null,
    line: root?.line ?? null,
    comments: {
      totalCount: comments.length,
      nodes: comments.map((c) => ({
        id: `PRRC_${c.id}`,
        databaseId: c.id,
        body: c.body,
        author: { login: c.user.login },
      })),
    },
  };
}

function data(body: unknown): RouteReply {
  return { status: 200, body };
}

/**
 * Answers the GraphQL calls diffward makes, parsing loosely (regexes over the query plus `variables`):
 * - `resolveReviewThread(input: {threadId})` / `unresolveReviewThread(...)` → `{ thread { id isResolved } }`;
 * - `repository(owner, name) { pullRequest(number) { reviewThreads(first: N) { nodes { id isResolved
 *   comments(first: 1) { nodes { databaseId } } } } } }` (extra fields are returned; all threads in one page).
 * Unknown node ids answer `200` with a GraphQL `NOT_FOUND` error, as GitHub does (docs: GraphQL API
 * "resolveReviewThread", "PullRequest.reviewThreads"). Anything else is answered with an error and flagged.
 */
export function handleGraphql(ctx: RouteContext, body: GraphqlBody): GraphqlResult {
  const vars = body.variables ?? {};
  const q = body.query;
  for (const [field, resolved] of [
    ["unresolveReviewThread", false],
    ["resolveReviewThread", true],
  ] as const) {
    if (!new RegExp(`\\b${field}\\s*\\(`).test(q)) continue;
    const input = vars["input"];
    const threadId =
      arg(q, vars, "threadId") ??
      (typeof input === "object" && input !== null
        ? (input as Record<string, unknown>)["threadId"]
        : undefined);
    const thread = typeof threadId === "string" ? ctx.state.threadById(threadId) : undefined;
    const repoOk =
      thread !== undefined &&
      ctx.installationId !== undefined &&
      ctx.state
        .repositoriesOf(ctx.installationId)
        .some((r) => ctx.state.threads(r.owner, r.name).includes(thread));
    if (thread === undefined || !repoOk) {
      return {
        reply: data({
          data: { [field]: null },
          errors: [
            {
              type: "NOT_FOUND",
              path: [field],
              message: `Could not resolve to a node with the global id of '${String(threadId)}'`,
            },
          ],
        }),
      };
    }
    thread.isResolved = resolved;
    return {
      reply: data({ data: { [field]: { thread: { id: thread.id, isResolved: thread.isResolved } } } }),
    };
  }
  if (/\breviewThreads\s*\(/.test(q) && /\brepository\s*\(/.test(q)) {
    const owner = String(arg(q, vars, "owner") ?? "");
    const name = String(arg(q, vars, "name") ?? "");
    const number = Number(arg(q, vars, "number"));
    const repo = ctx.state.repository(owner, name);
    if (repo === undefined || repo.installationId !== ctx.installationId) {
      return {
        reply: data({
          data: { repository: null },
          errors: [
            {
              type: "NOT_FOUND",
              path: ["repository"],
              message: `Could not resolve to a Repository with the name '${owner}/${name}'.`,
            },
          ],
        }),
      };
    }
    const pr = ctx.state.pullRequest(owner, name, number);
    if (pr === undefined) {
      return {
        reply: data({
          data: { repository: { pullRequest: null } },
          errors: [
            {
              type: "NOT_FOUND",
              path: ["repository", "pullRequest"],
              message: `Could not resolve to a PullRequest with the number of ${number}.`,
            },
          ],
        }),
      };
    }
    const nodes = ctx.state.threads(owner, name, number).map((t) => threadJson(ctx, t, owner, name));
    return {
      reply: data({
        data: {
          repository: {
            pullRequest: {
              number,
              reviewThreads: {
                totalCount: nodes.length,
                pageInfo: { hasNextPage: false, endCursor: null },
                nodes,
              },
            },
          },
        },
      }),
    };
  }
  return {
    reply: data({ errors: [{ message: "The GitHub stand-in does not support this GraphQL operation." }] }),
    unsupported: `graphql: unsupported operation: ${q.replace(/\s+/g, " ").slice(0, 120)}`,
  };
}
