/**
 * The shapes every verb shares: a finding reference, the error and refusal answers of the parser, and the
 * helpers a verb's argument parser uses (text joining, the note cap, error builders). Verb-specific
 * command shapes live in their verb module (`./verbs/*.ts`); `ParsedCommand` (`./parse.ts`) is the union.
 */
import { z } from "zod";
import { RESOLUTION_STATUSES } from "../scanner/catalog.js";
import type { FindingRef } from "../scanner/labels.js";
import type { CommandForm } from "../domain/command-form.js";

/** Longest note content diffward sends, in characters (Unicode code points). Longer → `note_too_long`. */
export const MAX_NOTE_LENGTH = 20_000;

/** A finding reference as typed by a user: zod twin of `FindingRef` from `src/scanner/labels.ts`. */
export const CommandFindingRef = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("label"),
    short: z.string().regex(/^[A-Za-z0-9_]{8}$/),
    prefix: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .optional(),
  }),
  z.object({ kind: z.literal("id"), id: z.string().regex(/^[A-Za-z0-9_-]{9,128}$/) }),
]);
export type CommandFindingRef = z.infer<typeof CommandFindingRef>;

/** Why a command could not be turned into a request: each error code and when the parser gives it. */
const COMMAND_ERRORS = {
  missing_argument: "a required argument is missing (`/note` without text, `/severity` without a level)",
  invalid_severity: "`/severity` with a word that is not a level",
  missing_finding_ref: "conversation form without a finding label or id",
  invalid_finding_ref: "conversation form with something that is not a label or id",
  note_too_long: `note text longer than ${MAX_NOTE_LENGTH} characters`,
  invalid_argument: "a malformed `key=value` argument (`budget=abc`)",
  unexpected_argument: "an argument the verb does not take",
  invalid_expiry: "an expiry clause (`until <date>`, `for <N>d`) that is not a date or a number of days",
} as const;
type CommandErrorKey = keyof typeof COMMAND_ERRORS;
/** The codes of {@link COMMAND_ERRORS}. */
export const CommandErrorCode = z.enum(
  Object.keys(COMMAND_ERRORS) as [CommandErrorKey, ...CommandErrorKey[]],
);
export type CommandErrorCode = z.infer<typeof CommandErrorCode>;

/** The optional finding reference of a finding verb (conversation form; a reply may name one too). */
export const finding = { ref: CommandFindingRef.optional() };
/** Marks a command that changes something or reads the account: the permission floor applies. */
export const needsPermission = { requiresPermission: z.literal(true) };
/**
 * The fields that name a verb's command: `kind` (its key in the verb table), `verb` (the canonical words
 * typed) and `requiresPermission` (`true`, the default: it changes something or reads the account, so the
 * permission floor applies; `false`: anyone may ask).
 */
export function commandName<K extends string, V extends string, P extends boolean = true>(
  kind: K,
  verb: V,
  requiresPermission: P = true as P,
) {
  return { kind: z.literal(kind), verb: z.literal(verb), requiresPermission: z.literal(requiresPermission) };
}
/** Free text of a note (code units; the code-point cap {@link MAX_NOTE_LENGTH} is enforced by the parser). */
export const noteText = z
  .string()
  .min(1)
  .max(MAX_NOTE_LENGTH * 2);

const Status = z.enum(RESOLUTION_STATUSES);

/** Not a command: post nothing. */
export const IgnoreCommand = z.object({ kind: z.literal("ignore") });
export type IgnoreCommand = z.infer<typeof IgnoreCommand>;
/** Show help; `unknown` is the verb the user typed when it was not recognised. */
export const HelpCommand = z.object({
  ...commandName("help", "help", false),
  unknown: z.string().optional(),
});
export type HelpCommand = z.infer<typeof HelpCommand>;
/** A recognised command with bad arguments: answer `message` and change nothing. */
export const ErrorCommand = z.object({
  kind: z.literal("error"),
  /** the canonical verb (a name of the verb table, `src/commands/table.ts`) */
  verb: z.string().min(1),
  requiresPermission: z.boolean(),
  code: CommandErrorCode,
  /** user-facing text: what was wrong and the right syntax (contains user text: escape before posting) */
  message: z.string(),
  /** the valid values, when the error is about a choice (severity levels) */
  validValues: z.array(z.string()).optional(),
});
export type ErrorCommand = z.infer<typeof ErrorCommand>;
/**
 * A reason code from another status's catalog (spec §Findings, resolution rule 4). Nothing must be changed;
 * answer with `validCodes`, the codes of `status`.
 */
