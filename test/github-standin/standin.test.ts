import { createRequire } from "node:module";
import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  mergeGroupPayload,
  startGitHubStandIn,
  seedFromPullRequestEvent,
  type GitHubStandIn,
} from "../../dev/github-standin/index.js";
import { FAKE_JWT, installationOctokit, quiet, refused } from "../support/standin-client.js";

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw webhook payloads
type Payload = any;
const HEAD = "a".repeat(40);
const BASE = "b".repeat(40);
const MERGE_BASE = "c".repeat(40);
const PATCH = ["@@ -1,3 +1,4 @@", " line1", "-old2", "+new2", "+new3", " line3"].join("\n");

let sb: GitHubStandIn;
let gh: Octokit;

function seed(standIn: GitHubStandIn): void {
  standIn.state.addInstallation({ id: 42, account: { login: "octo-org", type: "Organization" } });
  standIn.state.addRepository({
    owner: "octo-org",
    name: "app",
    installationId: 42,
    private: true,
    files: {
      main: { ".github/diffward.yml": "failOn: high\n" },
      [HEAD]: { "src/a.ts": "export const a = 1;\n" },
    },
  });
  standIn.state.addPullRequest({
    owner: "octo-org",
    repo: "app",
    number: 7,
    head: { sha: HEAD, ref: "feature" },
    base: { sha: BASE, ref: "main" },
    mergeBaseSha: MERGE_BASE,
    user: { login: "alice", type: "User" },
    files: [
      { filename: "src/a.ts", status: "modified", patch: PATCH },
      { filename: "dist/bundle.js", status: "modified" },
    ],
  });
}

beforeEach(async () => {
  sb = await startGitHubStandIn();
  seed(sb);
  gh = await installationOctokit(sb, 42);
});
afterEach(async () => {
  await sb.close();
});

describe("auth and installation tokens", () => {
  it("issues ghs_ tokens for a Bearer JWT, refuses missing JWTs and unknown tokens", async () => {
    const noJwt = new Octokit({ baseUrl: sb.url, log: quiet });
    expect((await refused(noJwt.apps.createInstallationAccessToken({ installation_id: 42 }))).status).toBe(
      401,
    );
    const app = new Octokit({ baseUrl: sb.url, auth: FAKE_JWT, log: quiet });
    const { data, status } = await app.apps.createInstallationAccessToken({ installation_id: 42 });
    expect(status).toBe(201);
    expect(data.token).toMatch(/^ghs_[A-Za-z0-9]{36}$/);
    expect((await refused(app.apps.createInstallationAccessToken({ installation_id: 999 }))).status).toBe(
      404,
    );
    const installs = await app.apps.listInstallations();
    expect(installs.data.map((i) => i.id)).toEqual([42]);
    const bogus = new Octokit({ baseUrl: sb.url, auth: "ghs_unknown", log: quiet });
    const err = await refused(bogus.repos.get({ owner: "octo-org", repo: "app" }));
    expect(err.status).toBe(401);
    expect(
      sb.requests.find((r) => r.operationId === "apps/create-installation-access-token" && r.status === 201)
        ?.installationId,
    ).toBe(42);
  });

  it("hides repositories of other installations (404) and serves /api/v3 too", async () => {
    sb.state.addInstallation({ id: 43, account: { login: "other", type: "User" } });
    const other = await installationOctokit(sb, 43);
    expect((await refused(other.repos.get({ owner: "octo-org", repo: "app" }))).status).toBe(404);
    const ghe = await installationOctokit(sb, 42, `${sb.url}/api/v3`);
    const { data } = await ghe.repos.get({ owner: "octo-org", repo: "app" });
    expect(data.full_name).toBe("octo-org/app");
    expect(data.private).toBe(true);
    const repos = await ghe.apps.listReposAccessibleToInstallation();
    expect(repos.data.repositories.map((r) => r.name)).toEqual(["app"]);
    expect(sb.requests.at(-1)?.route).toBe("/installation/repositories");
    expect(sb.violations()).toEqual([]);
  });
});

