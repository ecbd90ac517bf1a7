/**
 * The whole `.github/diffward.yml`: its top-level fields and its sections (each in its own module here),
 * one zod schema that carries the types, the defaults and the descriptions.
 */
import { z } from "zod";
import { BaselineConfig } from "./baseline-section.js";
import { FailOnSetting } from "./fail-on.js";
import { CreditBudget, ServiceRef, section } from "./fields.js";
import { CodeScanningConfig, CommentsConfig } from "./report-sections.js";
import { AuthorsConfig, CreditCapConfig, GuidanceConfig, PathsConfig } from "./scan-sections.js";
import { CommandsConfig, TriageConfig } from "./triage-sections.js";
import { Enforce } from "./enforce.js";
import { EvaluationMode, Policies, Suppressions } from "./policies.js";

/**
 * The whole `.github/diffward.yml`. Strict at every level: an unknown key is an error naming it, so a
 * typo never passes silently.
 */
export const RepoConfig = section("diffward configuration (.github/diffward.yml).", {
  // spec §Scans, `POST /projects/{projectId}/scans`: `repositoryId`
  repositoryId: ServiceRef.describe(
    "The scanning service's id of this repository (the `repositoryId` of scan launches). Required.",
  ),
  preset: ServiceRef.optional().describe(
    "Scan preset ref used for pull request scans; a diff preset. Defaults to the app's SCANNER_DIFF_PRESET.",
  ),
  creditBudget: CreditBudget.optional().describe(
    "Most credits one scan may spend. When omitted the service picks its recommended budget.",
  ),
  auditAreas: z
    .array(ServiceRef)
    .max(100)
    .optional()
    .describe("Audit area keys to scope scans to; omitted or empty scans the whole change."),
  failOn: FailOnSetting.default("high").describe(
    "Least severe open finding that makes the check run fail (`none` never fails it): a severity such as `high`, or `{severity: high, only: new}` so that only findings not already open on the base branch's last completed baseline count (pre-existing ones are listed but do not block; without a baseline every finding counts).",
  ),
  policies: Policies,
  mode: EvaluationMode,
  suppressions: Suppressions,
  drafts: z.enum(["skip", "scan"]).default("skip").describe("Whether draft pull requests are scanned."),
  forks: z
    .enum(["scan", "approve", "skip"])
    .default("approve")
    .describe(
      'Pull requests from forks whose author is below `commands.minPermission`: `scan` at once, `approve` waits (check run `action_required`) until a permitted user clicks "Scan anyway", `skip` never scans them.',
    ),
  onServiceOutage: z
    .enum(["failure", "neutral"])
    .default("failure")
    .describe(
      "How the check run concludes when the scanning service stayed unavailable longer than the app waits (DIFFWARD_SERVICE_OUTAGE_MAX_WAIT, 60 minutes by default): `failure` (with the Re-run button) or `neutral`. Until then the check stays in progress and diffward retries on its own.",
    ),
  debounceSeconds: z
    .int()
    .min(0)
    .max(600)
    .default(10)
    .describe(
      "Seconds to wait after a push before launching a scan (0 to 600), so a burst of pushes costs one scan.",
    ),
  // no schema default: it depends on the repository's visibility (effectiveDisclosure)
  disclosure: z
    .enum(["full", "summary"])
    .optional()
    .describe(
      "How much finding detail is posted on GitHub: `full` or `summary`. Default: `summary` for public repositories, `full` for private ones.",
    ),
  comments: CommentsConfig.prefault({}),
  commands: CommandsConfig.prefault({}),
  triage: TriageConfig.prefault({}),
  guidance: GuidanceConfig.prefault({}),
  paths: PathsConfig.prefault({}),
  authors: AuthorsConfig.prefault({}),
  creditCap: CreditCapConfig.prefault({}),
  codeScanning: CodeScanningConfig.prefault({}),
  baseline: BaselineConfig.prefault({}),
  lowBalanceThreshold: z
    .int()
    .min(0)
    .optional()
    .describe("Warn in the check run when the organization's available credits fall below this number."),
  // GitHub's `merge_group` event, action `checks_requested`
  mergeQueue: z
    .enum(["reuse", "scan", "skip"])
    .default("reuse")
    .describe(
      "The `diffward` check on merge-queue groups: `reuse` concludes with the pull request's completed report when its current head was scanned (no new scan), else scans the group; `scan` always runs one diff scan of the group against its base; `skip` concludes `neutral` at once.",
    ),
  scanTimeoutMinutes: z
    .int()
    .min(1)
    .max(1440)
    .default(120)
    .describe("Minutes after which an unfinished scan is reported as timed out (1 to 1440)."),
  // read from the organization's `.github` repository only (src/runtime/config-loader.ts)
  enforce: Enforce.optional(),
});
export type RepoConfig = z.infer<typeof RepoConfig>;
/** The config as written, before defaults (what the JSON Schema describes). */
export type RepoConfigInput = z.input<typeof RepoConfig>;
