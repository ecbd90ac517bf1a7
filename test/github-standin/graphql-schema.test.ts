/**
 * The stand-in's GraphQL schema (dev/github-standin/graphql-*.ts) as GitHub serves it: repositories by node id,
 * their config file, default branch, merge-queue refs and open pull requests with their head commit's check
 * suites and check runs, paged by cursors; GitHub's paging bounds, node limit and cost formula
 * (https://docs.github.com/en/graphql/overview/rate-limits-and-query-limits-for-the-graphql-api).
 */
import type { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";
import { repoNodeId } from "../../dev/github-standin/state.js";
import { installationPoints } from "../../dev/github-standin/graphql-exec.js";
import { installationOctokit } from "../support/standin-client.js";

let sb: GitHubStandIn;
let gh: Octokit;
const sha = (c: string) => c.repeat(40);

beforeEach(async () => {
  sb = await startGitHubStandIn();
  sb.state.addInstallation({ id: 42, account: { login: "octo-org", type: "Organization" } });
  for (const name of ["app", "lib"])
    sb.state.addRepository({
      owner: "octo-org",
      name,
      installationId: 42,
      private: true,
      files: name === "app" ? { main: { ".github/diffward.yml": "failOn: high\n" } } : {},
    });
  sb.state.setBranchHead("octo-org", "app", "main", sha("d"));
  for (const n of [1, 2, 3])
    sb.state.addPullRequest({
      owner: "octo-org",
      repo: "app",
      number: n,
      head: { sha: sha(String(n)), ref: `feature-${n}` },
      base: { sha: sha("b"), ref: "main" },
      mergeBaseSha: sha("c"),
      user: { login: "alice", type: "User" },
      files: [],
    });
  gh = await installationOctokit(sb, 42);
});
afterEach(async () => {
  await sb.close();
});

const WALK = `query($ids: [ID!]!, $first: Int!, $after: String) {
  rateLimit { cost remaining resetAt limit }
  nodes(ids: $ids) { ... on Repository { nameWithOwner
    config: object(expression: "HEAD:.github/diffward.yml") { ... on Blob { text } }
    defaultBranchRef { name target { oid } }
    pullRequests(states: [OPEN], first: $first, after: $after) {
      totalCount pageInfo { hasNextPage endCursor }
      nodes { number headRefOid isDraft author { login }
        commits(last: 1) { nodes { commit { oid
          checkSuites(first: 1, filterBy: { appId: 1 }) { nodes { checkRuns(first: 10, filterBy: { checkName: "diffward", checkType: LATEST }) {
            nodes { databaseId status conclusion externalId startedAt } } } } } } } } } } } }`;

interface Walk {
  rateLimit: { cost: number; remaining: number; resetAt: string; limit: number };
  nodes: Array<{
    nameWithOwner: string;
    config: { text: string } | null;
    defaultBranchRef: { name: string; target: { oid: string } } | null;
    pullRequests: {
      totalCount: number;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
      nodes: Array<{
        number: number;
        headRefOid: string;
        commits: {
          nodes: Array<{
            commit: {
              checkSuites: { nodes: Array<{ checkRuns: { nodes: Array<Record<string, unknown>> } }> };
            };
          }>;
        };
      }>;
    };
  } | null>;
}

describe("the stand-in's GraphQL schema", () => {
  it("walks repositories → open pull requests → their head's check runs of the app, by cursors", async () => {
    const run = await gh.checks.create({
      owner: "octo-org",
      repo: "app",
      name: "diffward",
      head_sha: sha("2"),
      status: "in_progress",
      external_id: "scan-2",
    });
    const ids = ["app", "lib"].map((name) => repoNodeId({ owner: "octo-org", name }));
    const first = await gh.graphql<Walk>(WALK, { ids, first: 2 });
    const app = first.nodes[0]!;
    expect(app.nameWithOwner).toBe("octo-org/app");
    expect(app.config?.text).toBe("failOn: high\n");
    expect(app.defaultBranchRef).toEqual({ name: "main", target: { oid: sha("d") } });
    expect(app.pullRequests.totalCount).toBe(3);
    expect(app.pullRequests.nodes.map((p) => p.number)).toEqual([1, 2]);
    expect(app.pullRequests.pageInfo.hasNextPage).toBe(true);
    const runs = app.pullRequests.nodes[1]!.commits.nodes[0]!.commit.checkSuites.nodes[0]!.checkRuns.nodes;
    expect(runs).toEqual([
      {
        databaseId: run.data.id,
        status: "IN_PROGRESS",
        conclusion: null,
        externalId: "scan-2",
        startedAt: expect.any(String),
      },
    ]);
    expect(app.pullRequests.nodes[0]!.commits.nodes[0]!.commit.checkSuites.nodes).toEqual([]);
    expect(first.nodes[1]).toMatchObject({
      nameWithOwner: "octo-org/lib",
      config: null,
      defaultBranchRef: null,
    });
    // requests: 2 repositories' pullRequests + 2×2 commits + 2×2×1 checkSuites + 2×2×1×1 checkRuns = 14 → 1
    expect(first.rateLimit).toMatchObject({ cost: 1, limit: installationPoints(2), remaining: 4_999 });
    const next = await gh.graphql<Walk>(WALK, { ids, first: 2, after: app.pullRequests.pageInfo.endCursor });
    expect(next.nodes[0]!.pullRequests.nodes.map((p) => p.number)).toEqual([3]);
    expect(next.nodes[0]!.pullRequests.pageInfo).toEqual({
      hasNextPage: false,
      endCursor: expect.any(String),
    });
    expect(next.rateLimit.remaining).toBe(4_998);
    expect(sb.requests.filter((r) => r.operationId === "graphql").map((r) => r.graphqlCost)).toEqual([1, 1]);
    expect(sb.violations()).toEqual([]);
  });

  it("prices a query by GitHub's formula: requests of every connection / 100, rounded", async () => {
    const q = `query($owner: String!) { rateLimit { cost nodeCount } repository(owner: $owner, name: "app") {
      pullRequests(first: 100) { nodes { commits(last: 1) { nodes { commit {
        checkSuites(first: 10) { nodes { checkRuns(first: 50) { totalCount } } } } } } } } } }`;
    const r = await gh.graphql<{ rateLimit: { cost: number; nodeCount: number } }>(q, { owner: "octo-org" });
    // 1 + 100 + 100×1 + 100×1×10 = 1,201 requests → 12 points; nodes 100 + 100 + 1,000 + 50,000
    expect(r.rateLimit).toEqual({ cost: 12, nodeCount: 51_200 });
    const dry = await gh.graphql<{ rateLimit: { cost: number; remaining: number } }>(
      `{ rateLimit(dryRun: true) { cost remaining } }`,
    );
    expect(dry.rateLimit).toEqual({ cost: 1, remaining: 5_000 - 12 });
  });

  it("refuses what GitHub refuses: no first/last, over 100, over 500,000 nodes, unknown fields", async () => {
    const refusals = [
      [
        `{ repository(owner: "octo-org", name: "app") { pullRequests { totalCount } } }`,
        /must provide a `first` or `last`/,
      ],
      [
        `{ repository(owner: "octo-org", name: "app") { pullRequests(first: 101) { totalCount } } }`,
        /exceeds the `first` limit of 100/,
      ],
      [
        `{ repository(owner: "octo-org", name: "app") { pullRequests(first: 100) { nodes { commits(first: 100) { nodes {
           commit { checkSuites(first: 100) { totalCount } } } } } } } }`,
        /requesting up to 1,010,100 possible nodes which exceeds the maximum limit of 500,000/,
      ],
      [
        `{ repository(owner: "octo-org", name: "app") { stars } }`,
        /Field 'stars' doesn't exist on type 'Repository'/,
      ],
      [
        `{ repository(owner: "octo-org", name: "app") { nameWithOwner `,
        /Parse error: .*Expected Name, found <EOF>/,
      ],
      [
        `{ repository(owner: "octo-org", name: "app") { pullRequests(first: 1, sort: NEWEST) { totalCount } } }`,
        /Field 'pullRequests' doesn't accept argument 'sort'/,
      ],
      [
        `query($n: Int!) { repository(owner: "octo-org", name: "app") { pullRequest(number: $n) { id } } }`,
        /\$n/,
      ],
    ] as const;
    for (const [query, message] of refusals) await expect(gh.graphql(query)).rejects.toThrow(message);
    expect(sb.violations()).toHaveLength(refusals.length);
  });

  it("checks every query against GitHub's own schema; a field GitHub has and the stand-in does not serve is flagged", async () => {
    // named fragments and aliases price and run as inline selections do
    const q = `query { rateLimit { cost nodeCount } app: repository(owner: "octo-org", name: "app") { ...Pulls } }
      fragment Pulls on Repository { open: pullRequests(first: 2, states: [OPEN]) { edges { cursor node { number } } } }`;
    const r = await gh.graphql<{
      rateLimit: { cost: number; nodeCount: number };
      app: { open: { edges: Array<{ cursor: string; node: { number: number } }> } };
    }>(q);
    expect(r.app.open.edges.map((e) => e.node.number)).toEqual([1, 2]);
    expect(r.rateLimit).toEqual({ cost: 1, nodeCount: 2 });
    expect(sb.violations()).toEqual([]);
    // `description` is GitHub's (so the query is valid) but not the stand-in's: answered null, and flagged
    const stars = await gh.graphql<{ repository: { description: string | null } }>(
      `{ repository(owner: "octo-org", name: "app") { nameWithOwner description } }`,
    );
    expect(stars.repository.description).toBeNull();
    expect(sb.violations().flatMap((v) => v.openapiErrors)).toEqual([
      expect.stringContaining("Repository.description"),
    ]);
  });

  it("answers NOT_FOUND for a repository of another installation and charges nothing past the budget", async () => {
    sb.state.addInstallation({ id: 43, account: { login: "other", type: "Organization" } });
    sb.state.addRepository({ owner: "other", name: "secret", installationId: 43, private: true, files: {} });
    const other = repoNodeId({ owner: "other", name: "secret" });
    await expect(
      gh.graphql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: [other] }),
    ).rejects.toThrow(`Could not resolve to a node with the global id of '${other}'`);
    const big = `{ repository(owner: "octo-org", name: "app") { pullRequests(first: 100) { nodes { commits(first: 100) {
      nodes { commit { oid } } } } } } }`;
    // 40 aliases × (1 pullRequests + 100 commits) requests = 4,040 → 40 points a query
    const many = `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: ${big.slice(2, -2)}`).join(" ")} }`;
    expect(installationPoints(2)).toBe(5_000);
    let spent = 0;
    for (;;) {
      const res = await gh.request("POST /graphql", { query: many });
      if ((res.data as { errors?: Array<{ type: string }> }).errors?.[0]?.type === "RATE_LIMITED") break;
      spent += 40;
      expect(res.headers["x-ratelimit-resource"]).toBe("graphql");
    }
    // the refused nodes query cost 1 (at least 1 a query); 1 + 124 × 40 = 4,961, and 40 more would pass 5,000
    expect(spent).toBe(4_960);
  });
});
