/**
 * Helpers over the jobs' data (its shapes are the catalogue's, `src/job-catalogue/`): the repository part to
 * hand on to the next job, the pull request part of a `pull-request` job, and a poll job's progress.
 */
import type { PullHead } from "../github/pulls.js";
import type { PullRequestJobData, RepoContext } from "../job-catalogue/index.js";

/** The {@link RepoContext} part of any job's data (to hand on to the next job). */
export function repoContextOf(d: RepoContext): RepoContext {
  return { ...repoOf(d), ...(d.repoHtmlUrl ? { repoHtmlUrl: d.repoHtmlUrl } : {}) };
}

/** The installation and repository fields of any job's data, without the repository's web address. */
export function repoOf(d: RepoContext): Omit<RepoContext, "repoHtmlUrl"> {
  return {
    installationId: d.installationId,
    accountLogin: d.accountLogin,
    owner: d.owner,
    repo: d.repo,
    repoPrivate: d.repoPrivate,
    defaultBranch: d.defaultBranch,
  };
}

/**
 * The pull request part of a `pull-request` job's data as GitHub shows the pull request now (REST "Get a
 * pull request"): number, head and base, draft, author, title and link; `updatedAt` is `now` (ms since
 * epoch) when GitHub gives none.
 */
export function pullHeadOf(
  pr: PullHead,
  now: number,
): Pick<
  PullRequestJobData,
  | "pullNumber"
  | "headSha"
  | "headRef"
  | "baseRef"
  | "draft"
  | "updatedAt"
  | "authorLogin"
  | "title"
  | "headRepoFullName"
  | "pullHtmlUrl"
> {
  return {
    pullNumber: pr.number,
    headSha: pr.headSha,
    headRef: pr.headRef,
    baseRef: pr.baseRef,
    draft: pr.draft,
    updatedAt: pr.updatedAt ?? new Date(now).toISOString(),
    authorLogin: pr.authorLogin,
    title: pr.title ?? "",
    ...(pr.headRepoFullName ? { headRepoFullName: pr.headRepoFullName } : {}),
    ...(pr.htmlUrl ? { pullHtmlUrl: pr.htmlUrl } : {}),
  };
}

/**
 * A running scan as its poll job last read it, kept as the job's progress (BullMQ `Job.updateProgress`):
 * what the organization's page shows of a scan in flight.
 */
export interface PollProgress {
  /** spec §Scan status (`QUEUED`, `PROCESSING`) */
  status: string;
  /** spec `progress.percent`, 0 to 100 */
  percent: number;
  /** ms since the epoch of the read */
  readAt: number;
  /** ms since the epoch of the next read */
  nextReadAt: number;
}