export const RefusalCommand = z.object({
  kind: z.literal("refusal"),
  verb: z.string().min(1),
  ...needsPermission,
  ...finding,
  status: Status,
  reasonCode: z.string(),
  belongsTo: Status,
  validCodes: z.array(z.string()),
  message: z.string(),
});
export type RefusalCommand = z.infer<typeof RefusalCommand>;

/** What a verb's argument parser receives from `parseCommand` (`./parse.ts`). */
export interface VerbArgs {
  /** the canonical verb typed (a family module serves several verbs) */
  verb: string;
  form: CommandForm;
  /** the finding named in the command, when the verb names one */
  ref: FindingRef | undefined;
  /** the rest of the command line after the verb (and the finding reference) */
  args: string;
  /** the rest of the comment body after the command line */
  rest: string;
  /** the verb's syntax line, in backticks, for error messages */
  syntax: string;
}

const MAX_ECHO = 60;

/** Free text: the rest of the command line joined by a newline with the rest of the body. */
export function joinText(args: string, rest: string): string {
  return [args.trim(), rest.trim()].filter(Boolean).join("\n");
}

/** A `note_too_long` error when `text` is over {@link MAX_NOTE_LENGTH} code points, else `undefined`. */
export function capped(verb: string, text: string): ErrorCommand | undefined {
  const length = [...text].length;
  if (length <= MAX_NOTE_LENGTH) return undefined;
  return commandError(
    verb,
    "note_too_long",
    `The note is ${length} characters long; the limit is ${MAX_NOTE_LENGTH}. Shorten it and try again.`,
  );
}

/**
 * The parser of a verb that takes no arguments (behind the permission floor): its command, or an
 * `unexpected_argument` error naming what was typed after `/verb`.
 */
export function argumentless<K extends string, V extends string>(kind: K, verb: V) {
  return (a: VerbArgs): { kind: K; verb: V; requiresPermission: true } | ErrorCommand =>
    a.args ? unexpected(verb, a.args, a.syntax) : { kind, verb, requiresPermission: true };
}

/** An `unexpected_argument` error naming what was typed (echoed inert). */
export function unexpected(verb: string, got: string, syntax: string): ErrorCommand {
  return commandError(verb, "unexpected_argument", `\`/${verb}\` does not take \`${echo(got)}\`: ${syntax}.`);
}

/** An error command; `message` is user-facing and says what was wrong and the right syntax. */
export function commandError(
  verb: string,
  code: CommandErrorCode,
  message: string,
  requiresPermission = true,
): ErrorCommand {
  return { kind: "error", verb, requiresPermission, code, message };
}

/** The help command, with the unrecognised word when there was one (at most 60 characters). */
export function helpCommand(unknown?: string): HelpCommand {
  return unknown === undefined
    ? { kind: "help", verb: "help", requiresPermission: false }
    : { kind: "help", verb: "help", requiresPermission: false, unknown: unknown.slice(0, MAX_ECHO) };
}

/** Echoes user text in an error message: no backticks, at most 60 characters. */
export function echo(text: string): string {
  const t = text.replace(/`/g, "'");
  return t.length > MAX_ECHO ? `${t.slice(0, MAX_ECHO)}…` : t;
}

/** The longest word echoed back from an unknown verb, in characters. */
export const MAX_ECHO_LENGTH = MAX_ECHO;