describe("contents", () => {
  it("answers base64 JSON by default, raw text on the raw media type, 404 when missing", async () => {
    const { data } = await gh.repos.getContent({
      owner: "octo-org",
      repo: "app",
      path: ".github/diffward.yml",
    });
    expect(Array.isArray(data)).toBe(false);
    const file = data as { encoding: string; content: string };
    expect(file.encoding).toBe("base64");
    expect(Buffer.from(file.content, "base64").toString("utf8")).toBe("failOn: high\n");
    const raw = await gh.repos.getContent({
      owner: "octo-org",
      repo: "app",
      path: "src/a.ts",
      ref: HEAD,
      mediaType: { format: "raw" },
    });
    expect(raw.data as unknown as string).toBe("export const a = 1;\n");
    expect(sb.requests.at(-1)?.query).toEqual({ ref: HEAD });
    expect(
      (await refused(gh.repos.getContent({ owner: "octo-org", repo: "app", path: "nope.txt" }))).status,
    ).toBe(404);
    expect(
      (await refused(gh.repos.getContent({ owner: "octo-org", repo: "app", path: "src/a.ts" }))).status,
    ).toBe(404);
  });
});

describe("check runs", () => {
  it("creates, updates with accumulating annotations, gets and lists with filters", async () => {
    const annotation = (i: number) => ({
      path: "src/a.ts",
      start_line: i,
      end_line: i,
      annotation_level: "warning" as const,
      message: `m${i}`,
    });
    const created = await gh.checks.create({
      owner: "octo-org",
      repo: "app",
      name: "diffward",
      head_sha: HEAD,
      status: "in_progress",
      external_id: "scan-1",
      output: {
        title: "Scanning",
        summary: "…",
        annotations: Array.from({ length: 50 }, (_, i) => annotation(i + 1)),
      },
      actions: [{ label: "Rescan", description: "Run the scan again", identifier: "rescan" }],
    });
    expect(created.status).toBe(201);
    const second = await gh.checks.create({ owner: "octo-org", repo: "app", name: "other", head_sha: HEAD });
    expect(second.data.id).toBeGreaterThan(created.data.id);
    const updated = await gh.checks.update({
      owner: "octo-org",
      repo: "app",
      check_run_id: created.data.id,
      conclusion: "failure",
      output: { title: "2 findings", summary: "done", annotations: [annotation(60)] },
    });
    expect(updated.data.status).toBe("completed");
    expect(updated.data.output.annotations_count).toBe(51);
    expect(updated.data.external_id).toBe("scan-1");
    expect(sb.state.checkRuns("octo-org", "app")[0]?.annotations).toHaveLength(51);
    const got = await gh.checks.get({ owner: "octo-org", repo: "app", check_run_id: created.data.id });
    expect(got.data.output.title).toBe("2 findings");
    expect((got.data as { actions?: Array<{ identifier: string }> }).actions?.[0]?.identifier).toBe("rescan");
    const byName = await gh.checks.listForRef({
      owner: "octo-org",
      repo: "app",
      ref: HEAD,
      check_name: "diffward",
    });
    expect(byName.data.check_runs.map((r) => r.id)).toEqual([created.data.id]);
    const queued = await gh.checks.listForRef({
      owner: "octo-org",
      repo: "app",
      ref: HEAD,
      status: "queued",
    });
    expect(queued.data.check_runs.map((r) => r.name)).toEqual(["other"]);
    expect(sb.violations()).toEqual([]);
  });

  it("refuses a bogus conclusion and 51 annotations with 422 and records the violation", async () => {
    const bogus = await refused(
      gh.request("POST /repos/{owner}/{repo}/check-runs", {
        owner: "octo-org",
        repo: "app",
        name: "diffward",
        head_sha: HEAD,
        // Deliberately outside the OpenAPI enum.
        conclusion: "bogus" as "success",
      }),
    );
    expect(bogus.status).toBe(422);
    const tooMany = await refused(
      gh.checks.create({
        owner: "octo-org",
        repo: "app",
        name: "diffward",
        head_sha: HEAD,
        output: {
          title: "t",
          summary: "s",
          annotations: Array.from({ length: 51 }, (_, i) => ({
            path: "a",
            start_line: i + 1,
            end_line: i + 1,
            annotation_level: "notice" as const,
            message: "x",
          })),
        },
      }),
    );
    expect(tooMany.status).toBe(422);
    const violations = sb.violations();
    expect(violations).toHaveLength(2);
    expect(violations[0]?.openapiErrors.join()).toMatch(/conclusion.*allowed values/);
    expect(violations[1]?.openapiErrors.join()).toMatch(/annotations must NOT have more than 50 items/);
    expect(sb.state.checkRuns("octo-org", "app")).toHaveLength(0);
  });
});

