import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Enforce, RepoConfig, applyFloor } from "../../src/config/repo-config.js";
import { propertyOptions } from "../support/property.js";

const SOURCE = "acme/.github:.github/diffward.yml";
const SHOWN_ON = "{minSeverity: high, approvers: maintain, codeowners: true}";
const repo = (fields: Record<string, unknown>) => RepoConfig.parse({ repositoryId: "repo_1", ...fields });

describe("applyFloor", () => {
  it.each([
    {
      name: "a looser failOn threshold is raised, its only kept",
      own: { failOn: { severity: "critical", only: "new" } },
      enforce: { failOn: "medium" },
      raised: [{ key: "failOn.severity", from: "critical", to: "medium" }],
      check: (c: RepoConfig) => expect(c.failOn).toEqual({ severity: "medium", only: "new" }),
    },
    {
      name: "failOn none is the loosest threshold",
      own: { failOn: "none" },
      enforce: { failOn: "critical" },
      raised: [{ key: "failOn.severity", from: "none", to: "critical" }],
      check: (c: RepoConfig) => expect(c.failOn).toEqual({ severity: "critical", only: "all" }),
    },
    {
      name: "a stricter repository keeps its own failOn, in its own form",
      own: { failOn: "low" },
      enforce: { failOn: { severity: "high", only: "all" } },
      raised: [],
      check: (c: RepoConfig) => expect(c.failOn).toBe("low"),
    },
    {
      name: "only: all is stricter than only: new",
      own: { failOn: { severity: "info", only: "new" } },
      enforce: { failOn: { only: "all" } },
      raised: [{ key: "failOn.only", from: "new", to: "all" }],
      check: (c: RepoConfig) => expect(c.failOn).toEqual({ severity: "info", only: "all" }),
    },
    {
      name: "approval off in the repository gets the floor's",
      own: {},
      enforce: { triage: { approval: { minSeverity: "medium" } } },
      raised: [{ key: "triage.approval", from: "off", to: "{minSeverity: medium, approvers: maintain}" }],
      check: (c: RepoConfig) =>
        expect(c.triage.approval).toEqual({
          minSeverity: "medium",
          approvers: "maintain",
          codeowners: false,
          notify: false,
        }),
    },
    {
      name: "approval merges part by part: lower minSeverity, higher approvers",
      own: { triage: { approval: { minSeverity: "low", approvers: "write" } } },
      enforce: { triage: { approval: { minSeverity: "critical", approvers: "admin" } } },
      raised: [
        {
          key: "triage.approval",
          from: "{minSeverity: low, approvers: write}",
          to: "{minSeverity: low, approvers: admin}",
        },
      ],
      check: (c: RepoConfig) =>
        expect(c.triage.approval).toMatchObject({
          minSeverity: "low",
          approvers: "admin",
          codeowners: false,
        }),
    },
    {
      name: "codeowners: true in the floor turns it on where the repository leaves it off (false), its notify kept",
      own: { triage: { approval: { approvers: "maintain", codeowners: false, notify: true } } },
      enforce: { triage: { approval: { minSeverity: "critical", codeowners: true } } },
      raised: [{ key: "triage.approval", from: "{minSeverity: high, approvers: maintain}", to: SHOWN_ON }],
      check: (c: RepoConfig) =>
        expect([c.triage.approval?.codeowners, c.triage.approval?.notify]).toEqual([true, true]),
    },
    {
      name: "a repository's own codeowners: true stays under a floor that leaves it off",
      own: { triage: { approval: { codeowners: true } } },
      enforce: { triage: { approval: { minSeverity: "critical", codeowners: false } } },
      raised: [],
      check: (c: RepoConfig) => expect(c.triage.approval?.codeowners).toBe(true),
    },
    {
      name: "maxAcceptanceDays is lowered, requireExpiry gains the floor's statuses",
      own: { triage: { maxAcceptanceDays: 400, requireExpiry: ["MITIGATED"] } },
      enforce: { triage: { maxAcceptanceDays: 90, requireExpiry: ["WONT_FIX"] } },
      raised: [
        { key: "triage.maxAcceptanceDays", from: "400", to: "90" },
        { key: "triage.requireExpiry", from: "[MITIGATED]", to: "[MITIGATED, WONT_FIX]" },
      ],
      check: (c: RepoConfig) => expect(c.triage.requireExpiry).toEqual(["MITIGATED", "WONT_FIX"]),
    },
    {
      name: "commands.minPermission and forks are raised on their ladders",
      own: { commands: { minPermission: "triage" }, forks: "scan" },
      enforce: { commands: { minPermission: "maintain" }, forks: "approve" },
      raised: [
        { key: "commands.minPermission", from: "triage", to: "maintain" },
        { key: "forks", from: "scan", to: "approve" },
      ],
      check: (c: RepoConfig) => expect([c.commands.minPermission, c.forks]).toEqual(["maintain", "approve"]),
    },
    {
      name: "forks: skip is stricter than the floor's approve",
      own: { forks: "skip", commands: { minPermission: "admin" } },
      enforce: { forks: "approve", commands: { minPermission: "write" } },
      raised: [],
      check: (c: RepoConfig) => expect([c.commands.minPermission, c.forks]).toEqual(["admin", "skip"]),
    },
    {
      name: "suppressions: allow is raised to the floor's deny; approval to deny",
      own: { suppressions: "allow" },
      enforce: { suppressions: "deny" },
      raised: [{ key: "suppressions", from: "allow", to: "deny" }],
      check: (c: RepoConfig) => expect(c.suppressions).toBe("deny"),
    },
    {
      name: "suppressions: a repository's deny stays under the floor's approval; allow (the default) is raised to it",
      own: { suppressions: "deny" },
      enforce: { suppressions: "approval" },
      raised: [],
      check: (c: RepoConfig) => {
        expect(c.suppressions).toBe("deny");
        const dflt = applyFloor(repo({}), Enforce.parse({ suppressions: "approval" }), SOURCE);
        expect(dflt.config.suppressions).toBe("approval");
        expect(dflt.raised).toEqual([{ key: "suppressions", from: "allow", to: "approval", source: SOURCE }]);
      },
    },
    {
      name: "a path rule's own failOn is raised too; a rule without one follows the top level",
      own: {
        failOn: "high",
        policies: [
          { paths: ["test/**"], mode: "monitor" },
          { paths: ["vendor/**"], failOn: { severity: "none", only: "new" } },
        ],
      },
      enforce: { failOn: "high" },
      raised: [{ key: "policies[1].failOn.severity", from: "none", to: "high" }],
      check: (c: RepoConfig) =>
        expect(c.policies.map((p) => p.failOn)).toEqual([undefined, { severity: "high", only: "new" }]),
    },
  ])("$name", ({ own, enforce, raised, check }) => {
    const out = applyFloor(repo(own), Enforce.parse(enforce), SOURCE);
    expect(out.raised).toEqual(raised.map((r) => ({ ...r, source: SOURCE })));
    check(out.config);
  });

  it("without a floor changes nothing", () => {
    const config = repo({ failOn: "none" });
    expect(applyFloor(config, undefined, SOURCE)).toEqual({ config, raised: [] });
  });
});

