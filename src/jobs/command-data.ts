import { z } from "zod";
import { CommandForm } from "../commands/form.js";
import { deliveryInRepository } from "./types.js";

/**
 * A slash command to run (job `command`, queue `diffward-events`), as the comment handlers enqueue it.
 * Re-validated when the job starts: the data went through Redis.
 */
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
