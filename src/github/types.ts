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
