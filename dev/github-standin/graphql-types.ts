/**
 * The part of GitHub's GraphQL schema the stand-in serves, with GitHub's type, field and argument names
 * (https://docs.github.com/en/graphql/reference): `Query.node/nodes/repository/rateLimit`, `Repository`
 * (`object`, `defaultBranchRef`, `refs`, `pullRequests`), `Ref`, `Commit.checkSuites`, `CheckSuite.checkRuns`,
 * `CheckRun`, `Blob`, `PullRequest` (`commits`), `PullRequestCommit`. A field's resolver reads the stand-in's
 * state; a connection's resolver returns every item and the executor pages it (`graphql-exec.ts`).
 */
import type { RouteContext } from "./http.js";
import { blobSha, repoNodeId, type CheckRun, type PullRequest, type Repository } from "./state.js";

/** A resolved object: its GraphQL type name and what its resolvers read. */
export interface GqlObject {
  __typename: string;
  [k: string]: unknown;
}

/** A field of a type: its arguments, the type it returns (`Scalar` for a leaf), whether it is a connection. */
export interface FieldDef {
  args?: readonly string[];
  of: string;
  /** a connection of `of` nodes: `first`/`last` required, 1..100, paged by the executor */
  connection?: true;
  /** a list of `of` (like `Query.nodes`) */
  list?: true;
  resolve: (obj: GqlObject, args: Record<string, unknown>, ctx: RouteContext) => unknown;
}

const PAGING = ["first", "last", "after", "before"] as const;

/** Interfaces and unions and the object types that implement them. */
export const ABSTRACT: Record<string, readonly string[]> = {
  Node: [
    "Repository",
    "Ref",
    "Commit",
    "Blob",
    "Tree",
    "CheckSuite",
    "CheckRun",
    "PullRequest",
    "User",
    "App",
  ],
  GitObject: ["Commit", "Blob", "Tree"],
  RepositoryOwner: ["User", "Organization"],
  Actor: ["User", "Bot"],
};

const scalar = (resolve: FieldDef["resolve"]): FieldDef => ({ of: "Scalar", resolve });
const field = <K extends string>(k: K) => scalar((o) => o[k]);
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

