/**
 * Reading the CODEOWNERS GitHub uses for a branch: at the commit the branch names now, from the first of
 * GitHub's locations that holds a file, within GitHub's 3 MB limit (GitHub "About code owners",
 * https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners),
 * parsed once per commit and kept in this process (a commit's file never changes).
 */
import type { LoadedCodeowners } from "../../domain/codeowners.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import {
  listCodeownersErrors,
  readFileBytes,
  resolveCommitSha,
  type GitHubCodeownersError,
} from "../../github/repo-files.js";
import { CODEOWNERS_LOCATIONS, CODEOWNERS_MAX_BYTES } from "./locations.js";
import { parseCodeowners } from "./parse-codeowners.js";

/** Where to read: a repository and a ref (a branch such as the pull request's base, a tag or a commit SHA). */
export interface CodeownersRef {
  owner: string;
  repo: string;
  ref: string;
}

/**
 * The parsed CODEOWNERS of recent commits, least recently used first out: at most `maxEntries` commits and
 * about `maxBytes` of file text (a 3 MB file is not kept twice over).
 */
export class CodeownersCache {
  readonly #entries = new Map<string, { loaded: LoadedCodeowners; bytes: number }>();
  #bytes = 0;

  constructor(
    readonly maxEntries = 200,
    readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  get(key: string): LoadedCodeowners | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.loaded;
  }

  set(key: string, loaded: LoadedCodeowners, bytes: number): void {
    this.delete(key);
    this.#entries.set(key, { loaded, bytes });
    this.#bytes += bytes;
    for (const oldest of this.#entries.keys()) {
      if (oldest === key || (this.#entries.size <= this.maxEntries && this.#bytes <= this.maxBytes)) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#bytes -= entry.bytes;
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** The process's cache of parsed files, per repository and commit. */
const processCache = new CodeownersCache();

/** The text of a file's bytes, or why they are no CODEOWNERS text (binary: NUL bytes; not UTF-8). */
function decoded(bytes: Uint8Array): { text: string } | { note: string } {
  if (bytes.includes(0)) return { note: "is a binary file (it holds NUL bytes)" };
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return { note: "is not UTF-8 text" };
  }
}

/** The CODEOWNERS at commit `sha`, read from GitHub, and the bytes read (what the cache counts). */
async function readAt(
  octokit: InstallationOctokit,
  where: CodeownersRef,
  sha: string,
): Promise<{ loaded: LoadedCodeowners; bytes: number }> {
  for (const path of CODEOWNERS_LOCATIONS) {
    const found = await readFileBytes(octokit, where, path, sha, CODEOWNERS_MAX_BYTES);
    if (found === undefined) continue;
    if (found.kind === "too-large") {
      const note = `\`${path}\` is ${found.size} bytes, over GitHub's 3 MB limit for CODEOWNERS, so GitHub ignores it`;
      return { loaded: { file: null, path, tooLarge: true, note }, bytes: 0 };
    }
    const text = decoded(found.bytes);
    if ("note" in text)
      return {
        loaded: { file: null, path, note: `\`${path}\` ${text.note}, so it names no code owners` },
        bytes: 0,
      };
    return { loaded: { file: parseCodeowners(text.text), path }, bytes: found.bytes.length };
  }
  return { loaded: { file: null, path: null }, bytes: 0 };
}

/**
 * The CODEOWNERS GitHub uses at `ref`: the first file found in GitHub's order of locations
 * ({@link CODEOWNERS_LOCATIONS}), parsed ({@link parseCodeowners}). `file` is null, with `path: null`, when no
 * location holds one; null with a `note` when the file found cannot be used: at or over 3 MB (`tooLarge`,
 * never downloaded), binary or not UTF-8. `ref` is read at the commit it names now (GitHub REST "Get a
 * commit"), and the result is kept per repository and commit in `cache` (this process's by default).
 * Never throws for the file's content.
 * @throws Octokit's RequestError when GitHub fails otherwise (5xx, rate limit, no access)
 */
export async function loadCodeowners(
  octokit: InstallationOctokit,
  where: CodeownersRef,
  cache: CodeownersCache = processCache,
): Promise<LoadedCodeowners> {
  const sha = await resolveCommitSha(octokit, where, where.ref);
  if (sha === undefined)
    return {
      file: null,
      path: null,
      note: `\`${where.ref}\` names no commit of ${where.owner}/${where.repo}`,
    };
  const key = `${where.owner}/${where.repo}@${sha}`.toLowerCase();
  const kept = cache.get(key);
  if (kept !== undefined) return kept;
  const { loaded, bytes } = await readAt(octokit, where, sha);
  cache.set(key, loaded, bytes);
  return loaded;
}

/**
 * The syntax errors GitHub finds in the CODEOWNERS at `ref` (GitHub REST "List CODEOWNERS errors",
 * `GET /repos/{owner}/{repo}/codeowners/errors`): the authority on whether GitHub uses the file. Empty when
 * the file is valid or there is none.
 * @throws Octokit's RequestError when GitHub fails (other than 404)
 */
export async function loadCodeownersErrors(
  octokit: InstallationOctokit,
  where: CodeownersRef,
): Promise<GitHubCodeownersError[]> {
  return listCodeownersErrors(octokit, where, where.ref);
}
