/**
 * `.github/diffward.yml`: the per-repository configuration, as the rest of diffward imports it. One zod
 * schema carries the types, the defaults and the descriptions (each field's `.describe()`, its only
 * documentation); the JSON Schema for editors (`schema/diffward.schema.json`) and the README reference
 * table are derived from it. Its pieces live in ./repo-config/: the whole file and its top-level fields
 * (`schema.ts`), one module per group of sections (`fail-on.ts`, `policies.ts`, `scan-sections.ts`,
 * `report-sections.ts`, `triage-sections.ts`, `baseline-section.ts`) on the shared `fields.ts` and
 * `permissions.ts`, the organization floor (`enforce.ts`, applied by `floor.ts`), and the
 * validation of the file's text with line numbers (`validation.ts`, messages in `issue-messages.ts`).
 */
import type { RepoConfig } from "./repo-config/schema.js";

export const REPO_CONFIG_PATH = ".github/diffward.yml";

export { RepoConfig, type RepoConfigInput } from "./repo-config/schema.js";
export { SeverityLevel } from "./repo-config/fields.js";
export {
  MinPermission,
  RepoPermission,
  collaboratorRole,
  permissionAtLeast,
} from "./repo-config/permissions.js";
export { FailOn, FailOnRule, FailOnSetting } from "./repo-config/fail-on.js";
export { AuthorsConfig, CreditCapConfig, GuidanceConfig, PathsConfig } from "./repo-config/scan-sections.js";
export { CodeScanningConfig, CommentsConfig } from "./repo-config/report-sections.js";
export {
  ACCEPTANCE_STATUSES,
  ApprovalConfig,
  CommandsConfig,
  TriageConfig,
  type AcceptanceStatus,
} from "./repo-config/triage-sections.js";
export { BaselineConfig } from "./repo-config/baseline-section.js";
export { ENFORCE_KEYS, Enforce, EnforceFailOn, type EnforceKey } from "./repo-config/enforce.js";
export { RaisedValue, applyFloor } from "./repo-config/floor.js";
export { ConfigSource, PolicySources, policySourcesOf } from "./repo-config/sources.js";
export {
  EvaluationMode,
  PathGlob,
  PathPolicy,
  Policies,
  PolicyMode,
  SUPPRESSION_MODES,
  SuppressionMode,
  Suppressions,
  globProblem,
} from "./repo-config/policies.js";
export {
  MAX_REPO_CONFIG_BYTES,
  checkConfigFileYaml,
  parseEnforceYaml,
  type EnforceResult,
  parseMergedConfig,
  parseRepoConfig,
  parseRepoConfigYaml,
  type ConfigText,
  type RepoConfigResult,
} from "./repo-config/validation.js";
export type { ConfigProblem } from "./repo-config/issue-messages.js";

/**
 * The disclosure level in force: the configured one, else `summary` for a public repository and
 * `full` for a private (or internal) one, so finding detail is never published on a public repository
 * by default.
 */
export function effectiveDisclosure(
  config: Pick<RepoConfig, "disclosure">,
  repo: { private: boolean },
): "full" | "summary" {
  return config.disclosure ?? (repo.private ? "full" : "summary");
}

/** `config` as a launch or poll job carries it: its disclosure made explicit ({@link effectiveDisclosure}). */
export function withEffectiveDisclosure(config: RepoConfig, repo: { private: boolean }): RepoConfig {
  return { ...config, disclosure: effectiveDisclosure(config, repo) };
}

/** The preset in force: the configured one, else the app-wide default (`SCANNER_DIFF_PRESET`). */
export function effectivePreset(config: Pick<RepoConfig, "preset">, appDefault: string): string {
  return config.preset ?? appDefault;
}
