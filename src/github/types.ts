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
