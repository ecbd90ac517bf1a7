import type { ProbotOctokit } from "probot";

/** An Octokit authenticated as one installation (Probot's, with retry and throttling plugins). */
export type InstallationOctokit = ProbotOctokit;

/** The repository a pull request lives in. */
export interface RepoRef {
  owner: string;
  repo: string;
}

/** A pull request, as far as diffward needs it. */
export interface PullRef extends RepoRef {
  pullNumber: number;
}
