/**
 * What needs resuming in many repositories at once, read with GitHub's GraphQL API ({@link readOpenHeads}):
 * each repository's `.github/diffward.yml`, its default branch's head and diffward's check run there, how many
 * merge-queue branches it has, and its open pull requests with diffward's check run on each head. One query
 * per 100 repositories, and one more for those of them with more than 3 open pull requests (and each next page
 * of a repository with over 100), each paced by the points its answer's `rateLimit` reports
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api).
 */
import { z } from "zod";
import { CHECK_NAME, type FoundCheckRun } from "./check-runs.js";
import type { InstallationOctokit } from "./octokit-types.js";
import type { RatePacer } from "./rate-pacer.js";
import type { PullHead } from "./pulls.js";

/** GitHub's bound on `first` and on `nodes(ids:)`. */
const PAGE = 100;
/** At most this many pull requests asked for by one query (`first` × repositories): about 30 points. */
const PULLS_PER_QUERY = 1_000;
/**
 * Open pull requests read with their repository: most repositories have no more, and need no second query (each
 * adds 3 requests per repository to GitHub's count: 100 repositories cost 13 points).
 */
const FIRST_PULLS = 3;

/** A repository to read: its GraphQL node id (REST `node_id`). */
export interface RepoNode {
  nodeId: string;
}

/** One repository as {@link readOpenHeads} read it. */
export interface RepoHeads {
  /**
   * `.github/diffward.yml` on the default branch: its text; `undefined` when absent; `not-a-file` when the
   * path is a directory; `unread` when GraphQL gives no text (binary or truncated): read it by REST
   */
  config: string | undefined | "not-a-file" | "unread";
  /** the default branch's head commit and diffward's latest check run there; absent for an empty repository */
  defaultHead?: { sha: string; runs: FoundCheckRun[] };
  /** how many merge-queue branches (`refs/heads/gh-readonly-queue/…`) exist now */
  mergeQueueRefs: number;
  /** open pull requests, each with diffward's latest check run on its head */
  pulls: Array<PullHead & { runs: FoundCheckRun[] }>;
}

/** The points one query cost and what is left of the installation's hour (its answer's `rateLimit`). */
export interface GraphqlSpend {
  cost: number;
  remaining: number;
  limit: number;
  /** ISO 8601 */
  resetAt: string;
}

const RateLimit = z.object({
  cost: z.number(),
  remaining: z.number(),
  limit: z.number(),
  resetAt: z.string(),
});
const CheckRunNode = z.object({
  databaseId: z.number(),
  status: z.string(),
  conclusion: z.string().nullable(),
  externalId: z.string().nullable(),
  startedAt: z.string().nullable(),
});
const Commit = z.object({
  oid: z.string(),
  checkSuites: z.object({
    nodes: z.array(z.object({ checkRuns: z.object({ nodes: z.array(CheckRunNode) }) }).nullable()),
  }),
});
const PullNode = z.object({
  number: z.number(),
  isDraft: z.boolean(),
  headRefName: z.string(),
  baseRefName: z.string(),
  title: z.string(),
  url: z.string(),
  updatedAt: z.string(),
  author: z.object({ __typename: z.string(), login: z.string() }).nullable(),
  headRepository: z.object({ nameWithOwner: z.string() }).nullable(),
  commits: z.object({ nodes: z.array(z.object({ commit: Commit })) }),
});
const Pulls = z.object({
  pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
  nodes: z.array(PullNode),
});
const RepoAnswer = z.object({
  id: z.string(),
  config: z
    .looseObject({ __typename: z.string(), text: z.string().nullish(), isTruncated: z.boolean().nullish() })
    .nullable(),
  defaultBranchRef: z
    .object({ target: z.object({ oid: z.string(), checkSuites: Commit.shape.checkSuites.optional() }) })
    .nullable(),
  queue: z.object({ totalCount: z.number() }),
  open: z.object({ totalCount: z.number(), nodes: z.array(PullNode) }),
});

/** diffward's check runs of one commit, as the REST reads give them ({@link FoundCheckRun}). */
function runsOf(commit: (Partial<z.infer<typeof Commit>> & { oid: string }) | undefined): FoundCheckRun[] {
  if (!commit?.checkSuites) return [];
  return commit.checkSuites.nodes.flatMap((s) =>
    (s?.checkRuns.nodes ?? []).map((c) => ({
      id: c.databaseId,
      status: c.status.toLowerCase(),
      conclusion: c.conclusion?.toLowerCase() ?? null,
      externalId: c.externalId,
      headSha: commit.oid,
      startedAt: c.startedAt,
    })),
  );
}

