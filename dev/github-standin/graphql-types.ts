/**
 * The stand-in's resolvers over GitHub's own GraphQL schema (`graphql-schema.ts`: `@octokit/graphql-schema`),
 * by GitHub's type and field names (https://docs.github.com/en/graphql/reference): `Query.node/nodes/repository/
 * rateLimit`, `Repository` (`object`, `defaultBranchRef`, `refs`, `pullRequests`, `pullRequest`), `Ref`,
 * `Commit.checkSuites`, `CheckSuite.checkRuns`, `CheckRun`, `Blob`, `PullRequest` (`commits`, `reviewThreads`),
 * `PullRequestCommit`, `PullRequestReviewThread`, `PullRequestReviewComment`, and the mutations
 * `resolveReviewThread`/`unresolveReviewThread`. A resolver reads the stand-in's state; a connection's resolver
 * returns every item and the executor pages it (`graphql-exec.ts`). A miss GitHub reports as `NOT_FOUND` throws
 * {@link notFound}; a field of GitHub's schema without a resolver here is one the stand-in does not serve.
 */
import { GraphQLError } from "graphql";
import type { RouteContext } from "./http.js";
import {
  blobSha,
  repoNodeId,
  type CheckRun,
  type PullRequest,
  type Repository,
  type ReviewThread,
} from "./state.js";

/** A resolved object: its GraphQL type name and what its resolvers read. */
export interface GqlObject {
  __typename: string;
  [k: string]: unknown;
}

/** A field's resolver: the parent object, the field's arguments (coerced by the schema), the request. */
export type Resolver = (obj: GqlObject, args: Record<string, unknown>, ctx: RouteContext) => unknown;

/** GitHub's `NOT_FOUND` error (a `type` beside the message, as GitHub's answers carry it). */
export function notFound(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { type: "NOT_FOUND" } });
}

const field =
  <K extends string>(k: K): Resolver =>
  (o) =>
    o[k];
const b64 = (s: string) => Buffer.from(s).toString("base64");

/** The repository of a node id ({@link repoNodeId}), when its installation may read it. */
function repoById(ctx: RouteContext, id: string): Repository | undefined {
  if (ctx.installationId === undefined) return undefined;
  return ctx.state.repositoryByNodeId(ctx.installationId, id);
}

/** The `Repository` object of `repo`. */
export function repositoryObject(repo: Repository): GqlObject {
  return { __typename: "Repository", repo };
}

/** A node id of the stand-in (GitHub's are opaque: only `id`s it gave are read back), else `NOT_FOUND`. */
function nodeOf(ctx: RouteContext, id: string): GqlObject | GraphQLError {
  const repo = repoById(ctx, id);
  return repo === undefined
    ? notFound(`Could not resolve to a node with the global id of '${id}'`)
    : repositoryObject(repo);
}

/** The head commit of `branch` in `repo` (pushes set it; an open pull request's head branch has its head). */
function branchHead(ctx: RouteContext, repo: Repository, branch: string): string | undefined {
  return (
    repo.branches.get(branch) ??
    ctx.state.pullRequests(repo.owner, repo.name).find((p) => p.state === "open" && p.head.ref === branch)
      ?.head.sha
  );
}

function commitObject(repo: Repository, oid: string): GqlObject {
  return { __typename: "Commit", repo, oid };
}

function refObject(repo: Repository, qualified: string, oid: string, prefix: string): GqlObject {
  return { __typename: "Ref", repo, name: qualified.slice(prefix.length), prefix, oid };
}

