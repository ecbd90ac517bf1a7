import type { ConfigSource, Enforce, PolicySources, RaisedValue, RepoConfig } from "../config/repo-config.js";
import {
  applyFloor,
  parseEnforceYaml,
  parseMergedConfig,
  parseRepoConfig,
  policySourcesOf,
} from "../config/repo-config.js";
import { parse as parseYaml } from "yaml";
import type { InstallationOctokit } from "../github/octokit-types.js";

/** Path of diffward's repository configuration. */
export const CONFIG_PATH = ".github/diffward.yml";

/** The outcome of reading `.github/diffward.yml`. */
export type LoadedConfig =
  | { kind: "absent" }
  | { kind: "invalid"; problems: string[]; files: string[] }
  /**
   * `raised`: the values the organization floor raised ({@link applyFloor}); absent or empty when none.
   * `sources`: the file each policy key came from.
   */
  | { kind: "ok"; config: RepoConfig; files: string[]; raised?: RaisedValue[]; sources: PolicySources };

/**
 * The organization floor: the `enforce:` section of the owner's `.github` repository's
 * `.github/diffward.yml` on its default branch. `source` names that file (`owner/.github:.github/diffward.yml`).
 */
export type OrgFloor =
  | { kind: "none" }
  | { kind: "ok"; enforce: Enforce; source: string }
  | { kind: "invalid"; problems: string[]; source: string };

/**
 * Reads the organization floor ({@link OrgFloor}): one request for the file's text. No `.github` repository,
 * no file there, a directory at that path, or a file without `enforce` is no floor; an `enforce` that fails
 * its schema ({@link parseEnforceYaml}) or a file that is not YAML is `invalid` with the problems and lines.
 * @throws GitHub errors other than 404, as they come.
 */
export async function readOrgFloor(octokit: InstallationOctokit, owner: string): Promise<OrgFloor> {
  const text = await readConfigText(octokit, owner, ".github");
  if (text === undefined || text === "not-a-file") return { kind: "none" };
  const source = `${owner}/.github:${CONFIG_PATH}`;
  const parsed = parseEnforceYaml(text);
  if (!parsed.ok) return { kind: "invalid", problems: parsed.problems, source };
  return parsed.enforce ? { kind: "ok", enforce: parsed.enforce, source } : { kind: "none" };
}

/**
 * The file's text on the default branch (`path`: `.github/diffward.yml` unless told); `undefined` on 404;
 * `not-a-file` when GitHub answers JSON.
 */
async function readConfigText(
  octokit: InstallationOctokit,
  owner: string,
  repo: string,
  path: string = CONFIG_PATH,
): Promise<string | "not-a-file" | undefined> {
  try {
    const res = await octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
      owner,
      repo,
      path,
      mediaType: { format: "raw" },
    });
    return typeof res.data === "string" ? res.data : "not-a-file";
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  }
}

/** One file the configuration was read from, with its own content (`null`: not there). */
interface ConfigFile {
  /** its name and kind; the organization's file is the only one `enforce` is read from */
  source: ConfigSource;
  config: unknown;
  /** its text, read to place problems at their lines; each file has it or none does */
  text?: string;
}

/**
 * The configuration of one repository from its merged content (`_extends` followed) and the files it came
 * from, with the organization floor applied ({@link applyFloor}):
 * - an invalid floor makes the configuration invalid, its problems prefixed with the floor's file, so nothing
 *   is launched under a floor nobody can read;
 * - `enforce` in any file but the organization's is a problem (it would otherwise be ignored);
 * - content with nothing but `enforce` (the organization's file read as a fallback) onboards nobody: absent.
 */
export function resolveConfig(
  owner: string,
  merged: Record<string, unknown>,
  files: ConfigFile[],
  floor: OrgFloor,
): LoadedConfig {
  const names = files.map((f) => f.source.file);
  const misplaced = files
    .filter(
      (f) =>
        f.source.kind !== "organization" &&
        typeof f.config === "object" &&
        f.config !== null &&
        "enforce" in f.config,
    )
    .map(
      (f) =>
        `${f.source.file}: enforce: is read only from the organization's file ${owner}/.github:${CONFIG_PATH}; move it there or remove it`,
    );
  const floorProblems = floor.kind === "invalid" ? floor.problems.map((p) => `${floor.source}: ${p}`) : [];
  const { enforce } = merged;
  const raw = withoutSharedKeys(merged);
  if (Object.keys(raw).length === 0 && enforce !== undefined && misplaced.length === 0)
    return { kind: "absent" };
  const texts = files.every((f) => f.text !== undefined)
    ? files.map((f) => ({ file: f.source.file, text: f.text! }))
    : [];
  const parsed = parseMergedConfig(raw, texts);
  const problems = [...floorProblems, ...misplaced, ...(parsed.ok ? [] : parsed.problems)];
  const allFiles = floor.kind === "none" || names.includes(floor.source) ? names : [...names, floor.source];
  if (problems.length > 0 || !parsed.ok) return { kind: "invalid", problems, files: allFiles };
  const sources = policySourcesOf(files);
  if (floor.kind !== "ok") return { kind: "ok", config: parsed.config, files: names, sources };
  const { config, raised } = applyFloor(parsed.config, floor.enforce, floor.source);
  return { kind: "ok", config, files: allFiles, raised, sources };
}

/** The merged content without the keys the loader reads itself: `_extends` and `enforce`. */
function withoutSharedKeys(merged: unknown): Record<string, unknown> {
  const { _extends: _e, enforce: _f, ...raw } = (merged ?? {}) as Record<string, unknown>;
  return raw;
}

