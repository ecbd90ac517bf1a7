import { z } from "zod";
import type { RouteContext, RouteReply } from "./http.js";
import type { ReviewThread } from "./state.js";
import { GqlSyntaxError, parseOperation, resolveValue } from "./graphql-document.js";
import type { GraphqlPoints } from "./graphql-exec.js";
import { Executor, installationPoints, priceQuery } from "./graphql-exec.js";

/** A GraphQL request body: `query` text and optional `variables`. */
export const GraphqlBody = z.looseObject({
  query: z.string(),
  operationName: z.string().nullish(),
  variables: z.record(z.string(), z.unknown()).nullish(),
});
export type GraphqlBody = z.infer<typeof GraphqlBody>;

/** Result of a GraphQL call; `unsupported` marks a query the stand-in does not understand (a violation). */
export interface GraphqlResult {
  reply: RouteReply;
  unsupported?: string;
  /** points the query cost its installation (GitHub's `rateLimit.cost`), when it ran */
  cost?: number;
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
export function handleGraphql(ctx: RouteContext, body: GraphqlBody, points: GraphqlPoints): GraphqlResult {
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
  return runQuery(ctx, body, points);
}

const refused = (q: string, errors: Array<{ message: string }>): GraphqlResult => ({
  reply: data({ errors }),
  unsupported: `graphql: refused: ${errors[0]?.message ?? ""} in ${q.replace(/\s+/g, " ").slice(0, 120)}`,
});

/**
 * A query over the schema of `graphql-types.ts`: parsed, validated and priced (`graphql-exec.ts`), charged to
 * the installation's hourly points (`x-ratelimit-*` with `x-ratelimit-resource: graphql`), then run. A query
 * GitHub would refuse (syntax, unknown field or argument, paging bounds, node limit) is answered with its
 * errors and flagged; one over the budget answers `RATE_LIMITED`.
 */
function runQuery(ctx: RouteContext, body: GraphqlBody, points: GraphqlPoints): GraphqlResult {
  const q = body.query;
  let op;
  try {
    op = parseOperation(q, body.operationName ?? undefined);
  } catch (error) {
    if (error instanceof GqlSyntaxError) return refused(q, [{ message: error.message }]);
    throw error;
  }
  if (op.type !== "query")
    return refused(q, [{ message: "The GitHub stand-in does not support this GraphQL operation." }]);
  const vars = {
    ...Object.fromEntries(Object.entries(op.defaults).map(([k, v]) => [k, resolveValue(v, {})])),
    ...body.variables,
  };
  const price = priceQuery(op, vars);
  if (price.errors.length > 0) return refused(q, price.errors);
  const installationId = ctx.installationId ?? 0;
  const limit = points.fixed?.points ?? installationPoints(ctx.state.repositoriesOf(installationId).length);
  const dryRun = op.selections.some(
    (s) =>
      s.kind === "field" && s.name === "rateLimit" && resolveValue(s.args["dryRun"] ?? false, vars) === true,
  );
  const charged = points.charge(installationId, limit, price.cost, Date.now(), dryRun);
  const headers = {
    "x-ratelimit-limit": String(limit),
    "x-ratelimit-remaining": String(charged.rateLimit.remaining),
    "x-ratelimit-used": String(charged.rateLimit.used),
    "x-ratelimit-reset": String(Math.floor(Date.parse(charged.rateLimit.resetAt) / 1000)),
    "x-ratelimit-resource": "graphql",
  };
  if (charged.over)
    return {
      reply: {
        status: 200,
        headers,
        body: {
          errors: [
            {
              type: "RATE_LIMITED",
              message: `API rate limit exceeded for installation ID ${installationId}.`,
            },
          ],
        },
      },
    };
  const exec = new Executor(ctx, vars);
  const rateLimit = { __typename: "RateLimit", ...charged.rateLimit, nodeCount: price.nodes };
  const result = exec.run({ __typename: "Query", rateLimit }, op.selections);
  const out = exec.errors.length > 0 ? { data: result, errors: exec.errors } : { data: result };
  return { reply: { status: 200, headers, body: out }, ...(dryRun ? {} : { cost: price.cost }) };
}