/** `object(expression: "<rev>:<path>")`: a file of the stand-in's tree (`HEAD` is the default branch). */
function objectAt(ctx: RouteContext, repo: Repository, expression: string): GqlObject | null {
  const at = expression.indexOf(":");
  const rev = at < 0 ? expression : expression.slice(0, at);
  const ref = rev === "HEAD" || rev === "" ? repo.defaultBranch : rev.replace(/^refs\/heads\//, "");
  if (at < 0) {
    const oid = branchHead(ctx, repo, ref) ?? (/^[0-9a-f]{40}$/.test(ref) ? ref : undefined);
    return oid === undefined ? null : commitObject(repo, oid);
  }
  const text = repo.files.get(ref)?.get(expression.slice(at + 1).replace(/^\/+/, ""));
  return text === undefined ? null : { __typename: "Blob", text };
}

/** The app id GitHub shows for a check run (the installation's app when its slug matches). */
function appIdOf(ctx: RouteContext, repo: Repository, slug: string): number {
  const inst = ctx.state.installation(repo.installationId);
  if (inst?.appSlug === slug) return inst.appId;
  return [...slug].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 1_000_000, 7);
}

/** GitHub keeps one check suite per app and commit: the stand-in's check runs grouped so. */
function checkSuites(ctx: RouteContext, repo: Repository, oid: string, filter: Record<string, unknown>) {
  const bySlug = new Map<string, CheckRun[]>();
  for (const run of ctx.state.checkRuns(repo.owner, repo.name)) {
    if (run.headSha !== oid) continue;
    bySlug.set(run.appSlug, [...(bySlug.get(run.appSlug) ?? []), run]);
  }
  return [...bySlug]
    .map(([slug, runs]) => ({ __typename: "CheckSuite", repo, slug, appId: appIdOf(ctx, repo, slug), runs }))
    .filter((s) => filter["appId"] == null || s.appId === filter["appId"])
    .filter((s) => filter["checkName"] == null || s.runs.some((r) => r.name === filter["checkName"]));
}

/** `CheckSuite.checkRuns(filterBy: CheckRunFilter)`: `checkType` `LATEST` keeps each name's newest run. */
function checkRuns(runs: readonly CheckRun[], filter: Record<string, unknown>): GqlObject[] {
  let out = [...runs].sort((a, b) => a.id - b.id);
  if (filter["checkName"] != null) out = out.filter((r) => r.name === filter["checkName"]);
  if (filter["status"] != null) out = out.filter((r) => r.status.toUpperCase() === filter["status"]);
  if (filter["checkType"] === "LATEST") {
    const latest = new Map<string, CheckRun>();
    for (const r of out) latest.set(r.name, r);
    out = [...latest.values()];
  }
  return out.map((run) => ({ __typename: "CheckRun", run }));
}

function pullObject(repo: Repository, pr: PullRequest): GqlObject {
  return { __typename: "PullRequest", repo, pr };
}

const STATE_OF = { open: "OPEN", closed: "CLOSED" } as const;

const repository = (o: GqlObject) => o["repo"] as Repository;
const pull = (o: GqlObject) => o["pr"] as PullRequest;
const run = (o: GqlObject) => o["run"] as CheckRun;

/** A thread's repository is one the request's installation may read. */
function threadReadable(ctx: RouteContext, thread: ReviewThread): boolean {
  return (
    ctx.installationId !== undefined &&
    ctx.state
      .repositoriesOf(ctx.installationId)
      .some((r) => ctx.state.threads(r.owner, r.name).includes(thread))
  );
}

function threadObject(ctx: RouteContext, thread: ReviewThread): GqlObject {
  const repo = ctx.state
    .repositoriesOf(ctx.installationId ?? 0)
    .find((r) => ctx.state.threads(r.owner, r.name).includes(thread));
  const comments = repo
    ? ctx.state
        .reviewComments(repo.owner, repo.name)
        .filter((c) => c.id === thread.rootCommentId || c.inReplyToId === thread.rootCommentId)
    : [];
  return { __typename: "PullRequestReviewThread", thread, comments };
}

/** `resolveReviewThread` / `unresolveReviewThread`: sets the thread's state, `NOT_FOUND` for another's. */
function setThreadResolved(resolved: boolean): Resolver {
  return (_o, a, ctx) => {
    const threadId = String((a["input"] as Record<string, unknown>)["threadId"]);
    const thread = ctx.state.threadById(threadId);
    if (thread === undefined || !threadReadable(ctx, thread))
      throw notFound(`Could not resolve to a node with the global id of '${threadId}'`);
    thread.isResolved = resolved;
    return { thread: threadObject(ctx, thread) };
  };
}

