import { describe, expect, it } from "vitest";
import { globProblem, parseRepoConfigYaml } from "../../src/config/repo-config.js";

const problems = (text: string) => {
  const r = parseRepoConfigYaml(text);
  return r.ok ? [] : r.problems;
};

describe("policies and mode in .github/diffward.yml", () => {
  it("reads path rules in order with mode block by default, a rule's own failOn, and mode evaluate", () => {
    const r = parseRepoConfigYaml(
      [
        "repositoryId: r",
        "failOn:",
        "  severity: high",
        "  only: new",
        "policies:",
        '  - paths: ["test/**"]',
        "    mode: monitor",
        '  - paths: ["src/payments/**"]',
        "    failOn: medium",
        "mode: evaluate",
        "",
      ].join("\n"),
    );
    expect(r.ok && r.config).toMatchObject({
      failOn: { severity: "high", only: "new" },
      policies: [
        { paths: ["test/**"], mode: "monitor" },
        { paths: ["src/payments/**"], mode: "block", failOn: "medium" },
      ],
      mode: "evaluate",
    });
  });

  it("an unknown mode is a problem with its line", () => {
    expect(problems('repositoryId: r\npolicies:\n  - paths: ["test/**"]\n    mode: silent\n')).toEqual([
      'policies[0].mode (line 4): must be one of block, comment, monitor, off (got "silent")',
    ]);
    expect(problems("repositoryId: r\nmode: dry-run\n")).toEqual([
      'mode (line 2): must be one of enforce, evaluate (got "dry-run")',
    ]);
  });

  it("suppressions takes allow, approval or deny (allow by default); another value is a problem with its line", () => {
    expect(problems("repositoryId: r\nsuppressions: approval\n")).toEqual([]);
    expect(problems("repositoryId: r\nfailOn: high\nsuppressions: never\n")).toEqual([
      'suppressions (line 3): must be one of allow, approval, deny (got "never")',
    ]);
  });

  it("a paths entry that is not a valid glob is a problem with its line", () => {
    const text =
      'repositoryId: r\npolicies:\n  - paths: ["src/**"]\n  - paths:\n      - "docs/**"\n      - "src/{a,b"\n';
    expect(problems(text)).toEqual([
      'policies[1].paths[1] (line 6): not a valid glob: it has an unclosed `{` (got "src/{a,b")',
    ]);
  });

  it("an unknown key in a rule, a rule without paths or with an empty list is a problem, never ignored", () => {
    expect(problems('repositoryId: r\npolicies:\n  - paths: ["a/**"]\n    severity: low\n')[0]).toContain(
      'policies[0].severity (line 4): unknown key "severity"',
    );
    expect(problems("repositoryId: r\npolicies:\n  - mode: off\n")[0]).toMatch(/^policies\[0\]\.paths/);
    expect(problems("repositoryId: r\npolicies:\n  - paths: []\n")[0]).toMatch(
      /^policies\[0\]\.paths \(line 3\)/,
    );
  });

  it("globProblem: balanced brackets, braces and parentheses, a pattern that can match, relative paths", () => {
    for (const ok of [
      "src/**",
      "**/*.test.ts",
      "src/{a,b}/**",
      "lib/[a-z]*.js",
      "!(vendor)/**",
      "a\\{b",
      ".github/**",
    ])
      expect(globProblem(ok), ok).toBeUndefined();
    expect(globProblem("src/{a,b")).toBe("has an unclosed `{`");
    expect(globProblem("src/[a-")).toBe("has an unclosed `[`");
    expect(globProblem("src/a)")).toBe("has an unmatched `)`");
    expect(globProblem("src/(a]")).toBe("has an unmatched `]`");
    expect(globProblem("/src/**")).toBe("must be relative to the repository root (no leading `/`)");
  });
});
