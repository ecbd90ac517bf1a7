/**
 * Where the configuration's policy keys came from. `.github/diffward.yml` is read the way Probot's
 * `context.config` reads it (@probot/octokit-plugin-config): the repository's own file, else the
 * organization's `.github` repository's, each following `_extends`; the files merge key by key at the top
 * level, the first file holding a key giving it. The check run's summary names each part's file.
 */
import { z } from "zod";

/** A file a top-level key came from: its kind and name (`owner/repo:.github/diffward.yml`). */
export const ConfigSource = z.object({
  /**
   * `repository`: the repository's own file; `organization`: the owner's `.github` repository's file (a
   * fallback or an `_extends`); `extended`: any other file named by `_extends`
   */
  kind: z.enum(["repository", "organization", "extended"]),
  file: z.string(),
});
export type ConfigSource = z.infer<typeof ConfigSource>;

/** The top-level keys of the policy whose file the summary names. */
export const POLICY_KEYS = ["failOn", "policies", "mode"] as const;

/** The file each policy key came from; a key no file holds is absent (its default applies). */
export const PolicySources = z.object({
  failOn: ConfigSource.optional(),
  policies: ConfigSource.optional(),
  mode: ConfigSource.optional(),
});
export type PolicySources = z.infer<typeof PolicySources>;

/**
 * The file each policy key came from, given the files in the order they were read (the first holding a key
 * gives it, as the merge does).
 */
export function policySourcesOf(files: readonly { source: ConfigSource; config: unknown }[]): PolicySources {
  const sources: PolicySources = {};
  for (const key of POLICY_KEYS) {
    const from = files.find((f) => typeof f.config === "object" && f.config !== null && key in f.config);
    if (from) sources[key] = from.source;
  }
  return sources;
}
