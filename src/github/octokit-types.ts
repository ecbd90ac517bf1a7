import type { ProbotOctokit } from "probot";

/** An Octokit authenticated as one installation (Probot's, with retry and throttling plugins). */
export type InstallationOctokit = ProbotOctokit;

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface PullRef extends RepoRef {
  pullNumber: number;
}

/** The path parameters of GitHub's repository endpoints (`/repos/{owner}/{repo}/…`), and nothing else of `repo`. */
export function repoParams(repo: RepoRef): RepoRef {
  return { owner: repo.owner, repo: repo.repo };
}

/** The path parameters of GitHub's pull request endpoints (`/repos/{owner}/{repo}/pulls/{pull_number}…`). */
export function pullParams(pull: PullRef): { owner: string; repo: string; pull_number: number } {
  return { owner: pull.owner, repo: pull.repo, pull_number: pull.pullNumber };
}

/**
 * `request`'s answer, or `undefined` when GitHub answers `status` instead: 404 Not Found (the thing does not
 * exist, or the App may not see it) or 409 Conflict (the git endpoints of an empty repository).
 * @throws Octokit's RequestError for any other failure, as it comes.
 */
export async function unlessStatus<T>(status: 404 | 409, request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (error) {
    if ((error as { status?: number }).status === status) return undefined;
    throw error;
  }
}

/** An Octokit call on one repository: its path parameters ({@link repoParams}) and one more argument. */
export type RepoCall<A, R> = (octokit: InstallationOctokit, repo: RepoRef, arg: A) => Promise<R>;

/**
 * A read of one thing of a repository (an alert, a comment) by `arg`: `read` makes the Octokit call and `map`
 * turns its `data` into diffward's type. GitHub's 404 (the thing does not exist, or the App may not see it) is
 * `undefined`; any other failure throws Octokit's RequestError as it comes.
 */
export function readUnless404<A, D, T>(
  read: RepoCall<A, { data: D }>,
  map: (data: D) => T,
): RepoCall<A, T | undefined> {
  return async (octokit, repo, arg) => {
    const found = await unlessStatus(404, read(octokit, repoParams(repo), arg));
    return found && map(found.data);
  };
}

/**
 * Every item of a list of a repository: `list` makes the call (Octokit `paginate`, which follows GitHub's `Link`
 * header to the last page) and `map` turns each item into diffward's type.
 */
export function listAll<A, I, T>(list: RepoCall<A, I[]>, map: (item: I) => T): RepoCall<A, T[]> {
  return async (octokit, repo, arg) => (await list(octokit, repoParams(repo), arg)).map(map);
}
