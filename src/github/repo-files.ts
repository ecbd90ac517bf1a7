/**
 * A repository's commit and file bytes at a ref, read with GitHub's size rules (GitHub REST "Get repository
 * content", https://docs.github.com/en/rest/repos/contents#get-repository-content: up to 1 MB the `object`
 * media type carries the content base64-encoded; from 1 to 100 MB it carries `content: ""` with
 * `encoding: "none"`, and only the `raw` media type returns the bytes).
 */
import { z } from "zod";
import { repoParams, unlessStatus, type InstallationOctokit, type RepoRef } from "./octokit-types.js";

/** The fields of GitHub's `content-file` answer this module reads (a directory answers an array or `dir`). */
const ContentObject = z.looseObject({
  type: z.string(),
  size: z.number(),
  encoding: z.string().optional(),
  content: z.string().optional(),
});

/** A file read at a ref: its bytes, or only its size when it is at or over the reader's limit. */
export type FileBytes = { kind: "file"; bytes: Uint8Array } | { kind: "too-large"; size: number };

/**
 * The commit SHA `ref` (a branch, tag or SHA) names now (GitHub REST "Get a commit" with the `sha` media type,
 * https://docs.github.com/en/rest/commits/commits#get-a-commit).
 * @returns the 40-hex SHA, or `undefined` when GitHub answers 404 or 422 (no such ref).
 * @throws Octokit's RequestError for any other failure
 */
export async function resolveCommitSha(
  octokit: InstallationOctokit,
  repo: RepoRef,
  ref: string,
): Promise<string | undefined> {
  try {
    const res = await octokit.request("GET /repos/{owner}/{repo}/commits/{ref}", {
      ...repoParams(repo),
      ref,
      mediaType: { format: "sha" },
    });
    const sha = String(res.data as unknown).trim();
    return /^[0-9a-f]{40}$/.test(sha) ? sha : undefined;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 404 || status === 422) return undefined;
    throw error;
  }
}

/**
 * The bytes of the file `path` at `ref`, or its size alone when it is `maxBytes` or more (never downloaded).
 * @returns `undefined` when there is no file there (404, or a directory, symlink or submodule).
 * @throws Octokit's RequestError for any other failure
 */
export async function readFileBytes(
  octokit: InstallationOctokit,
  repo: RepoRef,
  path: string,
  ref: string,
  maxBytes: number,
): Promise<FileBytes | undefined> {
  const at = { ...repoParams(repo), path, ref };
  const found = await unlessStatus(
    404,
    octokit.request("GET /repos/{owner}/{repo}/contents/{path}", { ...at, mediaType: { format: "object" } }),
  );
  const object = ContentObject.safeParse(found?.data);
  if (!object.success || object.data.type !== "file") return undefined;
  const { size, encoding, content } = object.data;
  if (size >= maxBytes) return { kind: "too-large", size };
  if (encoding === "base64") return { kind: "file", bytes: Buffer.from(content ?? "", "base64") };
  const raw = await octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
    ...at,
    mediaType: { format: "raw" },
    request: { parseSuccessResponseBody: false },
  });
  const bytes = new Uint8Array(await new Response(raw.data as unknown as ReadableStream).arrayBuffer());
  return bytes.length >= maxBytes ? { kind: "too-large", size: bytes.length } : { kind: "file", bytes };
}

/** One entry of GitHub's list of a CODEOWNERS file's errors. */
export interface GitHubCodeownersError {
  /** 1-based */
  line: number;
  /** 1-based */
  column: number;
  /** GitHub's kind, e.g. `Invalid owner`, `Invalid pattern`, `Unknown owner` */
  kind: string;
  /** GitHub's message (several lines: the kind, the line, a caret) */
  message: string;
  /** the file's path, e.g. `.github/CODEOWNERS` */
  path: string;
  suggestion: string | null;
}

/**
 * The errors GitHub finds in the repository's CODEOWNERS at `ref` (GitHub REST "List CODEOWNERS errors",
 * `GET /repos/{owner}/{repo}/codeowners/errors`,
 * https://docs.github.com/en/rest/repos/repos#list-codeowners-errors); empty when there is no CODEOWNERS (404).
 * @throws Octokit's RequestError for any other failure
 */
export async function listCodeownersErrors(
  octokit: InstallationOctokit,
  repo: RepoRef,
  ref: string,
): Promise<GitHubCodeownersError[]> {
  const res = await unlessStatus(404, octokit.rest.repos.codeownersErrors({ ...repoParams(repo), ref }));
  return (res?.data.errors ?? []).map((e) => ({
    line: e.line,
    column: e.column,
    kind: e.kind,
    message: e.message,
    path: e.path,
    suggestion: e.suggestion ?? null,
  }));
}
