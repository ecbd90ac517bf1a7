import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  MAX_REPO_CONFIG_BYTES,
  RepoConfig,
  collaboratorRole,
  effectiveDisclosure,
  effectivePreset,
  parseRepoConfig,
  parseRepoConfigYaml,
  permissionAtLeast,
} from "../../src/config/repo-config.js";
import { propertyOptions } from "../support/property.js";

const DEFAULTS = {
  repositoryId: "repo_1",
  failOn: "high",
  drafts: "skip",
  onServiceOutage: "failure",
  debounceSeconds: 10,
  comments: { maxInline: 20, minSeverity: "low" },
  commands: { minPermission: "write" },
  triage: { maxAcceptanceDays: 365, requireExpiry: [] },
  guidance: { onChange: "warn" },
  forks: "approve",
  paths: { ignore: [] },
  authors: { skip: [] },
  creditCap: {},
  mergeQueue: "reuse",
  policies: [],
  mode: "enforce",
  suppressions: "allow",
  codeScanning: { upload: false },
  baseline: { on: "off", schedule: "weekly" },
  scanTimeoutMinutes: 120,
};

function problemsOf(raw: unknown): string[] {
  const r = parseRepoConfig(raw);
  if (r.ok) throw new Error("expected problems");
  return r.problems;
}

