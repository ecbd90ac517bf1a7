import type { Logger } from "pino";
import type { RepoContext } from "../jobs/types.js";
import type { Runtime } from "../runtime/runtime.js";

/** What handlers need: only the queues (and a logger). */
export interface HandlerDeps {
  queues: Runtime["queues"];
  /** Redis for the per-installation fairness counters (`src/runtime/fairness.ts`); without it jobs are plain FIFO */
  redis?: Runtime["redis"];
  log?: Logger;
}

export { EVENT_JOB_OPTIONS } from "../runtime/names.js";

/** The parts of a webhook payload that name the repository (every repository event has them). */
interface RepositoryPayload {
  repository: {
    name: string;
    private: boolean;
    default_branch: string;
    html_url: string;
    owner: { login: string };
  };
}

/**
 * The {@link RepoContext} of a repository event: the installation, the account whose scanner token
 * applies (the repository owner's login), and the repository's name, visibility, default branch and URL.
 */
export function repoContext(payload: RepositoryPayload, installationId: number): RepoContext {
  const r = payload.repository;
  return {
    installationId,
    accountLogin: r.owner.login,
    owner: r.owner.login,
    repo: r.name,
    repoPrivate: r.private,
    defaultBranch: r.default_branch,
    repoHtmlUrl: r.html_url,
  };
}