/**
 * The kind of a file the configuration was read from: the owner's `.github` repository's
 * `.github/diffward.yml` is the organization's file (also when it is the repository asked for), the asked
 * repository's own file is the repository's, any other file named by `_extends` is an extended one.
 */
function fileKind(
  f: { owner: string; repo: string; path: string },
  owner: string,
  repo: string,
): ConfigSource["kind"] {
  const ownerFile = f.owner.toLowerCase() === owner.toLowerCase() && f.path === CONFIG_PATH;
  if (ownerFile && f.repo === ".github") return "organization";
  return ownerFile && f.repo === repo ? "repository" : "extended";
}

/**
 * Reads `.github/diffward.yml` the way Probot's `context.config` does (`octokit.config.get`): from the
 * repository's default branch (never the pull request's head), falling back to the organization's
 * `.github` repository, following `_extends`. Source: @probot/octokit-plugin-config.
 * A YAML that does not parse, or fails the schema, is `invalid` with the exact problems. The organization
 * floor ({@link readOrgFloor}, one more request; `floor` when the caller read it already) is applied by
 * {@link resolveConfig}, also to a repository with its own file and no `_extends`.
 */
export async function loadRepoConfig(
  octokit: InstallationOctokit,
  owner: string,
  repo: string,
  floor?: Promise<OrgFloor>,
): Promise<LoadedConfig> {
  let result: Awaited<ReturnType<InstallationOctokit["config"]["get"]>>;
  try {
    result = await octokit.config.get({ owner, repo, path: CONFIG_PATH });
  } catch (error) {
    const message = (error as Error).message.replace(/^\[@probot\/octokit-plugin-config\]\s*/, "");
    return { kind: "invalid", problems: [message], files: [] };
  }
  const read = result.files.filter((f) => f.config !== null);
  if (read.length === 0) return { kind: "absent" };
  const files: ConfigFile[] = read.map((f) => ({
    source: {
      kind: fileKind(f, owner, repo),
      file: `${f.owner}/${f.repo}:${f.path}`,
    },
    config: f.config,
  }));
  // a configuration that fails its schema is read again as text, so each problem names its line (a read
  // that fails leaves the problems without lines, never the configuration unread)
  if (!parseRepoConfig(withoutSharedKeys(result.config)).ok) {
    const texts = await Promise.all(
      read.map((f) => readConfigText(octokit, f.owner, f.repo, f.path).catch(() => undefined)),
    );
    if (texts.every((t) => typeof t === "string" && t !== "not-a-file"))
      files.forEach((f, i) => (f.text = texts[i]!));
  }
  return resolveConfig(
    owner,
    result.config as Record<string, unknown>,
    files,
    await (floor ?? readOrgFloor(octokit, owner)),
  );
}

/**
 * Loads `.github/diffward.yml` for many repositories of one owner with as few requests as
 * {@link loadRepoConfig}'s rule allows: a repository's own file on its default branch, else the owner's
 * `.github` repository's (following `_extends`; @probot/octokit-plugin-config `getConfigFiles`). The owner's
 * file is resolved once and shared by every repository without its own, and a repository's own file is read
 * once, and the organization floor ({@link readOrgFloor}) once per owner: one request per repository, two more
 * per owner. An own file that does not parse, is not a mapping or
 * has `_extends` is handed to {@link loadRepoConfig}, which reads it the plugin's way.
 */
export class OwnerConfigs {
  #ownerConfig: Promise<LoadedConfig> | undefined;
  #floor: Promise<OrgFloor> | undefined;

  constructor(
    private readonly octokit: InstallationOctokit,
    private readonly owner: string,
  ) {}

  /**
   * The repository's config as {@link loadRepoConfig} would load it.
   * @throws GitHub errors other than 404 on the repository's own file, as they come.
   */
  async load(repo: string): Promise<LoadedConfig> {
    return this.loadText(repo, await readConfigText(this.octokit, this.owner, repo));
  }

  /**
   * The repository's config as {@link load} gives it, from the text of its own `.github/diffward.yml` read
   * already (`undefined`: absent; `not-a-file`: the path is not a file).
   * @throws GitHub errors of the reads it still needs (the organization's file, its floor), as they come.
   */
  async loadText(repo: string, own: string | "not-a-file" | undefined): Promise<LoadedConfig> {
    if (own === "not-a-file") return loadRepoConfig(this.octokit, this.owner, repo, this.#orgFloor());
    if (own !== undefined) {
      let raw: unknown;
      try {
        raw = parseYaml(own, { logLevel: "error" }) ?? {};
      } catch {
        return loadRepoConfig(this.octokit, this.owner, repo, this.#orgFloor());
      }
      if (typeof raw !== "object" || Array.isArray(raw) || "_extends" in (raw as object))
        return loadRepoConfig(this.octokit, this.owner, repo, this.#orgFloor());
      const file: ConfigFile = {
        text: own,
        source: {
          kind: fileKind({ owner: this.owner, repo, path: CONFIG_PATH }, this.owner, repo),
          file: `${this.owner}/${repo}:${CONFIG_PATH}`,
        },
        config: raw,
      };
      return resolveConfig(this.owner, raw as Record<string, unknown>, [file], await this.#orgFloor());
    }
    if (repo === ".github") return { kind: "absent" };
    this.#ownerConfig ??= loadRepoConfig(this.octokit, this.owner, ".github", this.#orgFloor());
    return this.#ownerConfig;
  }

  /** The owner's floor ({@link readOrgFloor}), read once for all its repositories. */
  #orgFloor(): Promise<OrgFloor> {
    this.#floor ??= readOrgFloor(this.octokit, this.owner);
    return this.#floor;
  }
}
