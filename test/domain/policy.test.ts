import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PathPolicy } from "../../src/config/repo-config.js";
import {
  applyPolicy,
  policyParts,
  policyRule,
  readsBaseline,
  type Outcome,
} from "../../src/domain/policy.js";
import { decideConclusion } from "../../src/domain/verdict.js";
import { SEVERITIES } from "../../src/scanner/catalog.js";
import { finding } from "../support/finding.js";
import { propertyOptions } from "../support/property.js";

const policies: PathPolicy[] = [
  { paths: ["test/**"], mode: "monitor" },
  { paths: ["src/payments/**"], mode: "block", failOn: "medium" },
  { paths: ["docs/**", "vendor/**"], mode: "off" },
  { paths: ["scripts/**"], mode: "comment" },
  { paths: ["src/legacy/**"], mode: "block", failOn: { severity: "low", only: "new" } },
];

describe("applyPolicy: the rule that applies and what the finding counts as", () => {
  const rule = policyRule({ failOn: "high", policies }, { preexistingIds: ["old"] });
  const cases: [string, Parameters<typeof finding>[0], string, Outcome][] = [
    ["no rule matches: failOn", { location: "src/app.ts:3", severity: "HIGH" }, "failOn", "blocking"],
    ["no rule matches, below", { location: "src/app.ts:3", severity: "MEDIUM" }, "failOn", "below"],
    [
      "monitor never blocks",
      { location: "test/a.test.ts:1", severity: "CRITICAL" },
      "policies[0] test/**",
      "monitored",
    ],
    [
      "own failOn medium blocks",
      { location: "src/payments/pay.ts:9", severity: "MEDIUM" },
      "policies[1] src/payments/**",
      "blocking",
    ],
    [
      "own failOn medium, low",
      { location: "src/payments/pay.ts:9", severity: "LOW" },
      "policies[1] src/payments/**",
      "below",
    ],
    [
      "off hides",
      { location: "vendor/x.js:1", severity: "CRITICAL" },
      "policies[2] docs/**, vendor/**",
      "off",
    ],
    [
      "off hides a ruled out one too",
      { location: "docs/a.md", severity: "LOW", triageStatus: "FALSE_POSITIVE" },
      "policies[2] docs/**, vendor/**",
      "off",
    ],
    [
      "comment never blocks",
      { location: "scripts/run.sh:2", severity: "CRITICAL" },
      "policies[3] scripts/**",
      "commented",
    ],
    [
      "own only: new leaves out a pre-existing one",
      { id: "old", location: "src/legacy/a.ts:1", severity: "LOW" },
      "policies[4] src/legacy/**",
      "preexisting",
    ],
    [
      "own only: new, a new one blocks",
      { id: "new", location: "src/legacy/a.ts:1", severity: "LOW" },
      "policies[4] src/legacy/**",
      "blocking",
    ],
    [
      "top-level only: all: a pre-existing one still blocks",
      { id: "old", location: "src/app.ts:1", severity: "HIGH" },
      "failOn",
      "blocking",
    ],
    [
      "ruled out",
      { location: "src/app.ts:3", severity: "HIGH", resolutionStatus: "WONT_FIX" },
      "failOn",
      "ruled-out",
    ],
    ["no location: failOn", { location: "", severity: "HIGH" }, "failOn", "blocking"],
  ];
  it.each(cases)("%s", (_name, f, name, outcome) => {
    expect(applyPolicy(finding(f), rule)).toMatchObject({ rule: name, outcome });
  });

  it("the first matching rule wins over a later, broader one", () => {
    const r = policyRule({
      failOn: "high",
      policies: [
        { paths: ["src/payments/**"], mode: "comment" },
        { paths: ["src/**"], mode: "off" },
      ],
    });
    expect(applyPolicy(finding({ location: "src/payments/a.ts:1" }), r)).toMatchObject({
      ruleIndex: 0,
      mode: "comment",
    });
    expect(applyPolicy(finding({ location: "src/b.ts:1" }), r)).toMatchObject({
      ruleIndex: 1,
      outcome: "off",
    });
  });

  it("evaluation mode: what would fail concludes neutral, counting what would block", () => {
    const f = [finding({ location: "src/payments/a.ts:1", severity: "MEDIUM" })];
    expect(decideConclusion(f, policyRule({ failOn: "high", policies, mode: "evaluate" }))).toMatchObject({
      conclusion: "neutral",
      evaluate: true,
      blocking: 1,
    });
    expect(decideConclusion(f, policyRule({ failOn: "high", policies }))).toMatchObject({
      conclusion: "failure",
    });
    expect(decideConclusion([], policyRule({ failOn: "high", mode: "evaluate" })).conclusion).toBe("success");
  });

  it("counts per outcome; off is neither shown in the totals nor counted", () => {
    const v = decideConclusion(
      [
        finding({ location: "test/a.ts:1", severity: "HIGH" }),
        finding({ location: "vendor/a.ts:1", severity: "HIGH" }),
        finding({ location: "scripts/a.sh:1", severity: "HIGH" }),
        finding({ location: "src/a.ts:1", severity: "HIGH" }),
      ],
      policyRule({ failOn: "high", policies }),
    );
    expect(v).toMatchObject({
      total: 3,
      open: 3,
      hidden: 1,
      monitored: 1,
      commented: 1,
      blocking: 1,
      suppressed: 0,
      held: 0,
    });
  });

  it("readsBaseline: only: new anywhere in the policy", () => {
    expect(readsBaseline({ failOn: "high" })).toBe(false);
    expect(readsBaseline({ failOn: { severity: "high", only: "new" } })).toBe(true);
    expect(readsBaseline({ failOn: "high", policies })).toBe(true);
  });

  it("policyParts: each part with its value and source", () => {
    expect(
      policyParts({
        failOn: { severity: "high", only: "new" },
        policies: policies.slice(0, 2),
        mode: "evaluate",
      }),
    ).toEqual([
      {
        part: "failOn",
        value: "{severity: high, only: new}",
        source: "repository file (.github/diffward.yml)",
      },
      { part: "policies[0]", value: "test/** → monitor", source: "repository file (.github/diffward.yml)" },
      {
        part: "policies[1]",
        value: "src/payments/** → block, failOn medium",
        source: "repository file (.github/diffward.yml)",
      },
      { part: "mode", value: "evaluate", source: "repository file (.github/diffward.yml)" },
    ]);
  });

  it("policyParts with their origin: each key's file, default for a key no file sets, and the values the floor raised", () => {
    const floor = "acme/.github:.github/diffward.yml";
    const parts = policyParts(
      {
        failOn: { severity: "medium", only: "all" },
        policies: [{ paths: ["src/legacy/**"], mode: "block", failOn: { severity: "low", only: "all" } }],
        mode: "enforce",
      },
      {
        sources: {
          failOn: { kind: "repository", file: "acme/app:.github/diffward.yml" },
          policies: { kind: "organization", file: floor },
        },
        raised: [
          { key: "failOn.severity", from: "critical", to: "medium", source: floor },
          { key: "failOn.only", from: "new", to: "all", source: floor },
          { key: "policies[0].failOn.only", from: "new", to: "all", source: floor },
          { key: "forks", from: "scan", to: "approve", source: floor },
        ],
      },
    );
    expect(parts).toEqual([
      {
        part: "failOn",
        value: "medium",
        source: `organization floor (${floor}): severity raised from critical, only raised from new (repository file (.github/diffward.yml))`,
      },
      {
        part: "policies[0]",
        value: "src/legacy/** → block, failOn low",
        source: `organization floor (${floor}): only raised from new (organization file (${floor}))`,
      },
      { part: "mode", value: "enforce", source: "default" },
      { part: "forks", value: "approve", source: `organization floor (${floor}): raised from scan` },
    ]);
  });
});