/** diffward's latest check run of a commit: one check suite per app and commit, its latest run of the name. */
const RUNS = `checkSuites(first: 1, filterBy: { appId: $appId }) { nodes { checkRuns(first: 1, filterBy: { checkName: "${CHECK_NAME}", checkType: LATEST }) { nodes { databaseId status conclusion externalId startedAt } } } }`;

/** What is read of an open pull request: its head, its author, diffward's latest check run on the head. */
const PULL_FIELDS = `number isDraft headRefName baseRefName title url updatedAt author { __typename login }
  headRepository { nameWithOwner } commits(last: 1) { nodes { commit { oid ${RUNS} } } }`;

const REPOSITORIES = `query($ids: [ID!]!, $appId: Int!) {
  rateLimit { cost remaining limit resetAt }
  nodes(ids: $ids) { ... on Repository { id
    config: object(expression: "HEAD:.github/diffward.yml") { __typename ... on Blob { text isTruncated } }
    defaultBranchRef { target { oid ... on Commit { ${RUNS} } } }
    queue: refs(refPrefix: "refs/heads/gh-readonly-queue/", first: 1) { totalCount }
    open: pullRequests(states: [OPEN], first: ${FIRST_PULLS}) { totalCount nodes { ${PULL_FIELDS} } } } } }`;

const PULLS = `query($ids: [ID!]!, $appId: Int!, $first: Int!, $after: String) {
  rateLimit { cost remaining limit resetAt }
  nodes(ids: $ids) { ... on Repository { id
    pullRequests(states: [OPEN], first: $first, after: $after) { pageInfo { hasNextPage endCursor }
      nodes { ${PULL_FIELDS} } } } } }`;

function pullHead(p: z.infer<typeof PullNode>): PullHead & { runs: FoundCheckRun[] } {
  const commit = p.commits.nodes[0]?.commit;
  // GraphQL names a bot `name`, REST and webhooks `name[bot]`
  const login = p.author ? (p.author.__typename === "Bot" ? `${p.author.login}[bot]` : p.author.login) : "";
  return {
    number: p.number,
    state: "open",
    draft: p.isDraft,
    headSha: commit?.oid ?? "",
    headRef: p.headRefName,
    baseRef: p.baseRefName,
    authorLogin: login,
    ...(p.headRepository ? { headRepoFullName: p.headRepository.nameWithOwner } : {}),
    htmlUrl: p.url,
    title: p.title,
    updatedAt: p.updatedAt,
    runs: runsOf(commit),
  };
}

function configOf(c: z.infer<typeof RepoAnswer>["config"]): RepoHeads["config"] {
  if (c === null) return undefined;
  if (c.__typename !== "Blob") return "not-a-file";
  return typeof c.text === "string" && !c.isTruncated ? c.text : "unread";
}

/** How a walk runs: the app's id (its check suites), and what it does with each answer's spend. */
export interface OpenHeadsOptions {
  appId: number;
  /** called after each query with what it cost; may wait (pacing) before the next one */
  spent: (spend: GraphqlSpend) => Promise<void>;
}

/**
 * The {@link OpenHeadsOptions.spent} that paces a walk by its answers' `rateLimit` (GitHub GraphQL "Rate
 * limits": `limit`, `remaining`, `resetAt`), read as the primary limit's headers into `points`: the walk then
 * waits for `resetAt` while `remaining` is within the share of the hour left to live traffic. `counted` sees
 * each answer's spend first.
 */
export function pacedBy(points: RatePacer, counted?: (spend: GraphqlSpend) => void) {
  return async (s: GraphqlSpend): Promise<void> => {
    counted?.(s);
    points.observe({
      "x-ratelimit-limit": s.limit,
      "x-ratelimit-remaining": s.remaining,
      "x-ratelimit-reset": Math.ceil(Date.parse(s.resetAt) / 1000),
    });
    await points.before();
  };
}

/**
 * Reads every repository of `repos` ({@link RepoHeads}): one `REPOSITORIES` query per 100 of them (callers pass
 * 100 at a time, so what they act on is read just before) with up to {@link FIRST_PULLS} open pull requests each;
 * then the open pull requests of those with more, as many repositories to a `PULLS` query as keep it under
 * {@link PULLS_PER_QUERY} pull requests, and the next pages of a repository with more than 100.
 * @returns each repository's heads by node id; a node GitHub did not resolve is absent.
 * @throws Octokit's GraphqlResponseError (GitHub's errors) or RequestError, as they come.
 */