describe("parseRepoConfig", () => {
  it("fills every default from a minimal config", () => {
    expect(parseRepoConfig({ repositoryId: "repo_1" })).toEqual({ ok: true, config: DEFAULTS });
  });

  it("keeps every field of a full config", () => {
    const full = {
      repositoryId: "repo_1",
      preset: "diff-deep",
      creditBudget: 300,
      auditAreas: ["auth", "billing"],
      failOn: "none",
      policies: [
        { paths: ["test/**"], mode: "monitor" },
        {
          paths: ["src/payments/**", "lib/pay/*.ts"],
          mode: "block",
          failOn: { severity: "medium", only: "new" },
        },
      ],
      mode: "evaluate",
      suppressions: "approval",
      drafts: "scan",
      onServiceOutage: "neutral",
      debounceSeconds: 0,
      disclosure: "full",
      comments: { maxInline: 0, minSeverity: "info" },
      commands: { minPermission: "triage" },
      triage: {
        approval: { minSeverity: "medium", approvers: "admin", codeowners: true, notify: true },
        maxAcceptanceDays: 90,
        requireExpiry: ["WONT_FIX"],
      },
      guidance: { onChange: "require-approval" },
      forks: "skip",
      paths: { ignore: ["test/**", "**/*.md"] },
      authors: { skip: ["dependabot[bot]", "octo-cat"] },
      creditCap: { monthly: 5000 },
      codeScanning: { upload: true },
      baseline: { on: "schedule", schedule: "30 4 * * 1-5", preset: "full-standard", creditBudget: 400 },
      lowBalanceThreshold: 100,
      mergeQueue: "scan",
      scanTimeoutMinutes: 1440,
    };
    expect(parseRepoConfig(full)).toEqual({ ok: true, config: full });
  });

  it("two-person dismissals are off unless triage.approval is set; an empty one takes high, maintain, no code owners", () => {
    const off = parseRepoConfig({ repositoryId: "r" });
    expect(off.ok && off.config.triage.approval).toBeUndefined();
    const on = parseRepoConfig({ repositoryId: "r", triage: { approval: {} } });
    expect(on.ok && on.config.triage.approval).toEqual({
      minSeverity: "high",
      approvers: "maintain",
      codeowners: false,
      notify: false,
    });
    expect(problemsOf({ repositoryId: "r", triage: { approval: { codeowners: "yes" } } })[0]).toContain(
      "triage.approval.codeowners",
    );
    expect(problemsOf({ repositoryId: "r", triage: { approval: { approvers: "owner" } } })[0]).toContain(
      "triage.approval.approvers",
    );
  });

  it.each([
    [
      { repositoryId: "r", failOn: "hgih" },
      'failOn: must be one of critical, high, medium, low, info, none (got "hgih")',
    ],
    [
      { repositoryId: "r", failOn: { severity: "hgih" } },
      'failOn.severity: must be one of critical, high, medium, low, info, none (got "hgih")',
    ],
    [{ repositoryId: "r", failOn: { only: "fresh" } }, 'failOn.only: must be one of all, new (got "fresh")'],
    [
      { repositoryId: "r", failOn: { severty: "high" } },
      'failOn.severty: unknown key "severty" (did you mean "severity"?)',
    ],
    [
      { repositoryId: "r", failOn: 3 },
      "failOn: must be one of critical, high, medium, low, info, none (got 3)",
    ],
    [{}, "repositoryId: is required"],
    [{ repositoryId: "" }, 'repositoryId: must not be empty (got "")'],
    [{ repositoryId: 42 }, "repositoryId: must be a string (got 42)"],
    [{ repositoryId: "r", debounceSeconds: 601 }, "debounceSeconds: must be at most 600 (got 601)"],
    [{ repositoryId: "r", debounceSeconds: 1.5 }, "debounceSeconds: must be a whole number (got 1.5)"],
    [{ repositoryId: "r", creditBudget: 0 }, "creditBudget: must be at least 1 (got 0)"],
    [{ repositoryId: "r", scanTimeoutMinutes: 0 }, "scanTimeoutMinutes: must be at least 1 (got 0)"],
    [{ repositoryId: "r", mergeQueue: "off" }, 'mergeQueue: must be one of reuse, scan, skip (got "off")'],
    [
      { repositoryId: "r", comments: { maxInline: 101 } },
      "comments.maxInline: must be at most 100 (got 101)",
    ],
    [{ repositoryId: "r", comments: "all" }, 'comments: must be a mapping (got "all")'],
    [{ repositoryId: "r", paths: { ignore: "test/**" } }, 'paths.ignore: must be a list (got "test/**")'],
    [{ repositoryId: "r", paths: { ignore: ["a", 3] } }, "paths.ignore[1]: must be a string (got 3)"],
    [
      { repositoryId: "r", authors: { skip: ["not a login"] } },
      'authors.skip[0]: must be a GitHub login (got "not a login")',
    ],
    [
      { repositoryId: "r", disclosure: "partial" },
      'disclosure: must be one of full, summary (got "partial")',
    ],
    [{ repositoryId: "r", creditCap: { monthly: -5 } }, "creditCap.monthly: must be at least 1 (got -5)"],
    [
      { repositoryId: "r", commands: { minPermission: "none" } },
      "commands.minPermission: must be one of read, triage, write, maintain, admin",
    ],
    [{ repositoryId: "r", failon: "high" }, 'failon: unknown key "failon" (did you mean "failOn"?)'],
    [
      { repositoryId: "r", guidance: { on_change: "warn" } },
      'guidance.on_change: unknown key "on_change" (did you mean "onChange"?)',
    ],
    [{ repositoryId: "r", colour: "red" }, 'colour: unknown key "colour"; known keys here: repositoryId'],
    [
      { repositoryId: "r", policies: [{ paths: ["a/**"], mod: "monitor" }] },
      'policies[0].mod: unknown key "mod" (did you mean "mode"?); known keys here: paths, mode, failOn',
    ],
    [[], "the file must be a mapping (got a list)"],
    [null, "the file is empty; at least `repositoryId` is required"],
  ])("%j → %s", (raw, expected) => {
    expect(problemsOf(raw).some((p) => p.startsWith(expected))).toBe(true);
  });

  it("failOn: a severity alone (every finding counts), or the mapping {severity, only} with defaults high and all", () => {
    const failOn = (value: unknown) => {
      const r = parseRepoConfig({ repositoryId: "r", failOn: value });
      if (!r.ok) throw new Error(r.problems.join("; "));
      return r.config.failOn;
    };
    expect(failOn("medium")).toBe("medium");
    expect(failOn({ severity: "high", only: "new" })).toEqual({ severity: "high", only: "new" });
    expect(failOn({ only: "new" })).toEqual({ severity: "high", only: "new" });
    expect(failOn({ severity: "low" })).toEqual({ severity: "low", only: "all" });
    const yaml = parseRepoConfigYaml("repositoryId: r\nfailOn:\n  severity: critical\n  only: new\n");
    expect(yaml.ok && yaml.config.failOn).toEqual({ severity: "critical", only: "new" });
    const bad = parseRepoConfigYaml("repositoryId: r\nfailOn:\n  severity: high\n  only: recent\n");
    expect(bad.ok ? [] : bad.problems).toEqual([
      'failOn.only (line 4): must be one of all, new (got "recent")',
    ]);
  });

  it("reports every problem at once", () => {
    expect(problemsOf({ failOn: "x", drafts: "y", extra: 1 })).toHaveLength(4);
  });

  it("never throws, whatever the input", () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const r = parseRepoConfig(raw);
        if (!r.ok) expect(r.problems.length).toBeGreaterThan(0);
      }),
      propertyOptions(500),
    );
  });

  it("accepts exactly the values the schema's domains allow", () => {
    const arb = fc.record(
      {
        failOn: fc.constantFrom("critical", "high", "medium", "low", "info", "none", "HIGH"),
        debounceSeconds: fc.integer({ min: -5, max: 700 }),
        comments: fc.record({ maxInline: fc.integer({ min: -1, max: 101 }) }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(arb, (partial) => {
        const r = parseRepoConfig({ repositoryId: "r", ...partial });
        const okFail = partial.failOn === undefined || partial.failOn !== "HIGH";
        const okDeb =
          partial.debounceSeconds === undefined ||
          (partial.debounceSeconds >= 0 && partial.debounceSeconds <= 600);
        const okMax =
          partial.comments === undefined ||
          (partial.comments.maxInline >= 0 && partial.comments.maxInline <= 100);
        expect(r.ok).toBe(okFail && okDeb && okMax);
      }),
      propertyOptions(),
    );
  });
});

