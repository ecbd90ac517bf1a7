import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devPrivateKey } from "../../dev/harness/harness.js";
import { startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";
import { OwnerConfigs, loadRepoConfig } from "../../src/runtime/config-loader.js";

const CONFIG = "repositoryId: repo_demo\nfailOn: high\n";
const FILE = ".github/diffward.yml";

let sb: GitHubStandIn;
let octokit: ProbotOctokit;

/** Repositories of one owner covering each way `.github/diffward.yml` is found or not. */
function seed(state: GitHubStandIn["state"], owner: string, orgFile: string | undefined, id: number) {
  state.addInstallation({ id, account: { login: owner, type: "Organization" } });
  const add = (name: string, files: Record<string, string> = {}) =>
    state.addRepository({ owner, name, installationId: id, files: { main: files } });
  if (orgFile !== undefined) add(".github", { [FILE]: orgFile });
  add("own", { [FILE]: CONFIG });
  add("none");
  add("invalid-yaml", { [FILE]: "failOn: [high\n" });
  add("invalid-schema", { [FILE]: "failOn: sometimes\n" });
  add("extends", { [FILE]: "_extends: own\nfailOn: low\n" });
  add("empty", { [FILE]: "" });
}

beforeAll(async () => {
  sb = await startGitHubStandIn();
  seed(sb.state, "with-org", "failOn: medium\nrepositoryId: repo_org\n", 61);
  seed(sb.state, "plain", undefined, 62);
});
afterAll(async () => sb.close());

const client = (installationId: number) =>
  new ProbotOctokit({
    baseUrl: sb.url,
    auth: { appId: 1, privateKey: devPrivateKey(), installationId },
    retry: { enabled: false },
    throttle: { enabled: false },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });

describe("OwnerConfigs", () => {
  const repos = [".github", "own", "none", "invalid-yaml", "invalid-schema", "extends", "empty"];

  it.each([
    ["with an organization file", "with-org", 61],
    ["without one", "plain", 62],
  ])("loads each repository's config as loadRepoConfig does, %s", async (_label, owner, id) => {
    octokit = client(id);
    const configs = new OwnerConfigs(octokit, owner);
    for (const repo of repos) {
      if (owner === "plain" && repo === ".github") continue;
      expect(await configs.load(repo), `${owner}/${repo}`).toEqual(
        await loadRepoConfig(octokit, owner, repo),
      );
    }
    expect(sb.violations()).toEqual([]);
  });

  it("reads one file per repository, and the organization's once for its floor and once as the fallback", async () => {
    octokit = client(61);
    const configs = new OwnerConfigs(octokit, "with-org");
    await octokit.rest.repos.get({ owner: "with-org", repo: "own" }); // the token, before counting
    const from = sb.requests.length;
    for (const repo of ["own", "none", "invalid-schema"]) await configs.load(repo);
    for (const repo of ["none", "empty"]) await configs.load(repo);
    const reads = sb.requests.slice(from).map((r) => decodeURIComponent(r.path.replace(/^\/repos\//, "")));
    expect(reads).toEqual([
      `with-org/own/contents/${FILE}`,
      `with-org/.github/contents/${FILE}`,
      `with-org/none/contents/${FILE}`,
      `with-org/.github/contents/${FILE}`,
      `with-org/invalid-schema/contents/${FILE}`,
      `with-org/none/contents/${FILE}`,
      `with-org/empty/contents/${FILE}`,
    ]);
  });
});
