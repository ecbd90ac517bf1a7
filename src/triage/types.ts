import { z } from "zod";
import { CommandForm } from "../commands/verbs.js";
import { RESOLUTION_STATUSES, SEVERITIES } from "../scanner/catalog.js";

/**
 * A slash command to run (job `command`, queue `diffward-events`), as the comment handlers enqueue it.
 * Re-validated when the job starts: the data went through Redis.
 */
export const CommandJobData = z.object({
  deliveryId: z.string().min(1),
  form: CommandForm,
  installationId: z.number().int().positive(),
  /** the installation's account login: picks the scanner token */
  accountLogin: z.string(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  repoPrivate: z.boolean(),
  defaultBranch: z.string().min(1),
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

/** A team decision on a finding of a pull request, remembered for later scans of the same pull request. */
export const Decision = z.object({
  findingId: z.string().min(1),
  /** identity across pushes (src/domain/identity.ts) */
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  /** the finding's effective severity when the decision was taken */
  severity: z.enum(SEVERITIES),
  resolutionStatus: z.enum(RESOLUTION_STATUSES),
  reason: z.string().optional(),
  note: z.string().optional(),
  /** GitHub login of the person who decided */
  by: z.string(),
  /** ISO 8601 date-time */
  at: z.string(),
  /** set when the decision was carried over from an earlier finding of the same identity */
  carriedFrom: z.string().optional(),
});
export type Decision = z.infer<typeof Decision>;

/** Every decision of one pull request (Redis `decisions:<owner/repo#n>`), newest last, one per identity. */
export const PullDecisions = z.object({ decisions: z.array(Decision) });
export type PullDecisions = z.infer<typeof PullDecisions>;
