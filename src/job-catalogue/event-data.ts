/**
 * The data of the jobs on the events queue (`diffward-events`): the webhook events the handlers enqueue, the
 * requests jobs hand on to each other (a rescan, an approved scan, an expiry), and the process's own runs
 * (reconciliation, the recovery of missed deliveries).
 */
import { z } from "zod";
import { BaselineTrigger } from "../domain/baseline.js";
import { CommandForm } from "../domain/command-form.js";
import { RepoContext, deliveryInRepository } from "./repo-context.js";

/** A `pull_request` event to act on (jobs `pull-request` and `rerequest`, queue `diffward-events`). */
export const PullRequestJobData = RepoContext.extend({
  deliveryId: z.string(),
  action: z.string(),
  pullNumber: z.number().int(),
  headSha: z.string(),
  headRef: z.string(),
  baseRef: z.string(),
  draft: z.boolean(),
  /** `pull_request.updated_at`, ISO: orders deliveries of the same pull request */
  updatedAt: z.string(),
  authorLogin: z.string(),
  title: z.string(),
  /** `head.repo.full_name`; differs from `owner/repo` for a pull request from a fork */
  headRepoFullName: z.string().optional(),
  /** `pull_request.html_url`: the check run's details link */
  pullHtmlUrl: z.string().optional(),
  /**
   * Set for an explicit request (re-run button, rescan command, "Scan anyway"): launches anew.
   * `approvedBy` (a user whose permission was checked) lets the scan pass the fork and guidance gates.
   */
  explicit: z
    .object({
      nonce: z.string(),
      presetRef: z.string().optional(),
      creditBudget: z.number().optional(),
      requestedBy: z.string().optional(),
      approvedBy: z.string().optional(),
    })
    .optional(),
  /**
   * Set by reconciliation (`src/recovery/reconcile/`) after diffward's Redis state was lost: diffward's unfinished
   * check run of this head that has no scan id yet (its launch waited out `debounceSeconds`, or its scan-id
   * write had not reached GitHub). The job decides the head's launch again on that check run, and concludes it
   * when the head is no longer the one to follow.
   */
  resume: z
    .object({
      checkRunId: z.number().int(),
      /** the check run's `started_at`, ms since epoch: no launch for it can have reached the service before */
      since: z.number(),
    })
    .optional(),
});
export type PullRequestJobData = z.infer<typeof PullRequestJobData>;