describe("compare and pulls", () => {
  it("compares base...head with the merge base, files and status", async () => {
    const { data } = await gh.repos.compareCommitsWithBasehead({
      owner: "octo-org",
      repo: "app",
      basehead: `${BASE}...${HEAD}`,
    });
    expect(data.merge_base_commit.sha).toBe(MERGE_BASE);
    expect(data.status).toBe("diverged");
    expect(data.ahead_by).toBe(1);
    expect(data.files?.map((f) => f.filename)).toEqual(["src/a.ts", "dist/bundle.js"]);
    const unknown = await refused(
      gh.repos.compareCommitsWithBasehead({ owner: "octo-org", repo: "app", basehead: "x...y" }),
    );
    expect(unknown.status).toBe(404);
  });

  it("gets and lists pulls by state, pages files and omits patch for a too-large file", async () => {
    sb.state.addPullRequest({
      owner: "octo-org",
      repo: "app",
      number: 8,
      head: { sha: "d".repeat(40), ref: "big" },
      base: { sha: BASE, ref: "main" },
      mergeBaseSha: BASE,
      user: { login: "bob", type: "User" },
      state: "closed",
      files: Array.from({ length: 250 }, (_, i) => ({
        filename: `f${i}.ts`,
        status: "added" as const,
        patch: "@@ -0,0 +1 @@\n+x",
      })),
    });
    const pr = await gh.pulls.get({ owner: "octo-org", repo: "app", pull_number: 7 });
    expect(pr.data.head.sha).toBe(HEAD);
    expect(pr.data.user?.login).toBe("alice");
    const open = await gh.pulls.list({ owner: "octo-org", repo: "app" });
    expect(open.data.map((p) => p.number)).toEqual([7]);
    const all = await gh.pulls.list({ owner: "octo-org", repo: "app", state: "all" });
    expect(all.data.map((p) => p.number)).toEqual([8, 7]);
    const files = await gh.paginate(gh.pulls.listFiles, {
      owner: "octo-org",
      repo: "app",
      pull_number: 8,
      per_page: 100,
    });
    expect(files).toHaveLength(250);
    expect(new Set(files.map((f) => f.filename)).size).toBe(250);
    expect(
      sb.requests.filter((r) => r.operationId === "pulls/list-files").map((r) => r.query["page"] ?? "1"),
    ).toEqual(["1", "2", "3"]);
    const seven = await gh.pulls.listFiles({ owner: "octo-org", repo: "app", pull_number: 7 });
    expect(seven.data[0]).toMatchObject({ filename: "src/a.ts", patch: PATCH, additions: 2, deletions: 1 });
    expect(seven.data[1]?.filename).toBe("dist/bundle.js");
    expect(seven.data[1]).not.toHaveProperty("patch");
    expect(sb.violations()).toEqual([]);
  });
});

