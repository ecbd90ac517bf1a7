/**
 * The stand-in's repository contents and commits as GitHub answers them: GitHub's 1 MB rule of the contents
 * API (https://docs.github.com/en/rest/repos/contents#get-repository-content), files as bytes, and the commit a
 * branch names (https://docs.github.com/en/rest/commits/commits#get-a-commit).
 */
import type { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";
import { installationOctokit, refused } from "../support/standin-client.js";

const repo = { owner: "octo-org", repo: "app" };
const LARGE = "x".repeat(1024 * 1024 + 1);

let sb: GitHubStandIn;
let gh: Octokit;

beforeAll(async () => {
  sb = await startGitHubStandIn();
  sb.state.addInstallation({ id: 42, account: { login: "octo-org", type: "Organization" } });
  sb.state.addRepository({
    owner: "octo-org",
    name: "app",
    installationId: 42,
    files: { main: { "small.txt": "hello\n", "large.txt": LARGE } },
  });
  sb.state.setFile("octo-org", "app", "main", "bytes.bin", new Uint8Array([0, 1, 0xff]));
  gh = await installationOctokit(sb, 42);
});
afterAll(async () => sb.close());

const get = (path: string, format?: string, ref = "main") =>
  gh.request("GET /repos/{owner}/{repo}/contents/{path}", {
    ...repo,
    path,
    ref,
    ...(format ? { mediaType: { format } } : {}),
  });

describe("GitHub stand-in: contents over 1 MB", () => {
  it("the default media type refuses a file over 1 MB with 403 too_large; up to 1 MB it is base64", async () => {
    const small = (await get("small.txt")).data as { encoding: string; content: string };
    expect(small.encoding).toBe("base64");
    expect(Buffer.from(small.content, "base64").toString()).toBe("hello\n");
    const refusal = await refused(get("large.txt"));
    expect(refusal.status).toBe(403);
    expect(refusal.message).toMatch(/blobs up to 1 MB/);
  });

  it('the object media type answers content "" with encoding none over 1 MB; raw answers the bytes', async () => {
    const object = (await get("large.txt", "object")).data as {
      encoding: string;
      content: string;
      size: number;
    };
    expect(object).toMatchObject({ encoding: "none", content: "", size: LARGE.length });
    expect(String((await get("large.txt", "raw")).data)).toHaveLength(LARGE.length);
  });

  it("keeps a file's bytes: base64 of exactly them, the size in bytes", async () => {
    const file = (await get("bytes.bin")).data as { content: string; size: number };
    expect([...Buffer.from(file.content, "base64")]).toEqual([0, 1, 0xff]);
    expect(file.size).toBe(3);
  });
});

describe("GitHub stand-in: the commit a ref names", () => {
  it("answers a branch's commit SHA with the sha media type, the same until a file changes; files are read at it", async () => {
    const sha = async (ref: string) =>
      String(
        (
          await gh.request("GET /repos/{owner}/{repo}/commits/{ref}", {
            ...repo,
            ref,
            mediaType: { format: "sha" },
          })
        ).data,
      );
    const first = await sha("main");
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    expect(await sha("main")).toBe(first);
    expect(
      Buffer.from(
        ((await get("small.txt", undefined, first)).data as { content: string }).content,
        "base64",
      ).toString(),
    ).toBe("hello\n");
    sb.state.setFile("octo-org", "app", "main", "small.txt", "changed\n");
    expect(await sha("main")).not.toBe(first);
    const commit = await gh.repos.getCommit({ ...repo, ref: "main" });
    expect(commit.data.sha).toBe(await sha("main"));
    expect(sb.violations()).toEqual([]);
  });
});
