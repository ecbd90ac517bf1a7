import type { RepoConfig } from "../config/repo-config.js";
import { parseRepoConfig } from "../config/repo-config.js";
import { parse as parseYaml } from "yaml";
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
 * Loads `.github/diffward.yml` for many repositories of one owner with as few requests as
 * {@link loadRepoConfig}'s rule allows: a repository's own file on its default branch, else the owner's
 * `.github` repository's (following `_extends`; @probot/octokit-plugin-config `getConfigFiles`). The owner's
 * file is resolved once and shared by every repository without its own, and a repository's own file is read
 * once: one request per repository, one more per owner. An own file that does not parse, is not a mapping or
 * has `_extends` is handed to {@link loadRepoConfig}, which reads it the plugin's way.
 */
export class OwnerConfigs {
  #ownerConfig: Promise<LoadedConfig> | undefined;

  constructor(
    private readonly octokit: InstallationOctokit,
    private readonly owner: string,
  ) {}

  /**
   * The repository's config as {@link loadRepoConfig} would load it.
   * @throws GitHub errors other than 404 on the repository's own file, as they come.
   */
  async load(repo: string): Promise<LoadedConfig> {
    const own = await this.#read(repo);
    if (own === "not-a-file") return loadRepoConfig(this.octokit, this.owner, repo);
    if (own !== undefined) {
      let raw: unknown;
      try {
        raw = parseYaml(own, { logLevel: "error" }) ?? {};
      } catch {
        return loadRepoConfig(this.octokit, this.owner, repo);
      }
      if (typeof raw !== "object" || Array.isArray(raw) || "_extends" in (raw as object))
        return loadRepoConfig(this.octokit, this.owner, repo);
      const parsed = parseRepoConfig(raw);
      const files = [`${this.owner}/${repo}:${CONFIG_PATH}`];
      return parsed.ok
        ? { kind: "ok", config: parsed.config, files }
        : { kind: "invalid", problems: parsed.problems, files };
    }
    if (repo === ".github") return { kind: "absent" };
    this.#ownerConfig ??= loadRepoConfig(this.octokit, this.owner, ".github");
    return this.#ownerConfig;
  }

  /**
   * The file's text on the default branch; `undefined` when GitHub answers 404; `not-a-file` when GitHub
   * answers JSON (a directory or a submodule at that path).
   */
  async #read(repo: string): Promise<string | "not-a-file" | undefined> {
    try {
      const res = await this.octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
        owner: this.owner,
        repo,
        path: CONFIG_PATH,
        mediaType: { format: "raw" },
      });
      return typeof res.data === "string" ? res.data : "not-a-file";
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }
}