describe("reviews, review comments, replies and reactions", () => {
  it("accepts comments on RIGHT lines of the diff and refuses others like GitHub", async () => {
    const review = await gh.pulls.createReview({
      owner: "octo-org",
      repo: "app",
      pull_number: 7,
      commit_id: HEAD,
      event: "COMMENT",
      body: "diffward found 2 issues",
      comments: [
        { path: "src/a.ts", line: 3, side: "RIGHT", body: "finding one" },
        { path: "src/a.ts", line: 4, body: "finding two" },
      ],
    });
    expect(review.data.state).toBe("COMMENTED");
    const comments = sb.state.reviewComments("octo-org", "app", 7);
    expect(comments.map((c) => [c.line, c.side, c.reviewId])).toEqual([
      [3, "RIGHT", review.data.id],
      [4, "RIGHT", review.data.id],
    ]);
    const outside = await refused(
      gh.pulls.createReview({
        owner: "octo-org",
        repo: "app",
        pull_number: 7,
        event: "COMMENT",
        comments: [{ path: "src/a.ts", line: 9, side: "RIGHT", body: "not in the diff" }],
      }),
    );
    expect(outside.status).toBe(422);
    expect(outside.message).toContain("Pull request review thread line must be part of the diff");
    const noPatch = await refused(
      gh.pulls.createReview({
        owner: "octo-org",
        repo: "app",
        pull_number: 7,
        event: "COMMENT",
        comments: [{ path: "dist/bundle.js", line: 1, body: "too large file" }],
      }),
    );
    expect(noPatch.status).toBe(422);
    expect(sb.state.reviews("octo-org", "app", 7)).toHaveLength(1);
    expect(sb.violations()).toHaveLength(2);
  });

  it("lists with paging, gets, updates, replies and reacts", async () => {
    await gh.pulls.createReview({
      owner: "octo-org",
      repo: "app",
      pull_number: 7,
      event: "COMMENT",
      comments: [1, 2, 3, 4].map((line) => ({ path: "src/a.ts", line, body: `c${line}` })),
    });
    const listed = await gh.paginate(gh.pulls.listReviewComments, {
      owner: "octo-org",
      repo: "app",
      pull_number: 7,
      per_page: 3,
    });
    expect(listed.map((c) => c.body)).toEqual(["c1", "c2", "c3", "c4"]);
    const first = listed[0]!;
    const got = await gh.pulls.getReviewComment({ owner: "octo-org", repo: "app", comment_id: first.id });
    expect(got.data.line).toBe(1);
    const updated = await gh.pulls.updateReviewComment({
      owner: "octo-org",
      repo: "app",
      comment_id: first.id,
      body: "edited",
    });
    expect(updated.data.body).toBe("edited");
    const reply = await gh.pulls.createReplyForReviewComment({
      owner: "octo-org",
      repo: "app",
      pull_number: 7,
      comment_id: first.id,
      body: "fixed?",
    });
    expect(reply.status).toBe(201);
    expect(reply.data.in_reply_to_id).toBe(first.id);
    const r1 = await gh.reactions.createForPullRequestReviewComment({
      owner: "octo-org",
      repo: "app",
      comment_id: first.id,
      content: "eyes",
    });
    const r2 = await gh.reactions.createForPullRequestReviewComment({
      owner: "octo-org",
      repo: "app",
      comment_id: first.id,
      content: "eyes",
    });
    expect([r1.status, r2.status]).toEqual([201, 200]);
    expect(r2.data.id).toBe(r1.data.id);
    const badReaction = await refused(
      gh.request("POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", {
        owner: "octo-org",
        repo: "app",
        comment_id: first.id,
        content: "thumbs" as "eyes",
      }),
    );
    expect(badReaction.status).toBe(422);
    expect(sb.state.reactions("octo-org", "app")).toHaveLength(1);
    expect(sb.state.threads("octo-org", "app", 7)).toHaveLength(4);
  });
});

