/**
 * The data of the jobs that launch, follow, report and settle a scan, and of the cancel a scan may wait in
 * (queues `diffward-launch`, `diffward-scans`, `diffward-reports`).
 */
import { z } from "zod";
import { PolicySources, RaisedValue, RepoConfig } from "../config/repo-config.js";
import { GuidanceChange } from "../domain/gate.js";
import { RepoContext } from "./repo-context.js";

/**
 * What a scan reports on: a pull request (its check run, review and report state), or a merge
 * group of a merge queue (its check run only: a group has no pull request to review), or the default
 * branch's commit (its baseline). Jobs without a `target` are pull request scans, so jobs queued before
 * merge groups existed keep working.
 */
export const ScanTarget = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("pull") }),
  z.object({
    kind: z.literal("merge-group"),
    /** `merge_group.head_ref` */
    headRef: z.string(),
    /**
     * `merge_group.base_sha`, the scan's `baseCommit`; absent in a poll job rebuilt by reconciliation
     * (`src/recovery/reconcile/`: GitHub's REST API does not give a merge group's base; polling and the group's
     * report do not read it)
     */
    baseSha: z.string().optional(),
  }),
  z.object({
    /** the default branch's commit, scanned whole (a non-diff preset, no `baseCommit`): its baseline */
    kind: z.literal("baseline"),
    /** the default branch (`refs/heads/<branch>` is the SARIF upload's ref) */
    branch: z.string(),
  }),
]);
export type ScanTarget = z.infer<typeof ScanTarget>;

/** What a pull request's launch found in the pull request and carries on to its poll and report. */
const pullFindings = {
  /** problems of the pull request's own version of `.github/diffward.yml`, when it edits the file */
  configProblemsInPull: z.array(z.string()).optional(),
  /** lines the pull request changes in the committed guidance file, when it changes it */
  guidanceChange: GuidanceChange.optional(),
  /** the preset refused `baseCommit` (`diff_base_not_allowed`): a whole-repository scan */
  wholeRepository: z.boolean().optional(),
  /** the values the organization floor raised in the repository's configuration (named in the summary) */
  floorRaised: z.array(RaisedValue).optional(),
  /** the file each policy key came from (named in the summary); absent in jobs queued before it */
  policySources: PolicySources.optional(),
};

/** A scan launch (job `launch`, queue `diffward-launch`). */
export const LaunchJobData = RepoContext.extend({
  /** the pull request; for a merge group, the one its ref names (0 when none) */
  pullNumber: z.number().int(),
  /** absent: a pull request scan */
  target: ScanTarget.optional(),
  headSha: z.string(),
  headRef: z.string(),
  mergeBase: z.string().nullable(),
  commitMessage: z.string().optional(),
  repositoryId: z.string(),
  presetRef: z.string(),
  creditBudget: z.number().optional(),
  auditAreaKeys: z.array(z.string()).optional(),
  checkRunId: z.number().int(),
  launchKey: z.string(),
  explicit: z.boolean(),
  config: RepoConfig,
  /**
   * The reservation this launch job holds under `creditCap.monthly` (set by the job itself before its POST):
   * the cap ledger's hash (`src/stores/cap-ledger.ts`) and the credits reserved, sent as `creditBudget`.
   */
  capHold: z.object({ key: z.string(), credits: z.number() }).optional(),
  /** ms since epoch of the first attempt answered `repository_initializing` */
  initializingSince: z.number().optional(),
  /** how many launches were answered `repository_initializing` so far */
  initializingTries: z.number().int().optional(),
  /**
   * ms since epoch the launch first found the scanning service unavailable (5xx, timeout, no answer) and began
   * waiting on its tenant's circuit breaker (`src/stores/service-breaker.ts`); the check run says so from then
   */
  outageSince: z.number().optional(),
  ...pullFindings,
  /**
   * ms since epoch: a launch for this check run may have reached the service since then, its outcome lost
   * with diffward's Redis state (set when reconciliation resumes a check run without a scan id). The launch
   * first looks the scan list up and follows any scan of this repository and head created since.
   */
  lookupSince: z.number().optional(),
});
export type LaunchJobData = z.infer<typeof LaunchJobData>;

/** A scan to follow until it ends, then report (job `poll`, queue `diffward-scans`). */
export const PollJobData = RepoContext.extend({
  /** the pull request; for a merge group, the one its ref names (0 when none) */
  pullNumber: z.number().int(),
  /** absent: a pull request scan */
  target: ScanTarget.optional(),
  headSha: z.string(),
  mergeBase: z.string().nullable(),
  checkRunId: z.number().int(),
  scanId: z.string(),
  projectId: z.string(),
  creditBudget: z.number().optional(),
  presetRef: z.string(),
  config: RepoConfig,
  /** ms since epoch when the scan was launched */
  launchedAt: z.number(),
  /** last progress shown on the check run */
  lastPercent: z.number().optional(),
  /** number of progress updates written so far (at most 5 per scan) */
  progressUpdates: z.number().int().optional(),
  /** set once the scan is terminal and only reporting remains */
  terminalAt: z.number().optional(),
  /** ms since epoch when the account's scanner token was first found missing; cleared when it is back */
  tokenMissingSince: z.number().optional(),
  /**
   * ms since epoch the poll first found the scanning service unavailable (5xx, timeout, no answer) and began
   * waiting on its tenant's circuit breaker; cleared when a read succeeds
   */
  outageSince: z.number().optional(),
  ...pullFindings,
});
export type PollJobData = z.infer<typeof PollJobData>;

/**
 * A terminal scan to report (job `report`, queue `diffward-reports`, job id `report-<scanId>`), handed over by
 * its poll job so that reports waiting on GitHub's write lane never hold the slots that poll running scans.
 */
export const ReportJobData = PollJobData.extend({
  /** ms since epoch when diffward first saw the scan terminal (the report delay counts from it) */
  terminalAt: z.number(),
  /**
   * The terminal scan as the poll read it (spec `GET /projects/{projectId}/scans/{scanId}`, `scan`), so the
   * report does not read it again; validated with the `ScanDetail` schema when the job runs, and read again
   * only when absent or invalid.
   */
  scan: z.unknown().optional(),
});
export type ReportJobData = z.infer<typeof ReportJobData>;

/** A scan whose spend was not settled in the ledger when it was reported (job `settle`, queue `diffward-scans`). */
export const SettleJobData = z.object({
  installationId: z.number().int(),
  accountLogin: z.string(),
  owner: z.string(),
  repo: z.string(),
  pullNumber: z.number().int(),
  scanId: z.string(),
  launchedAt: z.number(),
  /** looks at the ledger before this one (0 for the first, at most `SETTLE_MAX_TRIES` − 1) */
  tries: z.number().int(),
  /**
   * Set for a scan no pull request report follows (a merge group's, a baseline's, or one a launch no longer
   * wanted cancelled): only the cap ledger is settled; no pull request's report state or check run is read or
   * written (`pullNumber` is the pull request the group's ref names, or 0).
   */
  mergeGroup: z.boolean().optional(),
});
export type SettleJobData = z.infer<typeof SettleJobData>;

/** A scan to cancel once its account's scanner token is back (job `cancel`, queue `diffward-scans`). */
export const CancelJobData = z.object({
  installationId: z.number().int(),
  /** the account whose scanner token the cancel needs */
  accountLogin: z.string(),
  /** the scan's project, when diffward knows it (else the token's own) */
  projectId: z.string().optional(),
  scanId: z.string(),
  /** ms since epoch when the job first found the token missing */
  tokenMissingSince: z.number().optional(),
});
export type CancelJobData = z.infer<typeof CancelJobData>;