// Ladders written out again here, least strict first, so the property does not trust the code's own.
const FAIL_ON = ["none", "critical", "high", "medium", "low", "info"];
const SEVERITY = ["critical", "high", "medium", "low", "info"];
const ROLE = ["read", "triage", "write", "maintain", "admin"];
const FORKS = ["scan", "approve", "skip"];
const SUPPRESSIONS = ["allow", "approval", "deny"];
const STATUSES = ["WONT_FIX", "MITIGATED"] as const;

const failOnParts = (f: RepoConfig["failOn"]) => (typeof f === "string" ? { severity: f, only: "all" } : f);

/** True when `a` is at least as strict as `b` on every enforced key. */
function atLeastAsStrict(a: RepoConfig, b: RepoConfig): boolean {
  const [fa, fb] = [failOnParts(a.failOn), failOnParts(b.failOn)];
  const [pa, pb] = [a.triage.approval, b.triage.approval];
  return (
    FAIL_ON.indexOf(fa.severity) >= FAIL_ON.indexOf(fb.severity) &&
    (fa.only === "all" || fb.only === "new") &&
    (!pb ||
      (pa !== undefined &&
        SEVERITY.indexOf(pa.minSeverity) >= SEVERITY.indexOf(pb.minSeverity) &&
        ROLE.indexOf(pa.approvers) >= ROLE.indexOf(pb.approvers) &&
        (pa.codeowners || !pb.codeowners))) &&
    a.triage.maxAcceptanceDays <= b.triage.maxAcceptanceDays &&
    b.triage.requireExpiry.every((s) => a.triage.requireExpiry.includes(s)) &&
    ROLE.indexOf(a.commands.minPermission) >= ROLE.indexOf(b.commands.minPermission) &&
    FORKS.indexOf(a.forks) >= FORKS.indexOf(b.forks) &&
    SUPPRESSIONS.indexOf(a.suppressions) >= SUPPRESSIONS.indexOf(b.suppressions) &&
    a.policies.every((p, i) => {
      const q = b.policies[i]?.failOn ?? b.failOn;
      return (
        p.failOn === undefined ||
        FAIL_ON.indexOf(failOnParts(p.failOn).severity) >= FAIL_ON.indexOf(failOnParts(q).severity)
      );
    })
  );
}