describe("issue comments and permissions", () => {
  it("creates, updates and pages issue comments; reacts to them", async () => {
    for (let i = 0; i < 5; i += 1) {
      await gh.issues.createComment({ owner: "octo-org", repo: "app", issue_number: 7, body: `n${i}` });
    }
    const all = await gh.paginate(gh.issues.listComments, {
      owner: "octo-org",
      repo: "app",
      issue_number: 7,
      per_page: 2,
    });
    expect(all.map((c) => c.body)).toEqual(["n0", "n1", "n2", "n3", "n4"]);
    const edited = await gh.issues.updateComment({
      owner: "octo-org",
      repo: "app",
      comment_id: all[0]!.id,
      body: "sticky",
    });
    expect(edited.data.body).toBe("sticky");
    expect(edited.data.user?.login).toBe("diffward[bot]");
    const r = await gh.reactions.createForIssueComment({
      owner: "octo-org",
      repo: "app",
      comment_id: all[0]!.id,
      content: "+1",
    });
    expect(r.status).toBe(201);
    expect(
      (
        await refused(
          gh.issues.createComment({ owner: "octo-org", repo: "app", issue_number: 99, body: "x" }),
        )
      ).status,
    ).toBe(404);
    const tooLong = await refused(
      gh.issues.createComment({ owner: "octo-org", repo: "app", issue_number: 7, body: "x".repeat(65_537) }),
    );
    expect(tooLong.status).toBe(422);
  });

  it("answers collaborator permission with role_name; none for known users, 404 for unknown ones", async () => {
    sb.state.setPermission("octo-org", "app", "carol", "maintain");
    const carol = await gh.repos.getCollaboratorPermissionLevel({
      owner: "octo-org",
      repo: "app",
      username: "carol",
    });
    expect([carol.data.permission, carol.data.role_name]).toEqual(["write", "maintain"]);
    const owner = await gh.repos.getCollaboratorPermissionLevel({
      owner: "octo-org",
      repo: "app",
      username: "octo-org",
    });
    expect(owner.data.permission).toBe("admin");
    const alice = await gh.repos.getCollaboratorPermissionLevel({
      owner: "octo-org",
      repo: "app",
      username: "alice",
    });
    expect(alice.data.permission).toBe("none");
    const ghost = await refused(
      gh.repos.getCollaboratorPermissionLevel({ owner: "octo-org", repo: "app", username: "ghost" }),
    );
    expect(ghost.status).toBe(404);
  });
});

describe("GraphQL review threads", () => {
  it("lists threads with their root comment and resolves/unresolves them", async () => {
    await gh.pulls.createReview({
      owner: "octo-org",
      repo: "app",
      pull_number: 7,
      event: "COMMENT",
      comments: [{ path: "src/a.ts", line: 2, body: "root" }],
    });
    const root = sb.state.reviewComments("octo-org", "app", 7)[0]!;
    const query = `query($owner: String!, $name: String!, $number: Int!) {
      repository(owner: $owner, name: $name) { pullRequest(number: $number) {
        reviewThreads(first: 100) { nodes { id isResolved comments(first: 1) { nodes { databaseId } } } } } } }`;
    type Threads = {
      repository: {
        pullRequest: {
          reviewThreads: {
            nodes: Array<{
              id: string;
              isResolved: boolean;
              comments: { nodes: Array<{ databaseId: number }> };
            }>;
          };
        };
      };
    };
    const before = await gh.graphql<Threads>(query, { owner: "octo-org", name: "app", number: 7 });
    const thread = before.repository.pullRequest.reviewThreads.nodes[0]!;
    expect(thread.comments.nodes[0]?.databaseId).toBe(root.id);
    expect(thread.isResolved).toBe(false);
    const resolved = await gh.graphql<{ resolveReviewThread: { thread: { isResolved: boolean } } }>(
      `mutation($threadId: ID!) { resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } } }`,
      { threadId: thread.id },
    );
    expect(resolved.resolveReviewThread.thread.isResolved).toBe(true);
    expect(sb.state.threads("octo-org", "app", 7)[0]?.isResolved).toBe(true);
    await gh.graphql(
      `mutation { unresolveReviewThread(input: {threadId: "${thread.id}"}) { thread { isResolved } } }`,
    );
    expect(sb.state.threads("octo-org", "app", 7)[0]?.isResolved).toBe(false);
    await expect(
      gh.graphql(`mutation { resolveReviewThread(input: {threadId: "PRRT_nope"}) { thread { id } } }`),
    ).rejects.toThrow(/Could not resolve to a node/);
    const noQuery = await refused(gh.request("POST /graphql", { variables: {} }));
    expect(noQuery.status).toBe(422);
    expect(sb.violations().map((v) => v.operationId)).toEqual(["graphql"]);
  });
});

