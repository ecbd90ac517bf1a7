/**
 * The organization floor applied to a repository's configuration: each `enforce` value that is stricter
 * than the repository's own replaces it, and is reported as raised. "Stricter" per key:
 * - `failOn.severity`: a lower threshold (`none` < `critical` < `high` < `medium` < `low` < `info`);
 *   `failOn.only`: `all` is stricter than `new`; the same for each path rule's own `policies[i].failOn`;
 * - `triage.approval`: present is stricter than absent; `minSeverity` lower, `approvers` a higher role,
 *   `codeowners: true` over `false` (`notify` is the repository's own when it sets `triage.approval`);
 * - `triage.maxAcceptanceDays`: fewer days; `triage.requireExpiry`: more statuses (the union);
 * - `commands.minPermission`: a higher role (read < triage < write < maintain < admin);
 * - `forks`: `scan` < `approve` < `skip`;
 * - `suppressions`: `allow` < `approval` < `deny`.
 * Pure: no I/O.
 */
import { z } from "zod";
import type { RepoConfig } from "./schema.js";
import type { ApprovalConfig } from "./triage-sections.js";
import type { Enforce } from "./enforce.js";
import type { FailOn, FailOnRule, FailOnSetting } from "./fail-on.js";
import type { SeverityLevel } from "./fields.js";
import type { MinPermission } from "./permissions.js";
import { SUPPRESSION_MODES, type SuppressionMode } from "./policies.js";

/** One value the floor raised: `key` a dotted path of the file, `from`/`to` as YAML-ish text. */
export const RaisedValue = z.object({
  key: z.string(),
  from: z.string(),
  to: z.string(),
  /** the file the floor came from, `owner/.github:.github/diffward.yml` */
  source: z.string(),
});
export type RaisedValue = z.infer<typeof RaisedValue>;

const FAIL_ON_ORDER: readonly FailOn[] = ["none", "critical", "high", "medium", "low", "info"];
const ROLE_ORDER: readonly MinPermission[] = ["read", "triage", "write", "maintain", "admin"];
const FORKS_ORDER: readonly RepoConfig["forks"][] = ["scan", "approve", "skip"];
const SUPPRESSIONS_ORDER: readonly SuppressionMode[] = SUPPRESSION_MODES;

/** The stricter of two values on a ladder ordered from least to most strict. */
function stricter<T>(order: readonly T[], a: T, b: T): T {
  return order.indexOf(b) > order.indexOf(a) ? b : a;
}

type Config = Omit<RepoConfig, "enforce">;
type ApprovalCfg = ApprovalConfig | undefined;

/** One enforced key: how it is read from the config, merged with the floor, written back and shown. */
interface FloorRule<V> {
  key: string;
  read(config: Config): V;
  floor(enforce: Enforce): V | undefined;
  merge(own: V, floor: V): V;
  write(config: Config, value: V): Config;
  show(value: V): string;
}

const rule = <V>(r: FloorRule<V>): FloorRule<unknown> => r as FloorRule<unknown>;

function partsOf(failOn: FailOnSetting): { severity: FailOn; only: "all" | "new" } {
  return typeof failOn === "string" ? { severity: failOn, only: "all" } : failOn;
}

/**
 * The two rules of a `failOn` setting at `key` (the top-level one, or a path rule's own): its severity and its
 * `only`, each raised to the floor's `enforce.failOn` part.
 */
function failOnRules(
  key: string,
  get: (c: Config) => FailOnSetting,
  set: (c: Config, failOn: FailOnRule) => Config,
): FloorRule<unknown>[] {
  return [
    rule<FailOn>({
      key: `${key}.severity`,
      read: (c) => partsOf(get(c)).severity,
      floor: (e) => (typeof e.failOn === "string" ? e.failOn : e.failOn?.severity),
      merge: (own, floor) => stricter(FAIL_ON_ORDER, own, floor),
      write: (c, severity) => set(c, { ...partsOf(get(c)), severity }),
      show: String,
    }),
    rule<"all" | "new">({
      key: `${key}.only`,
      read: (c) => partsOf(get(c)).only,
      floor: (e) => (typeof e.failOn === "object" ? e.failOn.only : undefined),
      merge: (own, floor) => (own === "all" || floor === "all" ? "all" : "new"),
      write: (c, only) => set(c, { ...partsOf(get(c)), only }),
      show: String,
    }),
  ];
}

/**
 * The `failOn` rules of each path rule (`policies[i].failOn`) that has its own threshold: a path rule may not
 * block less than the floor either. A path rule without one follows the top-level `failOn`, floored above.
 */
