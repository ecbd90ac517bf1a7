import { describe, expect, it } from "vitest";
import { RepoConfig } from "../../src/config/repo-config.js";
import { decideGate, headIsFork, type GateInput } from "../../src/policy/gates.js";

const config = (extra: Record<string, unknown> = {}) => RepoConfig.parse({ repositoryId: "r", ...extra });
const file = (filename: string) => ({ filename, status: "modified", additions: 3, deletions: 1 });
const input = (o: Partial<GateInput>): GateInput => ({
  config: config(),
  files: [file("src/a.ts")],
  authorLogin: "dev",
  fromFork: false,
  authorPermitted: true,
  guidanceFile: "SCANNER.md",
  approved: false,
  ...o,
});

describe("decideGate", () => {
  it("scans an ordinary pull request", () => {
    expect(decideGate(input({}))).toEqual({ kind: "scan" });
  });
  it("authors.skip is case-insensitive and wins over approval", () => {
    const g = decideGate(
      input({
        config: config({ authors: { skip: ["Dependabot[bot]"] } }),
        authorLogin: "dependabot[bot]",
        approved: true,
      }),
    );
    expect(g).toMatchObject({ kind: "skip", reason: "authors-skip" });
  });
  it("paths.ignore skips only when every changed file matches (dotfiles included)", () => {
    const cfg = config({ paths: { ignore: ["docs/**", "**/*.md"] } });
    expect(
      decideGate(input({ config: cfg, files: [file("docs/a.md"), file(".github/x.md")] })),
    ).toMatchObject({ kind: "skip", reason: "paths-ignore" });
    expect(decideGate(input({ config: cfg, files: [file("docs/a.md"), file("src/a.ts")] }))).toEqual({
      kind: "scan",
    });
  });
  it("forks: approve waits for an outside author, scans a permitted one, and skip never scans", () => {
    expect(decideGate(input({ fromFork: true, authorPermitted: false }))).toMatchObject({
      kind: "approval",
      reason: "fork",
    });
    expect(decideGate(input({ fromFork: true, authorPermitted: true }))).toEqual({ kind: "scan" });
    expect(decideGate(input({ fromFork: true, authorPermitted: false, approved: true }))).toEqual({
      kind: "scan",
    });
    expect(
      decideGate(input({ config: config({ forks: "skip" }), fromFork: true, authorPermitted: false })),
    ).toMatchObject({ kind: "skip", reason: "fork-skip" });
    expect(
      decideGate(input({ config: config({ forks: "scan" }), fromFork: true, authorPermitted: false })),
    ).toEqual({ kind: "scan" });
  });
  it("a head repository that is unknown (deleted fork: head.repo null) counts as a fork; only the base repository does not", () => {
    expect(headIsFork(null, "octo/app")).toBe(true);
    expect(headIsFork(undefined, "octo/app")).toBe(true);
    expect(headIsFork("", "octo/app")).toBe(true);
    expect(headIsFork("outsider/app", "octo/app")).toBe(true);
    expect(headIsFork("Octo/App", "octo/app")).toBe(false);
  });
  it("a guidance change is flagged (warn) or waits (require-approval) until approved", () => {
    const files = [file("src/a.ts"), file("SCANNER.md")];
    expect(decideGate(input({ files }))).toEqual({
      kind: "scan",
      guidanceChange: { additions: 3, deletions: 1, status: "modified" },
    });
    const strict = config({ guidance: { onChange: "require-approval" } });
    expect(decideGate(input({ files, config: strict }))).toMatchObject({
      kind: "approval",
      reason: "guidance-changed",
    });
    expect(decideGate(input({ files, config: strict, approved: true }))).toMatchObject({
      kind: "scan",
      guidanceChange: { additions: 3 },
    });
  });
});