describe("parseRepoConfigYaml", () => {
  it("parses YAML with defaults", () => {
    const r = parseRepoConfigYaml(
      "# diffward\nrepositoryId: repo_1\nfailOn: medium\npaths:\n  ignore:\n    - test/**\n",
    );
    expect(r).toEqual({
      ok: true,
      config: { ...DEFAULTS, failOn: "medium", paths: { ignore: ["test/**"] } },
    });
  });

  it("puts the YAML line on schema problems", () => {
    const r = parseRepoConfigYaml("repositoryId: r\n\nfailOn: hgih\ncomments:\n  maxInlin: 3\n");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toEqual([
      'failOn (line 3): must be one of critical, high, medium, low, info, none (got "hgih")',
      'comments.maxInlin (line 5): unknown key "maxInlin" (did you mean "maxInline"?); known keys here: maxInline, minSeverity',
    ]);
    expect(r.details[0]).toMatchObject({ path: "failOn", line: 3 });
  });

  it("reports YAML syntax errors with line and column", () => {
    const r = parseRepoConfigYaml("repositoryId: r\nfailOn: [high\ndrafts: skip\n");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]).toMatch(/^line \d+, column \d+: YAML syntax error: /);
    const dup = parseRepoConfigYaml("repositoryId: r\nrepositoryId: s\n");
    expect(!dup.ok && dup.problems[0]).toMatch(
      /^line 2, column 1: YAML syntax error: Map keys must be unique/,
    );
  });

  it("refuses an empty, a scalar and an oversized file", () => {
    expect(parseRepoConfigYaml("")).toMatchObject({
      ok: false,
      problems: ["the file is empty; at least `repositoryId` is required"],
    });
    expect(parseRepoConfigYaml("just text")).toMatchObject({
      ok: false,
      problems: ['line 1: the file must be a mapping (got "just text")'],
    });
    const big = `repositoryId: r\n# ${"x".repeat(MAX_REPO_CONFIG_BYTES)}\n`;
    expect(parseRepoConfigYaml(big)).toMatchObject({ ok: false });
  });

  it("refuses alias bombs instead of expanding them", () => {
    const levels = Array.from({ length: 8 }, (_, i) => {
      const prev = String.fromCharCode(97 + i);
      const name = String.fromCharCode(98 + i);
      return `${name}: &${name} [${Array(10).fill(`*${prev}`).join(", ")}]`;
    });
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...levels].join("\n");
    const r = parseRepoConfigYaml(bomb);
    expect(!r.ok && r.problems[0]).toMatch(/^YAML could not be read: .*alias/);
    expect(parseRepoConfigYaml(bomb).ok).toBe(false);
  });

  it("never throws on any text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expect(typeof parseRepoConfigYaml(text).ok).toBe("boolean");
      }),
      propertyOptions(500),
    );
  });
});

