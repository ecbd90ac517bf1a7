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

/**
 * Tells, for many repositories of one owner, whether `.github/diffward.yml` applies, reading the owner's
 * `.github` repository once: a repository without its own file inherits the owner's (the fallback
 * {@link loadRepoConfig} follows, @probot/octokit-plugin-config `getConfigFiles`), so when the owner has none,
 * one read of the repository's own file settles it; when the owner has one (or it cannot be read), every
 * repository has a config as far as this probe goes and {@link loadRepoConfig} reads it in full.
 */
export class OwnerConfigProbe {
  #ownerFile: Promise<boolean> | undefined;

  constructor(
    private readonly octokit: InstallationOctokit,
    private readonly owner: string,
  ) {}

  /**
   * Whether `.github/diffward.yml` applies to `repo` (its own file, or the owner's `.github` repository's).
   * One GitHub request per repository, plus one for the owner's `.github` repository the first time.
   * A file that exists but cannot be read (a directory, a 5xx after Octokit's retries) counts as present.
   * @throws GitHub errors other than 404 on the repository's own file, as they come.
   */
  async applies(repo: string): Promise<boolean> {
    if (await this.#exists(repo)) return true;
    if (repo === ".github") return false;
    this.#ownerFile ??= this.#exists(".github").catch(() => true);
    return this.#ownerFile;
  }

  async #exists(repo: string): Promise<boolean> {
    try {
      await this.octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
        owner: this.owner,
        repo,
        path: CONFIG_PATH,
        mediaType: { format: "raw" },
      });
      return true;
    } catch (error) {
      if ((error as { status?: number }).status === 404) return false;
      throw error;
    }
  }
}
