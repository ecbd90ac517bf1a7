import { pullParams, unlessStatus, type InstallationOctokit, type PullRef, type RepoRef } from "./octokit-types.js";

/** The merge base of a pull request's base and head, and the head commit's message when GitHub lists it. */
export interface MergeBase {
  mergeBase: string;
  headCommitMessage?: string;
}

/**
 * The merge base of `base` and `head`: the commit a diff scan measures the change from.
 * Source: GitHub REST "Compare two commits" (`GET /repos/{owner}/{repo}/compare/{base}...{head}`),
 * field `merge_base_commit.sha`; `commits[]` (oldest first, at most 250) gives the head commit's message.
 */
export async function getMergeBase(
  octokit: InstallationOctokit,
  repo: RepoRef,
  base: string,
  head: string,
): Promise<MergeBase> {
  const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
    owner: repo.owner,
    repo: repo.repo,
    basehead: `${base}...${head}`,
  });
  const commits = Array.isArray(data.commits) ? data.commits : [];
  const last = commits[commits.length - 1];
  const message = last && last.sha === head ? last.commit?.message : undefined;
  return { mergeBase: data.merge_base_commit.sha, ...(message ? { headCommitMessage: message } : {}) };
}

/**
 * The files changed between two commits (GitHub REST "Compare two commits",
 * `GET /repos/{owner}/{repo}/compare/{base}...{head}`, field `files`; GitHub lists at most 300 there).
 * Used for a merge group, which has no pull request to list files of.
 */
export async function listCompareFiles(
  octokit: InstallationOctokit,
  repo: RepoRef,
  base: string,
  head: string,
): Promise<PullFile[]> {
  const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
    owner: repo.owner,
    repo: repo.repo,
    basehead: `${base}...${head}`,
  });
  return (data.files ?? []).map((f) => ({
    filename: f.filename,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    ...(f.patch !== undefined ? { patch: f.patch } : {}),
  }));
}

/** A file of a pull request; `patch` is absent when GitHub omits it (binary or too large). */
export interface PullFile {
  filename: string;
  status: string;
  additions: number;
  deletions: number;
  patch?: string;
}

/**
 * Every file of a pull request (GitHub REST `GET /repos/{owner}/{repo}/pulls/{pull_number}/files`,
 * paginated; GitHub lists at most 3,000 files, so a file past that limit has no entry and takes no inline
 * comment).
 */
export async function listPullFiles(octokit: InstallationOctokit, pull: PullRef): Promise<PullFile[]> {
  const files = await octokit.paginate(octokit.rest.pulls.listFiles, {
    ...pullParams(pull),
    per_page: 100,
  });
  return files.map((f) => ({
    filename: f.filename,
    status: f.status,
    additions: f.additions,
    deletions: f.deletions,
    ...(f.patch !== undefined ? { patch: f.patch } : {}),
  }));
}

/** A pull request's current head and base. */
export interface PullHead {
  number: number;
  state: string;
  draft: boolean;
  headSha: string;
  headRef: string;
  baseRef: string;
  authorLogin: string;
  /** `head.repo.full_name` (a fork's name for a pull request from a fork); absent when the fork was deleted */
  headRepoFullName?: string;
  htmlUrl?: string;
  title?: string;
  updatedAt?: string;
}

/** Reads a pull request (GitHub REST `GET /repos/{owner}/{repo}/pulls/{pull_number}`). */
export async function getPull(octokit: InstallationOctokit, pull: PullRef): Promise<PullHead> {
  const { data } = await octokit.rest.pulls.get(pullParams(pull));
  return {
    number: data.number,
    state: data.state,
    draft: data.draft ?? false,
    headSha: data.head.sha,
    headRef: data.head.ref,
    baseRef: data.base.ref,
    authorLogin: data.user.login,
    ...(data.head.repo ? { headRepoFullName: data.head.repo.full_name } : {}),
    htmlUrl: data.html_url,
    title: data.title,
    updatedAt: data.updated_at,
  };
}

/** Open pull requests of a repository (GitHub REST `GET /repos/{owner}/{repo}/pulls?state=open`). */
export async function listOpenPulls(octokit: InstallationOctokit, repo: RepoRef): Promise<PullHead[]> {
  const pulls = await octokit.paginate(octokit.rest.pulls.list, {
    owner: repo.owner,
    repo: repo.repo,
    state: "open",
    per_page: 100,
  });
  return pulls.map((p) => ({
    number: p.number,
    state: p.state,
    draft: p.draft ?? false,
    headSha: p.head.sha,
    headRef: p.head.ref,
    baseRef: p.base.ref,
    authorLogin: p.user?.login ?? "",
    ...(p.head.repo ? { headRepoFullName: p.head.repo.full_name } : {}),
    htmlUrl: p.html_url,
    title: p.title,
    updatedAt: p.updated_at,
  }));
}

/**
 * Reads a file's text at a ref (GitHub REST "Get repository content" with the raw media type).
 * @returns the text, or `undefined` when the file does not exist (404).
 */
export async function getFileText(
  octokit: InstallationOctokit,
  repo: RepoRef,
  path: string,
  ref: string,
): Promise<string | undefined> {
  const res = await unlessStatus(
    404,
    octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
      owner: repo.owner,
      repo: repo.repo,
      path,
      ref,
      mediaType: { format: "raw" },
    }),
  );
  return res && (typeof res.data === "string" ? res.data : String(res.data));
}