describe("limits, faults and unknown routes", () => {
  it("answers 403 with retry-after past the content-creation limit and counts writes", async () => {
    const limited = await startGitHubStandIn({ limits: { contentCreation: { perMinute: 3, perHour: 500 } } });
    try {
      seed(limited);
      const octokit = await installationOctokit(limited, 42);
      for (let i = 0; i < 3; i += 1) {
        await octokit.issues.createComment({
          owner: "octo-org",
          repo: "app",
          issue_number: 7,
          body: `w${i}`,
        });
      }
      await octokit.pulls.get({ owner: "octo-org", repo: "app", pull_number: 7 });
      const err = await refused(
        octokit.issues.createComment({ owner: "octo-org", repo: "app", issue_number: 7, body: "w3" }),
      );
      expect(err.status).toBe(403);
      expect(err.message).toMatch(/secondary rate limit/);
      const retryAfter = Number(err.response?.headers["retry-after"]);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.writes(42)).toBe(3);
      expect(limited.state.issueComments("octo-org", "app", 7)).toHaveLength(3);
    } finally {
      await limited.close();
    }
  });

  it("injects 5xx, 429 and latency on matching routes, settable at runtime", async () => {
    sb.setFaults({ next5xx: 2, status: 503, route: /\/pulls\/7$/ });
    expect((await refused(gh.pulls.get({ owner: "octo-org", repo: "app", pull_number: 7 }))).status).toBe(
      503,
    );
    await gh.repos.get({ owner: "octo-org", repo: "app" });
    expect((await refused(gh.pulls.get({ owner: "octo-org", repo: "app", pull_number: 7 }))).status).toBe(
      503,
    );
    expect((await gh.pulls.get({ owner: "octo-org", repo: "app", pull_number: 7 })).status).toBe(200);
    sb.setFaults({ next429: 1, latencyMs: 150 });
    const started = Date.now();
    const limited = await refused(gh.repos.get({ owner: "octo-org", repo: "app" }));
    expect(limited.status).toBe(429);
    expect(limited.response?.headers["retry-after"]).toBe("1");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(sb.faults().next429).toBe(0);
  });

  it("records unknown routes as violations with 404", async () => {
    const err = await refused(
      gh.request("GET /repos/{owner}/{repo}/branches", { owner: "octo-org", repo: "app" }),
    );
    expect(err.status).toBe(404);
    expect(sb.violations()).toHaveLength(1);
    expect(sb.violations()[0]).toMatchObject({
      route: null,
      method: "GET",
      path: "/repos/octo-org/app/branches",
    });
  });
});

