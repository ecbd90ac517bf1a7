import { z } from "zod";
import type { RepoConfig } from "../config/repo-config.js";
import type { GuidanceChange } from "../domain/gate.js";
import type { PullHead } from "../github/pulls.js";

/** The repository and installation a job acts in. */
export interface RepoContext {
  installationId: number;
  /** the installation's account login (organization or user): picks the scanner token */
  accountLogin: string;
  owner: string;
  repo: string;
  repoPrivate: boolean;
  defaultBranch: string;
  /** `repository.html_url`, for links to files at a commit */
  repoHtmlUrl?: string;
}

/**
 * The fields an event job's data starts with, as zod re-validates them when the job starts (the data went
 * through Redis): the webhook delivery and the {@link RepoContext} it came from (without `repoHtmlUrl`).
 */
export const deliveryInRepository = {
  deliveryId: z.string().min(1),
  installationId: z.number().int().positive(),
  /** the installation's account login: picks the scanner token */
  accountLogin: z.string(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  repoPrivate: z.boolean(),
  defaultBranch: z.string().min(1),
};

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
 * What a scan reports on: a pull request (its check run, review and report state), or a merge
 * group of a merge queue (its check run only: a group has no pull request to review). Jobs without a
 * `target` are pull request scans, so jobs queued before merge groups existed keep working.
 */
export type ScanTarget =
  | { kind: "pull" }
  | {
      kind: "merge-group";
      /** `merge_group.head_ref` */
      headRef: string;
      /**
       * `merge_group.base_sha`, the scan's `baseCommit`; absent in a poll job rebuilt by reconciliation
       * (`src/jobs/reconcile.ts`: GitHub's REST API does not give a merge group's base; polling and the
       * group's report do not read it)
       */
      baseSha?: string;
    }
  | {
      /** the default branch's commit, scanned whole (a non-diff preset, no `baseCommit`): its baseline */
      kind: "baseline";
      /** the default branch (`refs/heads/<branch>` is the SARIF upload's ref) */
      branch: string;
    };

/** A `pull_request` event to act on (job `pull-request`, queue `diffward-events`). */
export interface PullRequestJobData extends RepoContext {
  deliveryId: string;
  action: string;
  pullNumber: number;
  headSha: string;
  headRef: string;
  baseRef: string;
  draft: boolean;
  /** `pull_request.updated_at`, ISO: orders deliveries of the same pull request */
  updatedAt: string;
  authorLogin: string;
  title: string;
  /** `head.repo.full_name`; differs from `owner/repo` for a pull request from a fork */
  headRepoFullName?: string;
  /** `pull_request.html_url`: the check run's details link */
  pullHtmlUrl?: string;
  /**
   * Set for an explicit request (re-run button, rescan command, "Scan anyway"): launches anew.
   * `approvedBy` (a user whose permission was checked) lets the scan pass the fork and guidance gates.
   */
  explicit?: {
    nonce: string;
    presetRef?: string;
    creditBudget?: number;
    requestedBy?: string;
    approvedBy?: string;
  };
  /**
   * Set by reconciliation (`src/jobs/reconcile.ts`) after diffward's Redis state was lost: diffward's
   * unfinished check run of this head that has no scan id yet (its launch waited out `debounceSeconds`, or
   * its scan-id write had not reached GitHub). The job decides the head's launch again on that check run,
   * and concludes it when the head is no longer the one to follow.
   */
  resume?: {
    checkRunId: number;
    /** the check run's `started_at`, ms since epoch: no launch for it can have reached the service before */
    since: number;
  };
}

/** A scan launch (job `launch`, queue `diffward-launch`). */
export interface LaunchJobData extends RepoContext {
  /** the pull request; for a merge group, the one its ref names (0 when none) */
  pullNumber: number;
  /** absent: a pull request scan */
  target?: ScanTarget;
  headSha: string;
  headRef: string;
  mergeBase: string | null;
  commitMessage?: string;
  repositoryId: string;
  presetRef: string;
  creditBudget?: number;
  auditAreaKeys?: string[];
  checkRunId: number;
  launchKey: string;
  explicit: boolean;
  config: RepoConfig;
  /**
   * The reservation this launch job holds under `creditCap.monthly` (set by the job itself before its POST):
   * the cap ledger's hash (`src/runtime/cap-ledger.ts`) and the credits reserved, sent as `creditBudget`.
   */
  capHold?: { key: string; credits: number };
  /** ms since epoch of the first attempt answered `repository_initializing` */
  initializingSince?: number;
  /** how many launches were answered `repository_initializing` so far */
  initializingTries?: number;
  /**
   * ms since epoch the launch first found the scanning service unavailable (5xx, timeout, no answer) and began
   * waiting on its tenant's circuit breaker (`src/runtime/service-breaker.ts`); the check run says so from then
   */
  outageSince?: number;
  /** problems of the pull request's own version of `.github/diffward.yml`, when it edits the file */
  configProblemsInPull?: string[];
  /** lines the pull request changes in the committed guidance file, when it changes it */
  guidanceChange?: GuidanceChange;
  /** the preset refused `baseCommit` (`diff_base_not_allowed`): a whole-repository scan */
  wholeRepository?: boolean;
  /**
   * ms since epoch: a launch for this check run may have reached the service since then, its outcome lost
   * with diffward's Redis state (set when reconciliation resumes a check run without a scan id). The launch
   * first looks the scan list up and follows any scan of this repository and head created since.
   */
  lookupSince?: number;
}

/** A scan to follow until it ends, then report (job `poll`, queue `diffward-scans`). */
export interface PollJobData extends RepoContext {
  /** the pull request; for a merge group, the one its ref names (0 when none) */
  pullNumber: number;
  /** absent: a pull request scan */
  target?: ScanTarget;
  headSha: string;
  mergeBase: string | null;
  checkRunId: number;
  scanId: string;
  projectId: string;
  creditBudget?: number;
  presetRef: string;
  config: RepoConfig;
  /** ms since epoch when the scan was launched */
  launchedAt: number;
  /** last progress shown on the check run */
  lastPercent?: number;
  /** number of progress updates written so far (at most 5 per scan) */
  progressUpdates?: number;
  /** set once the scan is terminal and only reporting remains */
  terminalAt?: number;
  /** ms since epoch when the account's scanner token was first found missing; cleared when it is back */
  tokenMissingSince?: number;
  /**
   * ms since epoch the poll first found the scanning service unavailable (5xx, timeout, no answer) and began
   * waiting on its tenant's circuit breaker; cleared when a read succeeds
   */
  outageSince?: number;
  configProblemsInPull?: string[];
  guidanceChange?: GuidanceChange;
  wholeRepository?: boolean;
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

/**
 * A terminal scan to report (job `report`, queue `diffward-reports`, job id `report-<scanId>`), handed over by
 * its poll job so that reports waiting on GitHub's write lane never hold the slots that poll running scans
 *.
 */
export interface ReportJobData extends PollJobData {
  /** ms since epoch when diffward first saw the scan terminal (the report delay counts from it) */
  terminalAt: number;
  /**
   * The terminal scan as the poll read it (spec `GET /projects/{projectId}/scans/{scanId}`, `scan`), so the
   * report does not read it again; validated with the `ScanDetail` schema when the job runs, and read again
   * only when absent or invalid.
   */
  scan?: unknown;
}
