/**
 * `enforce`: the organization floor. Read only from the organization's `.github` repository's
 * `.github/diffward.yml`, it applies to every repository of the organization, also those with their own
 * file and no `_extends`; a repository may be stricter, never looser (./floor.ts decides "stricter").
 * Every value is optional: a key left out sets no floor.
 */
import { z } from "zod";
import { FailOn } from "./fail-on.js";
import { section } from "./fields.js";
import { MinPermission } from "./permissions.js";
import { SUPPRESSION_MODES, SuppressionMode } from "./policies.js";
import { ApprovalConfig, CommandsConfig, TriageConfig } from "./triage-sections.js";

/**
 * The keys `enforce` may hold, as dotted paths of the repository file. Any other key is a configuration
 * error.
 */
export const ENFORCE_KEYS = [
  "failOn",
  "triage.approval",
  "triage.maxAcceptanceDays",
  "triage.requireExpiry",
  "commands.minPermission",
  "forks",
  "suppressions",
] as const;
export type EnforceKey = (typeof ENFORCE_KEYS)[number];

/**
 * `enforce.failOn`: a threshold alone (`high`) or `{severity, only}`. Unlike the repository's own `failOn`,
 * a part left out sets no floor: `failOn: high` raises the threshold and leaves the repository's `only`.
 */
export const EnforceFailOn = z.union([
  FailOn,
  section("The least strict threshold and findings a repository may set; a part left out sets no floor.", {
    severity: FailOn.optional().describe(
      "Least strict threshold: a repository's `failOn.severity` is raised to it.",
    ),
    only: z
      .enum(["all", "new"])
      .optional()
      .describe(
        "`all` makes every repository count every open finding; `new` sets no floor (`all` is stricter).",
      ),
  }),
]);
export type EnforceFailOn = z.infer<typeof EnforceFailOn>;

export const Enforce = section(
  "The organization floor: read only from the organization's `.github` repository's file, it applies to every repository of the organization (also those with their own file and no `_extends`); a repository may be stricter, never looser. Each value raised is named in the check run's summary.",
  {
    failOn: EnforceFailOn.optional().describe(
      "Least strict `failOn`: a lower severity is stricter (`none` least, `info` most), `only: all` is stricter than `only: new`.",
    ),
    triage: section("Triage floors.", {
      approval: ApprovalConfig.optional().describe(
        "Two-person dismissals required in every repository: a repository's `minSeverity` is lowered to this one at most, its `approvers` raised to this role at least, and `codeowners: true` makes code owners approve in every repository.",
      ),
      maxAcceptanceDays: TriageConfig.shape.maxAcceptanceDays
        .unwrap()
        .optional()
        .describe(
          "Longest acceptance a repository may allow, in days; a repository's larger value is lowered to it.",
        ),
      requireExpiry: TriageConfig.shape.requireExpiry
        .unwrap()
        .optional()
        .describe(
          "Statuses whose acceptance must carry an expiry in every repository, added to the repository's own.",
        ),
    }).optional(),
    commands: section("Command floors.", {
      minPermission: MinPermission.optional().describe(
        `Least role every repository requires for slash commands; a repository's lower \`commands.minPermission\` is raised to it (${CommandsConfig.shape.minPermission.unwrap().options.join(" < ")}).`,
      ),
    }).optional(),
    forks: z
      .enum(["scan", "approve", "skip"])
      .optional()
      .describe("Least strict handling of fork pull requests: `scan` < `approve` < `skip`."),
    suppressions: SuppressionMode.optional().describe(
      `Least strict handling of inline \`diffward-ignore\` suppressions: ${SUPPRESSION_MODES.map((m) => `\`${m}\``).join(" < ")}.`,
    ),
  },
);
export type Enforce = z.infer<typeof Enforce>;
