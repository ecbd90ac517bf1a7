import type { RepoConfig } from "../config/repo-config.js";
import { parseRepoConfig } from "../config/repo-config.js";
import type { InstallationOctokit } from "../github/types.js";

/** Path of diffward's repository configuration. */
export const CONFIG_PATH = ".github/diffward.yml";

/** The outcome of reading `.github/diffward.yml`. */
export type LoadedConfig =
  | { kind: "absent" }
  | { kind: "invalid"; problems: string[]; files: string[] }
  | { kind: "ok"; config: RepoConfig; files: string[] };

/**
 * Reads `.github/diffward.yml` the way Probot's `context.config` does (`octokit.config.get`): from the
 * repository's default branch (never the pull request's head), falling back to the organization's
 * `.github` repository, following `_extends`. Source: @probot/octokit-plugin-config.
 * A YAML that does not parse, or fails the schema, is `invalid` with the exact problems.
 */
export async function loadRepoConfig(
  octokit: InstallationOctokit,
  owner: string,
  repo: string,
): Promise<LoadedConfig> {
  let result: Awaited<ReturnType<InstallationOctokit["config"]["get"]>>;
  try {
    result = await octokit.config.get({ owner, repo, path: CONFIG_PATH });
  } catch (error) {
    const message = (error as Error).message.replace(/^\[@probot\/octokit-plugin-config\]\s*/, "");
    return { kind: "invalid", problems: [message], files: [] };
  }
  const files = result.files.filter((f) => f.config !== null).map((f) => `${f.owner}/${f.repo}:${f.path}`);
  if (files.length === 0) return { kind: "absent" };
  const { _extends: _ignored, ...raw } = result.config as Record<string, unknown>;
  const parsed = parseRepoConfig(raw);
  return parsed.ok
    ? { kind: "ok", config: parsed.config, files }
    : { kind: "invalid", problems: parsed.problems, files };
}