function policyRules(config: Config): FloorRule<unknown>[] {
  return config.policies.flatMap((p, i) =>
    p.failOn === undefined
      ? []
      : failOnRules(
          `policies[${i}].failOn`,
          (c) => c.policies[i]!.failOn!,
          (c, failOn) => ({ ...c, policies: c.policies.map((q, j) => (j === i ? { ...q, failOn } : q)) }),
        ),
  );
}

/** A top-level key whose values form a ladder, least strict first: raised to the floor's rung. */
function topLevelLadder<K extends "forks" | "suppressions">(
  key: K,
  order: readonly Config[K][],
): FloorRule<unknown> {
  return rule<Config[K]>({
    key,
    read: (c) => c[key],
    floor: (e) => e[key] as Config[K] | undefined,
    merge: (own, floor) => stricter(order, own, floor),
    write: (c, value) => ({ ...c, [key]: value }),
    show: String,
  });
}

function showApproval(a: ApprovalCfg): string {
  if (!a) return "off";
  return `{minSeverity: ${a.minSeverity}, approvers: ${a.approvers}${a.codeowners ? ", codeowners: true" : ""}}`;
}

const RULES: readonly FloorRule<unknown>[] = [
  ...failOnRules(
    "failOn",
    (c) => c.failOn,
    (c, failOn) => ({ ...c, failOn }),
  ),
  rule<ApprovalCfg>({
    key: "triage.approval",
    read: (c) => c.triage.approval,
    floor: (e) => e.triage?.approval,
    merge: (own, floor) =>
      own && floor
        ? {
            minSeverity: stricter<SeverityLevel>(
              ["critical", "high", "medium", "low", "info"],
              own.minSeverity,
              floor.minSeverity,
            ),
            approvers: stricter(ROLE_ORDER, own.approvers, floor.approvers),
            codeowners: own.codeowners || floor.codeowners,
            notify: own.notify,
          }
        : (own ?? floor),
    write: (c, approval) => ({ ...c, triage: { ...c.triage, approval } }),
    show: showApproval,
  }),
  rule<number>({
    key: "triage.maxAcceptanceDays",
    read: (c) => c.triage.maxAcceptanceDays,
    floor: (e) => e.triage?.maxAcceptanceDays,
    merge: (own, floor) => Math.min(own, floor),
    write: (c, maxAcceptanceDays) => ({ ...c, triage: { ...c.triage, maxAcceptanceDays } }),
    show: String,
  }),
  rule<RepoConfig["triage"]["requireExpiry"]>({
    key: "triage.requireExpiry",
    read: (c) => c.triage.requireExpiry,
    floor: (e) => e.triage?.requireExpiry,
    merge: (own, floor) => [...own, ...floor.filter((s) => !own.includes(s))],
    write: (c, requireExpiry) => ({ ...c, triage: { ...c.triage, requireExpiry } }),
    show: (v) => `[${v.join(", ")}]`,
  }),
  rule<MinPermission>({
    key: "commands.minPermission",
    read: (c) => c.commands.minPermission,
    floor: (e) => e.commands?.minPermission,
    merge: (own, floor) => stricter(ROLE_ORDER, own, floor),
    write: (c, minPermission) => ({ ...c, commands: { ...c.commands, minPermission } }),
    show: String,
  }),
  topLevelLadder("forks", FORKS_ORDER),
  topLevelLadder("suppressions", SUPPRESSIONS_ORDER),
];

/**
 * The repository's configuration with the organization floor applied: every enforced value at least as
 * strict as `enforce`'s and as the repository's own, and the list of values the floor changed (in the order
 * of the rules above). A key `enforce` leaves out changes nothing; a repository already as strict keeps its
 * own value and form (`failOn: high` stays a scalar unless a part of it is raised).
 *
 * @param source - the floor's file, named in each {@link RaisedValue}.
 */
export function applyFloor<C extends Config>(
  repoConfig: C,
  enforce: Enforce | undefined,
  source: string,
): { config: C; raised: RaisedValue[] } {
  let config: Config = repoConfig;
  const raised: RaisedValue[] = [];
  for (const r of enforce ? [...RULES, ...policyRules(repoConfig)] : []) {
    const floor = r.floor(enforce!);
    if (floor === undefined) continue;
    const own = r.read(config);
    const merged = r.merge(own, floor);
    const from = r.show(own);
    const to = r.show(merged);
    if (from === to) continue;
    config = r.write(config, merged);
    raised.push({ key: r.key, from, to, source });
  }
  return { config: config as C, raised };
}