describe("seedFromPullRequestEvent", () => {
  it("seeds installation, repository and PR from a real webhooks-examples payload", async () => {
    const examples = require("@octokit/webhooks-examples") as Array<{
      name: string;
      examples: Array<Record<string, unknown>>;
    }>;
    const payload = examples
      .find((e) => e.name === "pull_request")!
      .examples.find((e) => e["action"] === "opened")!;
    const fresh = await startGitHubStandIn();
    try {
      const seeded = seedFromPullRequestEvent(fresh.state, payload, {
        installationId: 77,
        files: [{ filename: "README.md", status: "modified", patch: "@@ -1 +1 @@\n-a\n+b" }],
      });
      const octokit = await installationOctokit(fresh, 77);
      const pr = seeded.pullRequest;
      const { data } = await octokit.pulls.get({ owner: pr.owner, repo: pr.repo, pull_number: pr.number });
      const source = payload["pull_request"] as { head: { sha: string }; number: number };
      expect(data.head.sha).toBe(source.head.sha);
      expect(data.number).toBe(source.number);
      expect(() => seedFromPullRequestEvent(fresh.state, { ...payload, installation: undefined })).toThrow(
        /installation/,
      );
      expect(fresh.violations()).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});

describe("merge groups", () => {
  const GROUP_HEAD = "d".repeat(40);

  it("holds a pull request's merge group with GitHub's queue ref, compares it against its base, and builds its webhooks", async () => {
    const group = sb.state.addMergeGroup({
      owner: "octo-org",
      repo: "app",
      pullNumber: 7,
      headSha: GROUP_HEAD,
      baseSha: BASE,
    });
    expect(group.headRef).toBe(`refs/heads/gh-readonly-queue/main/pr-7-${HEAD}`);
    expect(group.baseRef).toBe("refs/heads/main");
    expect(sb.state.mergeGroup("octo-org", "app", GROUP_HEAD)).toBe(group);

    const { data } = await gh.repos.compareCommitsWithBasehead({
      owner: "octo-org",
      repo: "app",
      basehead: `${BASE}...${GROUP_HEAD}`,
    });
    expect(data.merge_base_commit.sha).toBe(BASE);
    expect(data.files?.map((f) => f.filename)).toEqual(["src/a.ts", "dist/bundle.js"]);
    expect(sb.violations()).toEqual([]);

    const requested = mergeGroupPayload(sb.state, group, "checks_requested") as Payload;
    expect(requested.action).toBe("checks_requested");
    expect(requested.merge_group).toMatchObject({
      head_sha: GROUP_HEAD,
      base_sha: BASE,
      head_ref: group.headRef,
      base_ref: "refs/heads/main",
    });
    expect(requested.repository).toMatchObject({
      name: "app",
      full_name: "octo-org/app",
      private: true,
      owner: { login: "octo-org" },
    });
    expect(requested.installation.id).toBe(42);
    expect(requested.sender.login).toBe("Codertocat"); // the rest is GitHub's own example

    sb.state.destroyMergeGroup("octo-org", "app", GROUP_HEAD, "invalidated");
    const destroyed = mergeGroupPayload(sb.state, group, "destroyed") as Payload;
    expect(destroyed).toMatchObject({ action: "destroyed", reason: "invalidated" });
    expect(() =>
      sb.state.addMergeGroup({
        owner: "octo-org",
        repo: "app",
        pullNumber: 99,
        headSha: GROUP_HEAD,
        baseSha: BASE,
      }),
    ).toThrow(/unknown pull request/);
  });

  it("lists a merge group's branch under matching-refs (GitHub's git-ref shape) until the group is destroyed", async () => {
    const group = sb.state.addMergeGroup({
      owner: "octo-org",
      repo: "app",
      pullNumber: 7,
      headSha: GROUP_HEAD,
      baseSha: BASE,
    });
    // Octokit sends the ref with its slashes encoded, as it does against GitHub
    const listed = await gh.git.listMatchingRefs({
      owner: "octo-org",
      repo: "app",
      ref: "heads/gh-readonly-queue/",
    });
    expect(listed.data).toEqual([
      {
        ref: group.headRef,
        node_id: expect.any(String),
        url: expect.stringContaining(`/repos/octo-org/app/git/${group.headRef}`),
        object: {
          type: "commit",
          sha: GROUP_HEAD,
          url: expect.stringContaining(`/git/commits/${GROUP_HEAD}`),
        },
      },
    ]);
    // a prefix matches branch heads too (the pull request's own branch)
    const heads = await gh.git.listMatchingRefs({ owner: "octo-org", repo: "app", ref: "heads/" });
    expect(heads.data.map((r) => r.ref)).toContain(group.headRef);
    expect(heads.data.length).toBeGreaterThan(1);

    sb.state.destroyMergeGroup("octo-org", "app", GROUP_HEAD, "merged");
    const after = await gh.git.listMatchingRefs({
      owner: "octo-org",
      repo: "app",
      ref: "heads/gh-readonly-queue/",
    });
    expect(after.data).toEqual([]);
    expect(sb.violations()).toEqual([]);
  });
});

describe("primary rate limit (limits.primary)", () => {
  let limited: GitHubStandIn;
  beforeEach(async () => {
    limited = await startGitHubStandIn({ limits: { primary: { limit: 3, windowSeconds: 60 } } });
    seed(limited);
  });
  afterEach(async () => limited.close());

  it("counts each installation request in the headers and refuses the one over the limit with 403", async () => {
    const octokit = await installationOctokit(limited, 42);
    const seen: Array<string | number | undefined> = [];
    for (let i = 0; i < 3; i++) {
      const res = await octokit.repos.get({ owner: "octo-org", repo: "app" });
      seen.push(res.headers["x-ratelimit-remaining"]);
      expect(res.headers["x-ratelimit-limit"]).toBe("3");
      expect(Number(res.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000);
    }
    expect(seen).toEqual(["2", "1", "0"]);
    const over = await refused(octokit.repos.get({ owner: "octo-org", repo: "app" }));
    expect(over.status).toBe(403);
    expect(over.message).toMatch(/API rate limit exceeded/);
    expect(over.response?.headers["x-ratelimit-remaining"]).toBe("0");
    // the token request is the App's, not the installation's: it did not count
    expect(limited.violations()).toEqual([]);
  });
});
