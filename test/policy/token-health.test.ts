/** What is wrong with the service token diffward uses (src/policy/token-health.ts). */
import { describe, expect, it } from "vitest";
import { tokenProblems } from "../../src/policy/token-health.js";
import type { Token } from "../../src/scanner/schemas.js";

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