/** A node id of the stand-in (GitHub's are opaque: only `id`s it gave are read back). */
function nodeOf(ctx: RouteContext, id: string): GqlObject | null {
  const repo = repoById(ctx, id);
  return repo === undefined ? null : repositoryObject(repo);
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

/** The stand-in's GraphQL types: field name → definition. `RateLimit` is filled by the executor. */
export const TYPES: Record<string, Record<string, FieldDef>> = {
  Query: {
    node: { args: ["id"], of: "Node", resolve: (_o, a, ctx) => nodeOf(ctx, String(a["id"])) },
    nodes: {
      args: ["ids"],
      of: "Node",
      list: true,
      resolve: (_o, a, ctx) => (a["ids"] as string[]).map((id) => nodeOf(ctx, String(id))),
    },
    repository: {
      args: ["owner", "name", "followRenames"],
      of: "Repository",
      resolve: (_o, a, ctx) => {
        const repo = ctx.state.repository(String(a["owner"]), String(a["name"]));
        return repo === undefined || repo.installationId !== ctx.installationId
          ? null
          : repositoryObject(repo);
      },
    },
    rateLimit: { args: ["dryRun"], of: "RateLimit", resolve: (o) => o["rateLimit"] },
  },
  RateLimit: Object.fromEntries(
    ["cost", "limit", "remaining", "resetAt", "used", "nodeCount"].map((k) => [k, field(k)]),
  ),
  Repository: {
    id: scalar((o) => repoNodeId(repository(o))),
    databaseId: scalar((o) => repository(o).id),
    name: scalar((o) => repository(o).name),
    nameWithOwner: scalar((o) => `${repository(o).owner}/${repository(o).name}`),
    isPrivate: scalar((o) => repository(o).private),
    isArchived: scalar(() => false),
    owner: {
      of: "RepositoryOwner",
      resolve: (o) => ({ __typename: "Organization", login: repository(o).owner }),
    },
    object: {
      args: ["expression", "oid"],
      of: "GitObject",
      resolve: (o, a, ctx) => objectAt(ctx, repository(o), String(a["expression"] ?? a["oid"] ?? "")),
    },
    defaultBranchRef: {
      of: "Ref",
      resolve: (o, _a, ctx) => {
        const repo = repository(o);
        const oid = branchHead(ctx, repo, repo.defaultBranch);
        return oid === undefined
          ? null
          : refObject(repo, `refs/heads/${repo.defaultBranch}`, oid, "refs/heads/");
      },
    },
    refs: {
      args: ["refPrefix", "query", "direction", "orderBy", ...PAGING],
      of: "Ref",
      connection: true,
      resolve: (o, a, ctx) => {
        const prefix = String(a["refPrefix"]);
        return ctx.state
          .refsOf(repository(o).owner, repository(o).name)
          .filter(([ref]) => ref.startsWith(prefix))
          .map(([ref, oid]) => refObject(repository(o), ref, oid, prefix));
      },
    },
    pullRequests: {
      args: ["states", "baseRefName", "headRefName", "labels", "orderBy", ...PAGING],
      of: "PullRequest",
      connection: true,
      resolve: (o, a, ctx) => {
        const states = (a["states"] as string[] | null) ?? null;
        const repo = repository(o);
        return ctx.state
          .pullRequests(repo.owner, repo.name)
          .filter((p) => states === null || states.includes(STATE_OF[p.state]))
          .filter((p) => a["baseRefName"] == null || p.base.ref === a["baseRefName"])
          .filter((p) => a["headRefName"] == null || p.head.ref === a["headRefName"])
          .sort((x, y) => x.number - y.number)
          .map((p) => pullObject(repo, p));
      },
    },
  },
  Organization: { login: field("login") },
  User: { login: field("login") },
  Bot: { login: field("login") },
  Ref: {
    id: scalar((o) => `REF_${b64(`${repository(o).id}:${String(o["prefix"])}${String(o["name"])}`)}`),
    name: field("name"),
    prefix: field("prefix"),
    target: { of: "GitObject", resolve: (o) => commitObject(repository(o), String(o["oid"])) },
  },
  Commit: {
    id: scalar((o) => `C_${String(o["oid"])}`),
    oid: field("oid"),
    abbreviatedOid: scalar((o) => String(o["oid"]).slice(0, 7)),
    checkSuites: {
      args: ["filterBy", ...PAGING],
      of: "CheckSuite",
      connection: true,
      resolve: (o, a, ctx) =>
        checkSuites(ctx, repository(o), String(o["oid"]), (a["filterBy"] as Record<string, unknown>) ?? {}),
    },
  },
  Blob: {
    oid: scalar((o) => blobSha(String(o["text"]))),
    text: field("text"),
    byteSize: scalar((o) => Buffer.byteLength(String(o["text"]))),
    isBinary: scalar(() => false),
    isTruncated: scalar(() => false),
  },
  Tree: { oid: field("oid") },
  CheckSuite: {
    databaseId: scalar((o) => o["appId"]),
    app: { of: "App", resolve: (o) => ({ __typename: "App", databaseId: o["appId"], slug: o["slug"] }) },
    checkRuns: {
      args: ["filterBy", ...PAGING],
      of: "CheckRun",
      connection: true,
      resolve: (o, a) => checkRuns(o["runs"] as CheckRun[], (a["filterBy"] as Record<string, unknown>) ?? {}),
    },
  },
  App: { databaseId: field("databaseId"), slug: field("slug"), name: field("slug") },
  CheckRun: {
    id: scalar((o) => `CR_${run(o).id}`),
    databaseId: scalar((o) => run(o).id),
    name: scalar((o) => run(o).name),
    status: scalar((o) => run(o).status.toUpperCase()),
    conclusion: scalar((o) => run(o).conclusion?.toUpperCase() ?? null),
    externalId: scalar((o) => run(o).externalId),
    startedAt: scalar((o) => run(o).startedAt),
    completedAt: scalar((o) => run(o).completedAt),
    detailsUrl: scalar((o) => run(o).detailsUrl),
  },
  PullRequest: {
    id: scalar((o) => `PR_${pull(o).id}`),
    databaseId: scalar((o) => pull(o).id),
    number: scalar((o) => pull(o).number),
    title: scalar((o) => pull(o).title),
    state: scalar((o) => STATE_OF[pull(o).state]),
    isDraft: scalar((o) => pull(o).draft),
    url: scalar(
      (o, _a, ctx) => `${ctx.origin}/${repository(o).owner}/${repository(o).name}/pull/${pull(o).number}`,
    ),
    headRefName: scalar((o) => pull(o).head.ref),
    headRefOid: scalar((o) => pull(o).head.sha),
    baseRefName: scalar((o) => pull(o).base.ref),
    baseRefOid: scalar((o) => pull(o).base.sha),
    createdAt: scalar((o) => pull(o).createdAt),
    updatedAt: scalar((o) => pull(o).updatedAt),
    author: { of: "Actor", resolve: (o) => ({ __typename: "User", login: pull(o).user.login }) },
    headRepository: { of: "Repository", resolve: (o) => repositoryObject(repository(o)) },
    commits: {
      args: PAGING,
      of: "PullRequestCommit",
      connection: true,
      // the stand-in keeps a pull request's head only: its one commit
      resolve: (o) => [{ __typename: "PullRequestCommit", repo: repository(o), oid: pull(o).head.sha }],
    },
  },
  PullRequestCommit: {
    commit: { of: "Commit", resolve: (o) => commitObject(repository(o), String(o["oid"])) },
  },
};

/** The fields an abstract type's selections may name directly (its interface fields). */
export const INTERFACE_FIELDS: Record<string, readonly string[]> = {
  Node: ["id"],
  GitObject: ["oid", "abbreviatedOid", "id"],
  RepositoryOwner: ["login"],
  Actor: ["login"],
};
