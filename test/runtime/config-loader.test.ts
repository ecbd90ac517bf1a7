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

describe("a configuration that fails its schema", () => {
  it("names each problem's line, and its file when the configuration came from more than one", async () => {
    octokit = client(62);
    const own = await loadRepoConfig(octokit, "plain", "invalid-schema");
    expect(own).toMatchObject({
      kind: "invalid",
      problems: ["repositoryId: is required", expect.stringMatching(/^failOn \(line 1\): must be one of /)],
    });
    expect(await new OwnerConfigs(octokit, "plain").load("invalid-schema")).toEqual(own);
    sb.state.addRepository({
      owner: "plain",
      name: "extends-bad",
      installationId: 62,
      files: { main: { [FILE]: "_extends: own\npolicies:\n  - paths: [src/**]\n    mode: silent\n" } },
    });
    expect(await loadRepoConfig(octokit, "plain", "extends-bad")).toMatchObject({
      kind: "invalid",
      problems: [
        `policies[0].mode (plain/extends-bad:${FILE}, line 4): must be one of block, comment, monitor, off (got "silent")`,
      ],
    });
  });
});

describe("where each policy key came from", () => {
  it("names the repository's own file, the organization's fallback, and default for a key no file sets", async () => {
    octokit = client(61);
    const own = { kind: "repository", file: `with-org/own:${FILE}` };
    expect(await loadRepoConfig(octokit, "with-org", "own")).toMatchObject({
      kind: "ok",
      sources: { failOn: own },
    });
    const org = { kind: "organization", file: `with-org/.github:${FILE}` };
    const fallback = await loadRepoConfig(octokit, "with-org", "none");
    expect(fallback).toMatchObject({ kind: "ok", sources: { failOn: org } });
    expect(fallback.kind === "ok" && fallback.sources).toEqual({ failOn: org });
    expect(await new OwnerConfigs(octokit, "with-org").load("own")).toMatchObject({
      sources: { failOn: own },
    });
  });

  it("a key of the extending file is the repository's, one it leaves to the extended file is that file's", async () => {
    const loaded = await loadRepoConfig(client(62), "plain", "extends");
    expect(loaded.kind === "ok" && loaded.sources).toEqual({
      failOn: { kind: "repository", file: `plain/extends:${FILE}` },
    });
    sb.state.setFile("plain", "extends", "main", FILE, "_extends: own\nmode: evaluate\n");
    try {
      const again = await loadRepoConfig(client(62), "plain", "extends");
      expect(again.kind === "ok" && again.sources).toEqual({
        failOn: { kind: "extended", file: `plain/own:${FILE}` },
        mode: { kind: "repository", file: `plain/extends:${FILE}` },
      });
    } finally {
      sb.state.setFile("plain", "extends", "main", FILE, "_extends: own\nfailOn: low\n");
    }
  });
});

describe("the organization floor", () => {
  const ORG_FILE = ".github/diffward.yml";
  const SOURCE = (owner: string) => `${owner}/.github:${ORG_FILE}`;

  /** An organization whose `.github` repository holds `orgFile`, and repositories with their own files. */
  function seedOrg(owner: string, id: number, orgFile: string, repos: Record<string, string>) {
    sb.state.addInstallation({ id, account: { login: owner, type: "Organization" } });
    sb.state.addRepository({
      owner,
      name: ".github",
      installationId: id,
      files: { main: { [ORG_FILE]: orgFile } },
    });
    for (const [name, text] of Object.entries(repos))
      sb.state.addRepository({ owner, name, installationId: id, files: { main: { [ORG_FILE]: text } } });
  }

  beforeAll(() => {
    seedOrg("floored", 71, "enforce:\n  failOn: medium\n  forks: approve\nrepositoryId: repo_org\n", {
      loose: "repositoryId: repo_a\nfailOn: {severity: critical, only: new}\nforks: scan\n",
      strict: "repositoryId: repo_b\nfailOn: low\nforks: skip\n",
      misplaced: "repositoryId: repo_c\nenforce:\n  failOn: low\n",
      extends: "_extends: .github\nrepositoryId: repo_d\n",
    });
    seedOrg("bad-floor", 72, "enforce:\n  failOn: high\n  mode: evaluate\n", { own: CONFIG });
    seedOrg("floor-only", 73, "enforce:\n  failOn: medium\n", { own: CONFIG });
  });

  it("raises a repository's looser values, its own file without _extends, and names the organization file", async () => {
    const loaded = await loadRepoConfig(client(71), "floored", "loose");
    expect(loaded).toMatchObject({
      kind: "ok",
      config: { repositoryId: "repo_a", failOn: { severity: "medium", only: "new" }, forks: "approve" },
      files: ["floored/loose:.github/diffward.yml", SOURCE("floored")],
      raised: [
        { key: "failOn.severity", from: "critical", to: "medium", source: SOURCE("floored") },
        { key: "forks", from: "scan", to: "approve", source: SOURCE("floored") },
      ],
    });
    expect(loaded.kind === "ok" && "enforce" in loaded.config).toBe(false);
  });

  it("keeps a stricter repository's own values", async () => {
    const loaded = await loadRepoConfig(client(71), "floored", "strict");
    expect(loaded).toMatchObject({ kind: "ok", config: { failOn: "low", forks: "skip" }, raised: [] });
  });

  it("applies to a repository that falls back to or extends the organization file", async () => {
    expect(await loadRepoConfig(client(71), "floored", "extends")).toMatchObject({
      kind: "ok",
      config: { repositoryId: "repo_d", failOn: { severity: "medium", only: "all" }, forks: "approve" },
      raised: [{ key: "failOn.severity", from: "high", to: "medium" }],
    });
    const fallback = { kind: "ok", config: { repositoryId: "repo_org", forks: "approve" } };
    expect(await loadRepoConfig(client(71), "floored", "no-file")).toMatchObject(fallback);
    expect(await new OwnerConfigs(client(71), "floored").load("no-file")).toMatchObject(fallback);
  });

  it("refuses enforce: in a repository's own file, naming the file", async () => {
    expect(await loadRepoConfig(client(71), "floored", "misplaced")).toEqual({
      kind: "invalid",
      problems: [
        "floored/misplaced:.github/diffward.yml: enforce: is read only from the organization's file floored/.github:.github/diffward.yml; move it there or remove it",
      ],
      files: ["floored/misplaced:.github/diffward.yml", SOURCE("floored")],
    });
  });

  it("makes every repository's configuration invalid on an enforce key outside the list, with its line", async () => {
    const loaded = await loadRepoConfig(client(72), "bad-floor", "own");
    expect(loaded).toMatchObject({ kind: "invalid" });
    expect(loaded.kind === "invalid" && loaded.problems).toEqual([
      expect.stringMatching(
        /^bad-floor\/\.github:\.github\/diffward\.yml: enforce\.mode \(line 3\): unknown key "mode"; known keys here: failOn, triage, commands, forks, suppressions$/,
      ),
    ]);
    const owner = new OwnerConfigs(client(72), "bad-floor");
    expect(await owner.load("own")).toEqual(loaded);
  });

  it("an organization file with only enforce: onboards no repository without its own", async () => {
    const configs = new OwnerConfigs(client(73), "floor-only");
    expect(await configs.load("no-file")).toEqual({ kind: "absent" });
    expect(await loadRepoConfig(client(73), "floor-only", "no-file")).toEqual({ kind: "absent" });
    expect(await configs.load("own")).toMatchObject({
      kind: "ok",
      config: { failOn: { severity: "medium", only: "all" } },
      raised: [{ key: "failOn.severity", from: "high", to: "medium" }],
    });
  });
});