const comment = (o: GqlObject) => o["comment"] as ReturnType<RouteContext["state"]["reviewComments"]>[number];
const thread = (o: GqlObject) => o["thread"] as ReviewThread;

/**
 * The stand-in's resolvers: type name → field name → resolver. A connection's resolver returns all its
 * items (the executor pages them); `RateLimit` is the executor's.
 */
export const RESOLVERS: Record<string, Record<string, Resolver>> = {
  Query: {
    node: (_o, a, ctx) => {
      const n = nodeOf(ctx, String(a["id"]));
      if (n instanceof GraphQLError) throw n;
      return n;
    },
    nodes: (_o, a, ctx) => (a["ids"] as string[]).map((id) => nodeOf(ctx, String(id))),
    repository: (_o, a, ctx) => {
      const repo = ctx.state.repository(String(a["owner"]), String(a["name"]));
      if (repo === undefined || repo.installationId !== ctx.installationId)
        throw notFound(
          `Could not resolve to a Repository with the name '${String(a["owner"])}/${String(a["name"])}'.`,
        );
      return repositoryObject(repo);
    },
    rateLimit: (o) => o["rateLimit"],
  },
  Mutation: {
    resolveReviewThread: setThreadResolved(true),
    unresolveReviewThread: setThreadResolved(false),
  },
  RateLimit: Object.fromEntries(
    ["cost", "limit", "remaining", "resetAt", "used", "nodeCount"].map((k) => [k, field(k)]),
  ),
  Repository: {
    id: (o) => repoNodeId(repository(o)),
    databaseId: (o) => repository(o).id,
    name: (o) => repository(o).name,
    nameWithOwner: (o) => `${repository(o).owner}/${repository(o).name}`,
    isPrivate: (o) => repository(o).private,
    isArchived: () => false,
    owner: (o) => ({ __typename: "Organization", login: repository(o).owner }),
    object: (o, a, ctx) => objectAt(ctx, repository(o), String(a["expression"] ?? a["oid"] ?? "")),
    defaultBranchRef: (o, _a, ctx) => {
      const repo = repository(o);
      const oid = branchHead(ctx, repo, repo.defaultBranch);
      return oid === undefined
        ? null
        : refObject(repo, `refs/heads/${repo.defaultBranch}`, oid, "refs/heads/");
    },
    refs: (o, a, ctx) => {
      const prefix = String(a["refPrefix"]);
      return ctx.state
        .refsOf(repository(o).owner, repository(o).name)
        .filter(([ref]) => ref.startsWith(prefix))
        .map(([ref, oid]) => refObject(repository(o), ref, oid, prefix));
    },
    pullRequests: (o, a, ctx) => {
      const states = (a["states"] as string[] | undefined) ?? null;
      const repo = repository(o);
      return ctx.state
        .pullRequests(repo.owner, repo.name)
        .filter((p) => states === null || states.includes(STATE_OF[p.state]))
        .filter((p) => a["baseRefName"] == null || p.base.ref === a["baseRefName"])
        .filter((p) => a["headRefName"] == null || p.head.ref === a["headRefName"])
        .sort((x, y) => x.number - y.number)
        .map((p) => pullObject(repo, p));
    },
    pullRequest: (o, a, ctx) => {
      const repo = repository(o);
      const pr = ctx.state.pullRequest(repo.owner, repo.name, Number(a["number"]));
      if (pr === undefined)
        throw notFound(`Could not resolve to a PullRequest with the number of ${String(a["number"])}.`);
      return pullObject(repo, pr);
    },
  },
  Organization: { login: field("login") },
  User: { login: field("login") },
  Bot: { login: field("login") },
  Ref: {
    id: (o) => `REF_${b64(`${repository(o).id}:${String(o["prefix"])}${String(o["name"])}`)}`,
    name: field("name"),
    prefix: field("prefix"),
    target: (o) => commitObject(repository(o), String(o["oid"])),
  },
  Commit: {
    id: (o) => `C_${String(o["oid"])}`,
    oid: field("oid"),
    abbreviatedOid: (o) => String(o["oid"]).slice(0, 7),
    checkSuites: (o, a, ctx) =>
      checkSuites(ctx, repository(o), String(o["oid"]), (a["filterBy"] as Record<string, unknown>) ?? {}),
  },
  Blob: {
    oid: (o) => blobSha(String(o["text"])),
    text: field("text"),
    byteSize: (o) => Buffer.byteLength(String(o["text"])),
    isBinary: () => false,
    isTruncated: () => false,
  },
  Tree: { oid: field("oid") },
  CheckSuite: {
    databaseId: (o) => o["appId"],
    app: (o) => ({ __typename: "App", databaseId: o["appId"], slug: o["slug"] }),
    checkRuns: (o, a) => checkRuns(o["runs"] as CheckRun[], (a["filterBy"] as Record<string, unknown>) ?? {}),
  },
  App: { databaseId: field("databaseId"), slug: field("slug"), name: field("slug") },
  CheckRun: {
    id: (o) => `CR_${run(o).id}`,
    databaseId: (o) => run(o).id,
    name: (o) => run(o).name,
    status: (o) => run(o).status.toUpperCase(),
    conclusion: (o) => run(o).conclusion?.toUpperCase() ?? null,
    externalId: (o) => run(o).externalId,
    startedAt: (o) => run(o).startedAt,
    completedAt: (o) => run(o).completedAt,
    detailsUrl: (o) => run(o).detailsUrl,
  },
  PullRequest: {
    id: (o) => `PR_${pull(o).id}`,
    databaseId: (o) => pull(o).id,
    number: (o) => pull(o).number,
    title: (o) => pull(o).title,
    state: (o) => STATE_OF[pull(o).state],
    isDraft: (o) => pull(o).draft,
    url: (o, _a, ctx) => `${ctx.origin}/${repository(o).owner}/${repository(o).name}/pull/${pull(o).number}`,
    headRefName: (o) => pull(o).head.ref,
    headRefOid: (o) => pull(o).head.sha,
    baseRefName: (o) => pull(o).base.ref,
    baseRefOid: (o) => pull(o).base.sha,
    createdAt: (o) => pull(o).createdAt,
    updatedAt: (o) => pull(o).updatedAt,
    author: (o) => ({ __typename: "User", login: pull(o).user.login }),
    headRepository: (o) => repositoryObject(repository(o)),
    // the stand-in keeps a pull request's head only: its one commit
    commits: (o) => [{ __typename: "PullRequestCommit", repo: repository(o), oid: pull(o).head.sha }],
    reviewThreads: (o, _a, ctx) =>
      ctx.state
        .threads(repository(o).owner, repository(o).name, pull(o).number)
        .map((t) => threadObject(ctx, t)),
  },
  PullRequestCommit: {
    commit: (o) => commitObject(repository(o), String(o["oid"])),
  },
  PullRequestReviewThread: {
    id: (o) => thread(o).id,
    isResolved: (o) => thread(o).isResolved,
    isOutdated: () => false,
    path: (o) => (o["comments"] as Array<{ path: string }>)[0]?.path ?? null,
    line: (o) => (o["comments"] as Array<{ line?: number | null }>)[0]?.line ?? null,
    comments: (o) =>
      (o["comments"] as Array<Record<string, unknown>>).map((c) => ({
        __typename: "PullRequestReviewComment",
        comment: c,
      })),
  },
  PullRequestReviewComment: {
    id: (o) => `PRRC_${comment(o).id}`,
    databaseId: (o) => comment(o).id,
    body: (o) => comment(o).body,
    author: (o) => ({ __typename: "User", login: comment(o).user.login }),
  },
};
