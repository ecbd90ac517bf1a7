/**
 * Where a slash command can be written, and the word that starts the conversation form: the vocabulary the
 * command job's data, the handlers and the verb modules (`src/commands/`) all name.
 */
import { z } from "zod";

/** The two places a command can be written. */
export const CommandForm = z.enum(["reply", "conversation"]);
/**
 * `reply`: a reply in the review thread of a finding comment (the finding is known from the thread).
 * `conversation`: a pull-request conversation comment, `/diffward <verb> <finding> [args]`.
 */
export type CommandForm = z.infer<typeof CommandForm>;

/** The word that starts every conversation-form command. */
export const CONVERSATION_PREFIX = "/diffward";