describe("baseline", () => {
  it("is off by default, and `on: push` or `on: schedule` needs a preset", () => {
    expect(parseRepoConfig({ repositoryId: "r", baseline: {} })).toMatchObject({
      ok: true,
      config: { baseline: { on: "off", schedule: "weekly" } },
    });
    expect(problemsOf({ repositoryId: "r", baseline: { on: "push" } })).toEqual([
      "baseline.preset: is required with `on: push` (a whole-repository preset ref from the service's presets list)",
    ]);
    expect(problemsOf({ repositoryId: "r", baseline: { on: "schedule" } })[0]).toMatch(
      /^baseline\.preset: is required with `on: schedule`/,
    );
    expect(parseRepoConfig({ repositoryId: "r", baseline: { on: "push", preset: "full" } }).ok).toBe(true);
  });

  it("takes daily, weekly or a 5-field cron, and says what is wrong with any other schedule", () => {
    const withSchedule = (schedule: string) =>
      parseRepoConfigYaml(
        `repositoryId: r\nbaseline:\n  on: schedule\n  preset: full\n  schedule: "${schedule}"\n`,
      );
    for (const ok of ["daily", "weekly", "0 3 * * 1", "*/15 0-6 1,15 * 0"])
      expect(withSchedule(ok).ok, ok).toBe(true);
    expect(withSchedule("61 * * * *")).toMatchObject({
      ok: false,
      problems: [
        `baseline.schedule (line 5): BullMQ's cron parser (cron-parser) refuses it: Constraint error, got value 61 expected range 0-59 (got "61 * * * *")`,
      ],
    });
    // the configuration error names the expression and why BullMQ could not run it
    expect(withSchedule("0 0 30 2 *")).toMatchObject({
      ok: false,
      problems: [
        `baseline.schedule (line 5): BullMQ's cron parser (cron-parser) refuses it: Invalid explicit day of month definition (got "0 0 30 2 *")`,
      ],
    });
    expect(withSchedule("0 0 31 4 *").ok).toBe(false);
    expect(withSchedule("0 0 31 4,6 *")).toMatchObject({
      ok: false,
      problems: [
        `baseline.schedule (line 5): matches no date (none of its months has its day of month), so BullMQ would never run it (got "0 0 31 4,6 *")`,
      ],
    });
    expect(withSchedule("hourly")).toMatchObject({
      ok: false,
      problems: [
        expect.stringContaining("baseline.schedule (line 5): must be daily, weekly or a 5-field cron"),
      ],
    });
    expect(withSchedule("0 3 * *").ok).toBe(false);
  });

  it("names a misspelt key of baseline", () => {
    expect(problemsOf({ repositoryId: "r", baseline: { On: "push", preset: "full" } })[0]).toMatch(
      /^baseline\.On: unknown key "On" \(did you mean "on"\?\)/,
    );
  });
});

describe("helpers", () => {
  it("effectiveDisclosure: configured value, else summary for public and full for private", () => {
    expect(effectiveDisclosure({}, { private: false })).toBe("summary");
    expect(effectiveDisclosure({}, { private: true })).toBe("full");
    expect(effectiveDisclosure({ disclosure: "full" }, { private: false })).toBe("full");
    expect(effectiveDisclosure({ disclosure: "summary" }, { private: true })).toBe("summary");
  });

  it("effectivePreset falls back to the app default", () => {
    expect(effectivePreset({}, "diff-standard")).toBe("diff-standard");
    expect(effectivePreset({ preset: "diff-deep" }, "diff-standard")).toBe("diff-deep");
  });

  it("permissionAtLeast follows admin > maintain > write > triage > read > none", () => {
    const order = ["none", "read", "triage", "write", "maintain", "admin"];
    const floors = ["read", "triage", "write", "maintain", "admin"] as const;
    for (const [i, actual] of order.entries())
      for (const floor of floors) expect(permissionAtLeast(actual, floor)).toBe(i >= order.indexOf(floor));
    expect(permissionAtLeast("ADMIN", "write")).toBe(true);
    expect(permissionAtLeast("security-reviewer", "read")).toBe(false);
    expect(permissionAtLeast(undefined, "read")).toBe(false);
    expect(permissionAtLeast(null, "read")).toBe(false);
  });

  it("collaboratorRole prefers role_name and falls back to permission for custom roles", () => {
    expect(collaboratorRole({ permission: "write", role_name: "maintain" })).toBe("maintain");
    expect(collaboratorRole({ permission: "write", role_name: "security-reviewer" })).toBe("write");
    expect(collaboratorRole({})).toBe("none");
  });

  it("RepoConfig output type matches a parsed config", () => {
    const parsed: RepoConfig = RepoConfig.parse({ repositoryId: "r" });
    expect(parsed.comments.minSeverity).toBe("low");
  });
});
