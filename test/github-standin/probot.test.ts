import { generateKeyPairSync } from "node:crypto";
import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";

let sb: GitHubStandIn;
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();

beforeAll(async () => {
  sb = await startGitHubStandIn();
  sb.state.addInstallation({ id: 9, account: { login: "acme", type: "Organization" } });
  sb.state.addRepository({ owner: "acme", name: "svc", installationId: 9, private: true });
});
afterAll(async () => {
  await sb.close();
});

describe("Probot's Octokit against the stand-in", () => {
  it.each([
    ["root", ""],
    ["GHE /api/v3", "/api/v3"],
  ])("authenticates as an installation with a real app JWT (%s)", async (_label, prefix) => {
    const octokit = new ProbotOctokit({
      baseUrl: `${sb.url}${prefix}`,
      auth: { appId: 1, privateKey: pem, installationId: 9 },
      retry: { enabled: false },
      throttle: { enabled: false },
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    const { data } = await octokit.rest.repos.get({ owner: "acme", repo: "svc" });
    expect(data.full_name).toBe("acme/svc");
    const tokenCall = sb.requests
      .filter((r) => r.operationId === "apps/create-installation-access-token")
      .at(-1);
    expect(tokenCall).toMatchObject({ status: 201, installationId: 9 });
    const graphql = await octokit
      .graphql<{ repository: { pullRequest: null } | null }>(
        `query { repository(owner: "acme", name: "svc") { pullRequest(number: 1) { reviewThreads(first: 100) { nodes { id } } } } }`,
      )
      .catch((e: { data?: unknown }) => e.data as { repository: { pullRequest: null } | null });
    expect(graphql.repository).toEqual({ pullRequest: null });
    expect(sb.requests.at(-1)?.installationId).toBe(9);
    expect(sb.violations()).toEqual([]);
  });
});