/** A closed pull request (job `pull-closed`). */
export const PullClosedJobData = RepoContext.extend({
  deliveryId: z.string(),
  pullNumber: z.number().int(),
  /** `pull_request.head.sha` and `pull_request.updated_at` (ISO) of the close; absent in jobs of older versions */
  headSha: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type PullClosedJobData = z.infer<typeof PullClosedJobData>;

/** An uninstalled app (job `uninstall`): every scan in flight for the installation is cancelled. */
export const UninstallJobData = z.object({
  deliveryId: z.string(),
  installationId: z.number().int(),
  /** the account's login ("" when the payload names none) */
  accountLogin: z.string(),
});
export type UninstallJobData = z.infer<typeof UninstallJobData>;

/**
 * The app installed (job `reinstall`, from `installation.created`): diffward's check runs an earlier
 * uninstall left unfinished are ended and their heads scanned again (`src/scan/reinstall.ts`).
 */
export const ReinstallJobData = z.object({
  deliveryId: z.string(),
  /** the new installation's id (GitHub gives a new one on every install) */
  installationId: z.number().int(),
  /** the app's id (`installation.app_id`): the GraphQL walk picks diffward's check runs by it */
  appId: z.number().int(),
  /** the account's login ("" when the payload names none) */
  accountLogin: z.string(),
  /** `installation.created_at`, ISO 8601: a check run started before it was left by an earlier installation */
  installedAt: z.string(),
});
export type ReinstallJobData = z.infer<typeof ReinstallJobData>;

/** A `merge_group` event to act on (jobs `merge-group` and `merge-group-destroyed`, queue `diffward-events`). */
export const MergeGroupJobData = RepoContext.extend({
  deliveryId: z.string(),
  /** `merge_group.head_sha`: the commit GitHub wants checks on */
  headSha: z.string(),
  /** `merge_group.head_ref`, e.g. `refs/heads/gh-readonly-queue/main/pr-104-<sha>` */
  headRef: z.string(),
  /** `merge_group.base_sha`: the group's parent commit, the `baseCommit` of its diff scan */
  baseSha: z.string(),
  /** `merge_group.base_ref`, e.g. `refs/heads/main` */
  baseRef: z.string(),
  /** `merge_group.head_commit.message` */
  headCommitMessage: z.string().optional(),
  /** `destroyed` only: `merged`, `dequeued` or `invalidated` */
  reason: z.string().optional(),
});
export type MergeGroupJobData = z.infer<typeof MergeGroupJobData>;

/** A click on "Scan anyway" (job `approve`, queue `diffward-events`). */
export const ApproveJobData = RepoContext.extend({
  deliveryId: z.string(),
  checkRunId: z.number().int(),
  headSha: z.string(),
  pullNumbers: z.array(z.number().int()),
  /** who clicked */
  sender: z.string(),
  /** the check run's output title, kept when the click is refused */
  title: z.string(),
  summary: z.string(),
});
export type ApproveJobData = z.infer<typeof ApproveJobData>;

/** A slash command to run (job `command`, queue `diffward-events`), as the comment handlers enqueue it. */
export const CommandJobData = z.object({
  ...deliveryInRepository,
  form: CommandForm,
  pullNumber: z.number().int().positive(),
  /** the command comment (review comment for `reply`, issue comment for `conversation`) */
  commentId: z.number().int().positive(),
  /** `reply` only: the review comment replied to (GitHub always points at the thread's first comment) */
  inReplyToId: z.number().int().positive().optional(),
  /** the comment text (never logged) */
  body: z.string().max(262_144),
  /** the GitHub login diffward acts for */
  senderLogin: z.string().min(1),
  /** how many times a `429` from the service postponed this command */
  rateLimited: z.number().int().nonnegative().optional(),
});
export type CommandJobData = z.infer<typeof CommandJobData>;

/** A `code_scanning_alert` delivery to act on (job `code-scanning-alert`), as the handler enqueues it. */
export const AlertJobData = z.object({
  ...deliveryInRepository,
  repoHtmlUrl: z.string().optional(),
  action: z.string(),
  alertNumber: z.number().int().positive(),
  toolName: z.string().nullable(),
  senderLogin: z.string().min(1),
  senderType: z.string().nullable(),
  dismissedReason: z.string().nullable(),
  dismissedComment: z.string().nullable(),
  /** `alert.most_recent_instance.message.text` when the payload has it ("" otherwise) */
  messageText: z.string(),
  /** the alert's ref (`most_recent_instance.ref`, else the payload's `ref`), e.g. `refs/pull/7/head` */
  ref: z.string().nullable(),
});
export type AlertJobData = z.infer<typeof AlertJobData>;

/**
 * A baseline to start (jobs `baseline-push` and `baseline-schedule`, queue `diffward-events`): the
 * repository and, for a push, the pushed commit.
 */
export const BaselineJobData = RepoContext.extend({
  /** the push's delivery id, or the scheduled job's id: names this start (its launch job and key) */
  deliveryId: z.string().optional(),
  trigger: BaselineTrigger,
  /** the pushed commit (`push.after`); a scheduled baseline reads the default branch's head */
  headSha: z.string().optional(),
  /** `push.head_commit.message` */
  commitMessage: z.string().optional(),
  /**
   * Set by reconciliation after diffward's Redis state was lost: diffward's unfinished check run of this
   * commit without a scan id, which the start takes over instead of creating another
   */
  resumeCheckRunId: z.number().int().optional(),
});
export type BaselineJobData = z.infer<typeof BaselineJobData>;

/** The pull request an acceptance was given on, and the account whose service token applies it. */
export const ExpiryPull = z.object({
  installationId: z.number().int().positive(),
  accountLogin: z.string().min(1),
  owner: z.string().min(1),
  repo: z.string().min(1),
  pullNumber: z.number().int().positive(),
});
export type ExpiryPull = z.infer<typeof ExpiryPull>;

/**
 * The data of an `acceptance-expiry` job (`src/triage/expiry.ts`): the pull request and the expiry's id (its
 * decision says the rest).
 */
export const AcceptanceExpiryJobData = ExpiryPull.extend({ expiryId: z.string().min(1) });
export type AcceptanceExpiryJobData = z.infer<typeof AcceptanceExpiryJobData>;

/**
 * A run of the process's own (jobs `reconcile` and `recover-deliveries`): it carries nothing, what it looks at
 * is in Redis and GitHub. A job a BullMQ job scheduler produced has `{}` (BullMQ's template data by default).
 */
export const ProcessRunJobData = z.object({});
export type ProcessRunJobData = z.infer<typeof ProcessRunJobData>;
