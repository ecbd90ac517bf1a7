/**
 * A repository's files in the stand-in (GitHub REST "Get repository contents",
 * `GET /repos/{owner}/{repo}/contents/{path}?ref=`), with GitHub's size rules
 * (https://docs.github.com/en/rest/repos/contents#get-repository-content): up to 1 MB every media type answers;
 * over 1 MB only the `raw` and `object` media types do, `object` with `content: ""` and `encoding: "none"`,
 * and the default (JSON) media type is refused with 403 `too_large`. A file is text (UTF-8) or bytes.
 */
import { createHash } from "node:crypto";
import { HttpError, notFound, type RouteContext, type RouteReply } from "./http.js";
import { repoOf } from "./routes.js";
import { blobSha, type Repository } from "./state.js";

/** GitHub's limit of file content in the JSON answers, in bytes. */
export const CONTENTS_JSON_MAX_BYTES = 1024 * 1024;

type Handler = (ctx: RouteContext) => RouteReply;

const SHA = /^[0-9a-f]{40}$/;

/**
 * The head commit of `branch`: the one pushes set, else one derived from the branch's files (a repository
 * seeded with files but no push), which changes whenever a file of the branch changes, as a commit would.
 */
function branchHead(repo: Repository, branch: string): string | undefined {
  const pushed = repo.branches.get(branch);
  if (pushed !== undefined) return pushed;
  const files = repo.files.get(branch);
  if (files === undefined || SHA.test(branch)) return undefined;
  const hash = createHash("sha1").update(`${repo.owner}/${repo.name}:${branch}\0`);
  for (const [path, content] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    hash.update(`${path}\0${blobSha(content)}\0`);
  return hash.digest("hex");
}

/** The commit `ref` (a branch or a commit SHA) names, or `undefined` when it names none. */
export function commitOf(repo: Repository, ref: string): string | undefined {
  if (SHA.test(ref) && (repo.files.has(ref) || [...repo.branches.values()].includes(ref))) return ref;
  const head = branchHead(repo, ref);
  if (head !== undefined) return head;
  if (SHA.test(ref)) return [...repo.files.keys()].find((b) => branchHead(repo, b) === ref);
  return undefined;
}

/** The files at `ref`: a branch's or a commit's (a SHA also finds the branch whose head it is). */
export function filesAt(repo: Repository, ref: string): Map<string, string | Uint8Array> | undefined {
  const direct = repo.files.get(ref);
  if (direct !== undefined || !SHA.test(ref)) return direct;
  const branch = [...repo.files.keys()].find((b) => branchHead(repo, b) === ref);
  return branch === undefined ? undefined : repo.files.get(branch);
}

const bytesOf = (content: string | Uint8Array): Buffer =>
  typeof content === "string" ? Buffer.from(content, "utf8") : Buffer.from(content);

/** GitHub's directory listing: each entry under `path` one level down, files and directories. */
function directory(files: Map<string, string | Uint8Array>, path: string): RouteReply {
  const prefix = path === "" ? "" : `${path}/`;
  const entries = [...files.keys()].filter((p) => p.startsWith(prefix));
  if (entries.length === 0) throw notFound();
  const names = [...new Set(entries.map((p) => p.slice(prefix.length).split("/")[0] ?? ""))].sort();
  return {
    status: 200,
    body: names.map((name) => {
      const full = `${prefix}${name}`;
      const file = files.get(full);
      return {
        type: file === undefined ? "dir" : "file",
        name,
        path: full,
        sha: blobSha(file ?? full),
        size: file === undefined ? 0 : bytesOf(file).length,
      };
    }),
  };
}

/** GitHub's `content-file` object of `bytes` at `path`; `content` empty and `encoding: none` over 1 MB. */
function fileObject(
  ctx: RouteContext,
  repo: Repository,
  ref: string,
  path: string,
  bytes: Buffer,
): RouteReply {
  const large = bytes.length > CONTENTS_JSON_MAX_BYTES;
  const base64 = large ? "" : bytes.toString("base64");
  const url = `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/contents/${path}?ref=${encodeURIComponent(ref)}`;
  return {
    status: 200,
    body: {
      type: "file",
      encoding: large ? "none" : "base64",
      size: bytes.length,
      name: path.split("/").pop() ?? path,
      path,
      content: large ? "" : (base64.match(/.{1,60}/g) ?? []).join("\n") + "\n",
      sha: blobSha(bytes),
      url,
      git_url: null,
      html_url: `${ctx.origin}/${repo.owner}/${repo.name}/blob/${ref}/${path}`,
      download_url: `${ctx.origin}/${repo.owner}/${repo.name}/raw/${ref}/${path}`,
      _links: { self: url, git: null, html: null },
    },
  };
}

export const CONTENTS_ROUTES: Record<string, Handler> = {
  "repos/get-content": (ctx) => {
    const repo = repoOf(ctx);
    const ref = ctx.query["ref"] ?? repo.defaultBranch;
    const files = filesAt(repo, ref);
    if (files === undefined) throw new HttpError(404, `No commit found for the ref ${ref}`);
    const path = (ctx.params["path"] ?? "").replace(/^\/+|\/+$/g, "");
    const content = files.get(path);
    if (content === undefined) return directory(files, path);
    const accept = String(ctx.headers["accept"] ?? "");
    const bytes = bytesOf(content);
    if (/application\/vnd\.github(\.v3)?\.raw/.test(accept))
      return { status: 200, raw: bytes, contentType: "application/vnd.github.raw; charset=utf-8" };
    const object = /application\/vnd\.github(\.v3)?\.object/.test(accept);
    if (!object && bytes.length > CONTENTS_JSON_MAX_BYTES)
      throw new HttpError(
        403,
        "This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, but you can use the Git Data API to request blobs up to 100 MB in size.",
        [{ resource: "Blob", field: "data", code: "too_large" }],
      );
    return fileObject(ctx, repo, ref, path, bytes);
  },
  /**
   * GitHub REST "Get a commit": with the `sha` media type (`application/vnd.github.sha`) the commit's SHA as
   * text; otherwise the commit object's identifying fields (`sha`, `node_id`, `url`, `html_url`, `parents`,
   * `files`: the stand-in keeps no history). 422 for a ref that names no commit, as GitHub answers.
   */
  "repos/get-commit": (ctx) => {
    const repo = repoOf(ctx);
    const ref = ctx.params["ref"] ?? "";
    const sha = commitOf(repo, ref);
    if (sha === undefined) throw new HttpError(422, `No commit found for SHA: ${ref}`);
    if (/application\/vnd\.github(\.v3)?\.sha/.test(String(ctx.headers["accept"] ?? "")))
      return { status: 200, raw: sha, contentType: "application/vnd.github.sha; charset=utf-8" };
    const url = `${ctx.apiBase}/repos/${repo.owner}/${repo.name}/commits/${sha}`;
    return {
      status: 200,
      body: {
        sha,
        node_id: `C_${Buffer.from(`${repo.id}:${sha}`).toString("base64url")}`,
        url,
        html_url: `${ctx.origin}/${repo.owner}/${repo.name}/commit/${sha}`,
        parents: [],
        files: [],
      },
    };
  },
};