describe("applyPolicy properties", () => {
  const dirs = ["src", "src/payments", "test", "docs", "vendor"] as const;
  const mode = fc.constantFrom("block", "comment", "monitor", "off" as const);
  const pathRule = fc.record({
    paths: fc.subarray(
      dirs.map((d) => `${d}/**`),
      { minLength: 1 },
    ),
    mode,
    failOn: fc.option(fc.constantFrom("critical", "high", "medium", "low", "info", "none" as const), {
      nil: undefined,
    }),
  });
  const rules = fc
    .array(pathRule, { maxLength: 5 })
    .map((rs) =>
      rs.map((r): PathPolicy =>
        r.failOn === undefined
          ? { paths: r.paths, mode: r.mode }
          : { paths: r.paths, mode: r.mode, failOn: r.failOn },
      ),
    );
  const aFinding = fc.record({
    dir: fc.constantFrom(...dirs),
    severity: fc.constantFrom(...SEVERITIES),
    resolutionStatus: fc.constantFrom("NOT_STARTED", "WONT_FIX"),
  });

  it("the first rule whose paths match decides, whatever follows", () => {
    fc.assert(
      fc.property(rules, aFinding, (ps, a) => {
        const f = finding({
          location: `${a.dir}/x.ts:1`,
          severity: a.severity,
          resolutionStatus: a.resolutionStatus,
        });
        const first = ps.findIndex((p) => p.paths.some((g) => `${a.dir}/x.ts`.startsWith(g.slice(0, -2))));
        const s = applyPolicy(f, policyRule({ failOn: "high", policies: ps }));
        expect(s.ruleIndex).toBe(first < 0 ? undefined : first);
        expect(s.mode).toBe(first < 0 ? "block" : ps[first]!.mode);
        // appending rules never changes a finding a rule already matched
        const more = applyPolicy(
          f,
          policyRule({ failOn: "high", policies: [...ps, { paths: ["**"], mode: "off" }] }),
        );
        if (first >= 0) expect(more).toEqual(s);
      }),
      propertyOptions(300),
    );
  });

  it("off never counts, and only block can fail the check", () => {
    fc.assert(
      fc.property(rules, fc.array(aFinding, { maxLength: 8 }), fc.boolean(), (ps, as, evaluate) => {
        const fs = as.map((a, i) =>
          finding({
            id: `f${i}`,
            location: `${a.dir}/x.ts:1`,
            severity: a.severity,
            resolutionStatus: a.resolutionStatus,
          }),
        );
        const rule = policyRule({ failOn: "info", policies: ps, mode: evaluate ? "evaluate" : "enforce" });
        const v = decideConclusion(fs, rule);
        const standings = fs.map((f) => applyPolicy(f, rule));
        const off = standings.filter((s) => s.mode === "off").length;
        expect(v.hidden).toBe(off);
        expect(v.total + v.hidden).toBe(fs.length);
        // the verdict is the same without the hidden findings
        const shown = fs.filter((_, i) => standings[i]!.mode !== "off");
        expect({ ...decideConclusion(shown, rule), hidden: off }).toEqual(v);
        for (const s of standings) if (s.outcome === "blocking") expect(s.mode).toBe("block");
        if (evaluate) expect(v.conclusion).not.toBe("failure");
      }),
      propertyOptions(300),
    );
  });
});