export async function readOpenHeads(
  octokit: InstallationOctokit,
  repos: readonly RepoNode[],
  o: OpenHeadsOptions,
): Promise<Map<string, RepoHeads>> {
  const out = new Map<string, RepoHeads>();
  const open = new Map<string, number>();
  for (let i = 0; i < repos.length; i += PAGE) {
    const ids = repos.slice(i, i + PAGE).map((r) => r.nodeId);
    const res = await answer(o, () => octokit.graphql<Answer>(REPOSITORIES, { ids, appId: o.appId }));
    for (const node of z.array(RepoAnswer.nullable()).parse(res.nodes)) {
      if (node === null) continue;
      const target = node.defaultBranchRef?.target;
      out.set(node.id, {
        config: configOf(node.config),
        ...(target ? { defaultHead: { sha: target.oid, runs: runsOf(target) } } : {}),
        mergeQueueRefs: node.queue.totalCount,
        // all of them read already, or all read again by PULLS queries
        pulls: node.open.totalCount <= FIRST_PULLS ? node.open.nodes.map(pullHead) : [],
      });
      if (node.open.totalCount > FIRST_PULLS) open.set(node.id, node.open.totalCount);
    }
  }
  await readPulls(octokit, open, out, o);
  return out;
}

/** The open pull requests of the repositories `open` counts, grouped by their count (few pages wasted). */
async function readPulls(
  octokit: InstallationOctokit,
  open: ReadonlyMap<string, number>,
  out: Map<string, RepoHeads>,
  o: OpenHeadsOptions,
): Promise<void> {
  const sorted = [...open].sort((a, b) => a[1] - b[1]);
  let cursors: Array<[string, string]> = [];
  while (sorted.length > 0) {
    const batch: string[] = [];
    let size = 1;
    while (
      sorted.length > 0 &&
      batch.length < PAGE &&
      Math.min(PAGE, sorted[0]![1]) * (batch.length + 1) <= PULLS_PER_QUERY
    ) {
      size = Math.min(PAGE, sorted[0]![1]);
      batch.push(sorted.shift()![0]);
    }
    cursors.push(...(await pullsPage(octokit, batch, size, null, out, o)));
  }
  // a repository of over 100 open pull requests: its next pages, one query each
  while (cursors.length > 0) {
    const next: Array<[string, string]> = [];
    for (const [id, after] of cursors) next.push(...(await pullsPage(octokit, [id], PAGE, after, out, o)));
    cursors = next;
  }
}

/** One `PULLS` query; @returns the repositories with a next page, and its cursor. */
async function pullsPage(
  octokit: InstallationOctokit,
  ids: string[],
  first: number,
  after: string | null,
  out: Map<string, RepoHeads>,
  o: OpenHeadsOptions,
): Promise<Array<[string, string]>> {
  const res = await answer(o, () => octokit.graphql<Answer>(PULLS, { ids, appId: o.appId, first, after }));
  const more: Array<[string, string]> = [];
  const Node = z.object({ id: z.string(), pullRequests: Pulls }).nullable();
  for (const node of z.array(Node).parse(res.nodes)) {
    if (node === null) continue;
    out.get(node.id)?.pulls.push(...node.pullRequests.nodes.map(pullHead));
    const page = node.pullRequests.pageInfo;
    if (page.hasNextPage && page.endCursor) more.push([node.id, page.endCursor]);
  }
  return more;
}

/** What both queries answer: their `rateLimit` and their `nodes`. */
type Answer = { rateLimit: unknown; nodes: unknown };

/** Runs one query (`ask`) and hands its `rateLimit` to `o.spent`. */
async function answer(o: OpenHeadsOptions, ask: () => Promise<Answer>): Promise<Answer> {
  let res: Answer;
  try {
    res = await ask();
  } catch (error) {
    // a node the installation may no longer see (removed since the listing) answers NOT_FOUND beside the data
    const e = error as { name?: string; data?: Answer; errors?: Array<{ type?: string }> };
    if (e.name !== "GraphqlResponseError" || !e.data || !e.errors?.every((x) => x.type === "NOT_FOUND"))
      throw error;
    res = e.data;
  }
  await o.spent(RateLimit.parse(res.rateLimit));
  return res;
}
