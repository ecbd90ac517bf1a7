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
