/**
 * `diffward check-config` as a user runs it: the package's command in a child process, with no settings in
 * its environment (no Redis, GitHub or service), on good and bad repository and organization files.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
/** tsx by its file URL, so the command runs from any working directory */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const dir = mkdtempSync(join(tmpdir(), "diffward-check-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Runs `diffward <args>` (src/cli.ts through tsx) in `cwd` with only PATH and HOME set. */
async function diffward(args: string[], cwd = dir) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", TSX, join(ROOT, "src/cli.ts"), ...args],
      { cwd, env: { PATH: process.env.PATH!, HOME: process.env.HOME! } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("diffward check-config", () => {
  it("passes a valid repository file, a file with _extends and an organization file with enforce", async () => {
    const repo = file("repo.yml", "repositoryId: repo_1\nfailOn: {severity: medium, only: new}\n");
    const ext = file("ext.yml", "_extends: .github\nfailOn: low\n");
    const org = file(
      "org.yml",
      "enforce:\n  failOn: high\n  triage:\n    maxAcceptanceDays: 90\n  commands:\n    minPermission: maintain\ndrafts: scan\n",
    );
    const out = await diffward(["check-config", repo, ext, org]);
    expect(out).toEqual({
      code: 0,
      stdout: `${repo}: valid\n${ext}: valid\n${org}: valid (with an organization floor, enforce:)\n`,
      stderr: "",
    });
  });

  it("names each problem of a repository file with its line, column, what is wrong and what is allowed", async () => {
    const bad = file("bad.yml", "repositoryId: r\nfailOn: hgih\ncomments:\n  maxInlin: 3\n");
    const out = await diffward(["check-config", bad]);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      [
        `${bad}:2:9: failOn: must be one of critical, high, medium, low, info, none (got "hgih")`,
        `${bad}:4:13: comments.maxInlin: unknown key "maxInlin" (did you mean "maxInline"?); known keys here: maxInline, minSeverity`,
        `${bad}: 2 problems`,
        "",
      ].join("\n"),
    );
  });

  it("refuses an enforce key outside the list and a bad floor value in an organization file", async () => {
    const org = file("bad-org.yml", "enforce:\n  failOn: high\n  mode: evaluate\n  forks: sometimes\n");
    const out = await diffward(["check-config", org]);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      [
        `${org}:3:9: enforce.mode: unknown key "mode"; known keys here: failOn, triage, commands, forks, suppressions`,
        `${org}:4:10: enforce.forks: must be one of scan, approve, skip (got "sometimes")`,
        `${org}: 2 problems`,
        "",
      ].join("\n"),
    );
  });

  it("reads .github/diffward.yml by default, reports YAML syntax errors and unreadable files", async () => {
    const work = mkdtempSync(join(dir, "repo-"));
    const missing = await diffward(["check-config"], work);
    expect(missing).toMatchObject({ code: 1, stderr: ".github/diffward.yml: cannot be read (ENOENT)\n" });
    const syntax = file("syntax.yml", "repositoryId: r\nfailOn: [high\n");
    const out = await diffward(["check-config", syntax]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      new RegExp(`^${syntax.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3:1: YAML syntax error: `),
    );
  });
});
