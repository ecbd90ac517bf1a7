/**
 * The CODEOWNERS loader against the GitHub stand-in over HTTP (Probot's Octokit): GitHub's order of locations,
 * its 3 MB limit (the size read first, the file never downloaded), files over the contents API's 1 MB (read
 * with the raw media type), binary and non-UTF-8 files, the cache per commit, and GitHub's own error list.
 */
import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../../dev/github-standin/index.js";
import { devPrivateKey } from "../../../dev/harness/harness.js";
import {
  CODEOWNERS_MAX_BYTES,
  CodeownersCache,
  loadCodeowners,
  loadCodeownersErrors,
  ownersOf,
} from "../../../src/triage/codeowners/index.js";

const OWNER = "octo-org";
let sb: GitHubStandIn;
let octokit: ProbotOctokit;
let cache: CodeownersCache;
let n = 0;

beforeAll(async () => {
  sb = await startGitHubStandIn();
  sb.state.addInstallation({ id: 71, account: { login: OWNER, type: "Organization" } });
  octokit = new ProbotOctokit({
    baseUrl: sb.url,
    auth: { appId: 1, privateKey: devPrivateKey(), installationId: 71 },
    retry: { enabled: false },
    throttle: { enabled: false },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
});
afterAll(async () => sb.close());
beforeEach(() => {
  cache = new CodeownersCache();
});

/** A new repository whose `main` holds `files`; its name. */
function repoWith(files: Record<string, string>): string {
  const name = `repo-${++n}`;
  sb.state.addRepository({ owner: OWNER, name, installationId: 71, files: { main: files } });
  return name;
}

const load = (repo: string, ref = "main") => loadCodeowners(octokit, { owner: OWNER, repo, ref }, cache);
/** The requests made for `repo` since `since` (an index into `sb.requests`), as `operationId path`. */
const madeFor = (repo: string, since: number) =>
  sb.requests
    .slice(since)
    .filter((r) => r.path.includes(`/${repo}/`))
    .map((r) => `${r.operationId} ${decodeURIComponent(r.path.split(`/${repo}/`)[1] ?? "")}`);
/** The requests GitHub would not have accepted, but the one naming no commit on purpose (GitHub's 422). */
const violations = () => sb.violations().filter((r) => !r.path.endsWith("/commits/no-such-branch"));

describe("loadCodeowners: GitHub's locations, first found wins", () => {
  it("reads .github/CODEOWNERS before CODEOWNERS before docs/CODEOWNERS", async () => {
    const all = repoWith({
      ".github/CODEOWNERS": "* @from-github-dir\n",
      CODEOWNERS: "* @from-root\n",
      "docs/CODEOWNERS": "* @from-docs\n",
    });
    const loaded = await load(all);
    expect(loaded.path).toBe(".github/CODEOWNERS");
    expect(ownersOf(loaded.file!, "a.ts").owners).toEqual([{ kind: "user", login: "from-github-dir" }]);
    expect((await load(repoWith({ CODEOWNERS: "* @r\n", "docs/CODEOWNERS": "* @d\n" }))).path).toBe(
      "CODEOWNERS",
    );
    expect((await load(repoWith({ "docs/CODEOWNERS": "* @d\n" }))).path).toBe("docs/CODEOWNERS");
    expect(violations()).toEqual([]);
  });

  it("no file in any location: file and path null; a directory named CODEOWNERS is no file", async () => {
    expect(await load(repoWith({ "README.md": "hi" }))).toEqual({ file: null, path: null });
    expect(await load(repoWith({ "CODEOWNERS/README.md": "* @x\n" }))).toEqual({ file: null, path: null });
  });

  it("a ref that names no commit is said so", async () => {
    const loaded = await load(repoWith({ CODEOWNERS: "* @x\n" }), "no-such-branch");
    expect(loaded).toEqual({
      file: null,
      path: null,
      note: expect.stringContaining("`no-such-branch` names no commit"),
    });
  });
});

describe("loadCodeowners: files GitHub does not use", () => {
  it("at 3 MB or more: tooLarge with a note, the size read and the file never downloaded, later locations not used", async () => {
    const big = `* @x\n${"#".repeat(CODEOWNERS_MAX_BYTES)}`;
    const repo = repoWith({ ".github/CODEOWNERS": big, CODEOWNERS: "* @root\n" });
    const since = sb.requests.length;
    const loaded = await load(repo);
    expect(loaded).toEqual({
      file: null,
      path: ".github/CODEOWNERS",
      tooLarge: true,
      note: expect.stringMatching(/is \d+ bytes, over GitHub's 3 MB limit/),
    });
    expect(madeFor(repo, since)).toEqual([
      "repos/get-commit commits/main",
      "repos/get-content contents/.github/CODEOWNERS",
    ]);
    expect(violations()).toEqual([]);
  });

  it("between 1 MB and 3 MB: read with the raw media type and parsed", async () => {
    const rules = Array.from({ length: 40_000 }, (_, i) => `/src/module-${i}/ @owner-${i}`).join("\n");
    expect(Buffer.byteLength(rules)).toBeGreaterThan(1024 * 1024);
    const repo = repoWith({ CODEOWNERS: rules });
    const since = sb.requests.length;
    const loaded = await load(repo);
    expect(loaded.file?.rules).toHaveLength(40_000);
    // the object media type answers `encoding: none` over 1 MB; the raw one brings the bytes
    expect(madeFor(repo, since).filter((r) => r.endsWith(" contents/CODEOWNERS"))).toHaveLength(2);
    expect(ownersOf(loaded.file!, "src/module-39999/a.ts").owners).toEqual([
      { kind: "user", login: "owner-39999" },
    ]);
  });

  it("binary (NUL bytes) or not UTF-8: file null with a note", async () => {
    const binary = repoWith({});
    sb.state.setFile(
      OWNER,
      binary,
      "main",
      "CODEOWNERS",
      new Uint8Array([0x2a, 0x20, 0x40, 0x61, 0x00, 0x0a]),
    );
    expect(await load(binary)).toEqual({
      file: null,
      path: "CODEOWNERS",
      note: expect.stringContaining("binary"),
    });
    const latin1 = repoWith({});
    sb.state.setFile(OWNER, latin1, "main", "CODEOWNERS", new Uint8Array([0x2a, 0x20, 0x40, 0xe9, 0x0a]));
    expect(await load(latin1)).toEqual({
      file: null,
      path: "CODEOWNERS",
      note: expect.stringContaining("not UTF-8"),
    });
  });
});

describe("loadCodeowners: one read per commit", () => {
  it("a second load at the same commit asks GitHub only which commit the branch names; a new commit is read again", async () => {
    const repo = repoWith({ CODEOWNERS: "* @first\n" });
    expect((await load(repo)).file?.rules[0]?.owners).toEqual([{ kind: "user", login: "first" }]);
    let since = sb.requests.length;
    expect((await load(repo)).file?.rules[0]?.owners).toEqual([{ kind: "user", login: "first" }]);
    expect(madeFor(repo, since)).toEqual(["repos/get-commit commits/main"]);

    sb.state.setFile(OWNER, repo, "main", "CODEOWNERS", "* @second\n");
    since = sb.requests.length;
    expect((await load(repo)).file?.rules[0]?.owners).toEqual([{ kind: "user", login: "second" }]);
    expect(madeFor(repo, since)).toEqual([
      "repos/get-commit commits/main",
      "repos/get-content contents/.github/CODEOWNERS",
      "repos/get-content contents/CODEOWNERS",
    ]);
  });

  it("reads at a commit SHA (a pushed branch head)", async () => {
    const repo = repoWith({});
    const sha = "c".repeat(40);
    sb.state.setFile(OWNER, repo, sha, "CODEOWNERS", "/api/ @api-team\n");
    sb.state.setBranchHead(OWNER, repo, "main", sha);
    const bySha = await load(repo, sha);
    expect(bySha.file?.rules.map((r) => r.pattern)).toEqual(["/api/"]);
    expect(await load(repo, "main")).toBe(bySha);
  });

  it("keeps at most maxEntries commits, the least recently used leaving first", async () => {
    const small = new CodeownersCache(2);
    const repos = [1, 2, 3].map((i) => repoWith({ CODEOWNERS: `* @o${i}\n` }));
    for (const repo of repos) await loadCodeowners(octokit, { owner: OWNER, repo, ref: "main" }, small);
    expect(small.size).toBe(2);
    const since = sb.requests.length;
    await loadCodeowners(octokit, { owner: OWNER, repo: repos[0]!, ref: "main" }, small);
    expect(madeFor(repos[0]!, since)).toContain("repos/get-content contents/CODEOWNERS");
  });
});

describe("loadCodeownersErrors: GitHub's list", () => {
  it("lists GitHub's errors of the file at the ref, none for a valid file or no file", async () => {
    const bad = repoWith({ ".github/CODEOWNERS": "* @ok\n*.js not-an-owner\n" });
    const errors = await loadCodeownersErrors(octokit, { owner: OWNER, repo: bad, ref: "main" });
    expect(errors).toEqual([
      expect.objectContaining({ line: 2, kind: "Invalid owner", path: ".github/CODEOWNERS" }),
    ]);
    const brackets = repoWith({ CODEOWNERS: "/app/[id]/ @a\n/app/\\[id\\]/page.tsx @b\n" });
    expect(await loadCodeownersErrors(octokit, { owner: OWNER, repo: brackets, ref: "main" })).toEqual([
      expect.objectContaining({ line: 1, kind: "Invalid pattern" }),
    ]);
    const good = repoWith({ CODEOWNERS: "* @ok\n" });
    expect(await loadCodeownersErrors(octokit, { owner: OWNER, repo: good, ref: "main" })).toEqual([]);
    const none = repoWith({});
    expect(await loadCodeownersErrors(octokit, { owner: OWNER, repo: none, ref: "main" })).toEqual([]);
    expect(violations()).toEqual([]);
  });
});
