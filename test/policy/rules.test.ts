import { describe, expect, it } from "vitest";
import { RepoConfig } from "../../src/config/repo-config.js";
import { decideGate, headIsFork, type GateInput } from "../../src/policy/gates.js";
import { monthWindow } from "../../src/domain/month.js";
import { spendOf } from "../../src/policy/credits.js";
import { tokenProblems } from "../../src/policy/token-health.js";
import type { LedgerEvent, Token } from "../../src/scanner/schemas.js";

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

describe("credits from the ledger", () => {
  const ev = (type: LedgerEvent["type"], credits: number, scanId: string | null): LedgerEvent => ({
    id: `${type}${credits}${scanId}`,
    at: "2026-11-20T00:00:00Z",
    type,
    credits,
    scanId,
    description: "",
  });
  it("spent = deductions less refunds, per scan; unsettled without a deduction", () => {
    const events = [
      ev("SCAN_DEDUCTION", -40, "s1"),
      ev("SCAN_REFUND", 15, "s1"),
      ev("SCAN_DEDUCTION", -7, "s2"),
      ev("PURCHASE", 500, null),
    ];
    expect(spendOf(events, "s1")).toEqual({ spent: 25, settled: true });
    expect(spendOf(events, "s2")).toEqual({ spent: 7, settled: true });
    expect(spendOf(events, "s3")).toEqual({ spent: 0, settled: false });
  });
  it("the month window is the UTC calendar month", () => {
    const w = monthWindow(Date.parse("2026-12-31T23:59:59Z"));
    expect(new Date(w.start).toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(new Date(w.next).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });
});

describe("token health", () => {
  const token = (o: Partial<Token> = {}): Token =>
    ({
      id: "t",
      name: "ci",
      scopes: ["read", "scans:launch", "findings:write", "publish"],
      repositoryIds: [],
      expiresAt: null,
      spendLimitCredits: null,
      project: { id: "p", slug: "p", name: "P", organization: { id: "o", slug: "o", name: "O" } },
      ...o,
    }) as Token;
  const now = Date.parse("2026-11-22T00:00:00Z");
  it("a complete, unrestricted, long-lived token has no problem", () => {
    expect(tokenProblems(token(), { repositoryId: "r", now })).toEqual([]);
  });
  it("names missing scopes, a near expiry and an allowlist that excludes the repository", () => {
    const problems = tokenProblems(
      token({ scopes: ["read"], expiresAt: "2026-11-30T00:00:00Z", repositoryIds: ["other"] }),
      { repositoryId: "r", now },
    );
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain("`scans:launch`");
    expect(problems[1]).toContain("2026-11-30");
    expect(problems[2]).toContain("`r`");
  });
});

describe("/diffward credits and /diffward areas answers", () => {
  it("credits: balance, available, reserved, this repository's month against its cap, spend by month", async () => {
    const { renderCreditsAnswer } = await import("../../src/render/spend-answers.js");
    const text = renderCreditsAnswer({
      balance: {
        organization: { id: "o", slug: "acme", name: "Acme" },
        balanceCredits: 900,
        availableCredits: 850,
        reservedCredits: 50,
      },
      summary: {
        organization: { id: "o", slug: "acme", name: "Acme" },
        months: [{ month: "2026-11", spentCredits: 120, purchasedCredits: 0 }],
      },
      repositoryMonthSpend: 42,
      config: { repositoryId: "repo_1", creditCap: { monthly: 100 }, lowBalanceThreshold: 1000 },
      now: Date.parse("2026-11-22T00:00:00Z"),
    });
    expect(text).toContain("**850 available**");
    expect(text).toContain("50 reserved");
    expect(text).toContain(
      "**42 credits** this month (UTC) of its `creditCap.monthly` of 100; the cap resets on 2026-12-01",
    );
    expect(text).toContain("| 2026-11 | 120 | 0 |");
    expect(text).toContain("lowBalanceThreshold");
  });
  it("areas: sizes when the list carries them, stale keys marked, configured keys ticked", async () => {
    const { renderAreasAnswer } = await import("../../src/render/spend-answers.js");
    const text = renderAreasAnswer(
      {
        raw: {},
        branch: "main",
        hasMap: true,
        areas: [
          {
            key: "auth",
            source: "discovered",
            name: "Auth <b>",
            inCurrentMap: true,
            files: 12,
            lines: 900,
            raw: { key: "auth", source: "discovered" },
          },
          {
            key: "old",
            source: "discovered",
            inCurrentMap: false,
            files: null,
            lines: null,
            raw: { key: "x", source: "discovered" },
          },
        ],
      },
      ["auth"],
    );
    expect(text).toContain("sizes from `main`");
    expect(text).toMatch(/`auth` ✅ \| Auth &lt;b&gt; \| discovered \| yes \| 12 \| 900/);
    expect(text).toContain("⚠️ no longer in the map");
  });
});