const severity = fc.constantFrom(...FAIL_ON);
const approval = fc.record(
  {
    minSeverity: fc.constantFrom(...SEVERITY),
    approvers: fc.constantFrom(...ROLE),
    codeowners: fc.boolean(),
    notify: fc.boolean(),
  },
  { requiredKeys: [] },
);
const days = fc.integer({ min: 1, max: 3650 });
const statuses = fc.subarray([...STATUSES]);
const repoInput = fc.record(
  {
    failOn: fc.oneof(
      severity,
      fc.record({ severity, only: fc.constantFrom("all", "new") }, { requiredKeys: [] }),
    ),
    triage: fc.record({ approval, maxAcceptanceDays: days, requireExpiry: statuses }, { requiredKeys: [] }),
    commands: fc.record({ minPermission: fc.constantFrom(...ROLE) }),
    forks: fc.constantFrom(...FORKS),
    suppressions: fc.constantFrom(...SUPPRESSIONS),
    policies: fc.array(
      fc.record({ paths: fc.constant(["src/**"]), failOn: severity }, { requiredKeys: ["paths"] }),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: [] },
);
const enforceInput = fc.record(
  {
    failOn: fc.oneof(
      severity,
      fc.record({ severity, only: fc.constantFrom("all", "new") }, { requiredKeys: [] }),
    ),
    triage: fc.record({ approval, maxAcceptanceDays: days, requireExpiry: statuses }, { requiredKeys: [] }),
    commands: fc.record({ minPermission: fc.constantFrom(...ROLE) }, { requiredKeys: [] }),
    forks: fc.constantFrom(...FORKS),
    suppressions: fc.constantFrom(...SUPPRESSIONS),
  },
  { requiredKeys: [] },
);

/** The floor as a configuration: the repository's, with every key the floor sets taken from the floor. */
function floorAsConfig(base: RepoConfig, e: Enforce): RepoConfig {
  const f = typeof e.failOn === "string" ? { severity: e.failOn } : (e.failOn ?? {});
  return {
    ...base,
    // a part the floor leaves out is the loosest value of its ladder
    failOn: { severity: f.severity ?? "none", only: f.only ?? "new" },
    triage: {
      approval: e.triage?.approval,
      maxAcceptanceDays: e.triage?.maxAcceptanceDays ?? 3650,
      requireExpiry: e.triage?.requireExpiry ?? [],
    },
    commands: { ...base.commands, minPermission: e.commands?.minPermission ?? "read" },
    forks: e.forks ?? "scan",
    suppressions: e.suppressions ?? "allow",
    // each path rule measured against the floor's threshold
    policies: base.policies.map(({ failOn: _ignored, ...p }) => p),
  };
}

describe("applyFloor, for any repository file and floor", () => {
  it("is never looser than the floor nor than the repository, and raises exactly what changed", () => {
    fc.assert(
      fc.property(repoInput, enforceInput, (own, floor) => {
        const config = repo(own);
        const enforce = Enforce.parse(floor);
        const out = applyFloor(config, enforce, SOURCE);
        expect(atLeastAsStrict(out.config, config)).toBe(true);
        expect(atLeastAsStrict(out.config, floorAsConfig(config, enforce))).toBe(true);
        // applied twice it raises nothing more
        expect(applyFloor(out.config, enforce, SOURCE).raised).toEqual([]);
        // nothing raised means nothing changed
        if (out.raised.length === 0) expect(out.config).toEqual(config);
        for (const r of out.raised) expect(r.from).not.toBe(r.to);
      }),
      propertyOptions(300),
    );
  });
});
