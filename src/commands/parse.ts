/**
 * The slash-command parser: a total, pure function from a comment body to a {@link ParsedCommand}.
 * It decides nothing about permissions or the service; it only says what the comment asks for, with the
 * exact fields of the request that follows (spec §Findings: notes, severity, resolution, publish; spec
 * §Scans: launch, cancel). Which words are verbs comes from the verb table
 * (`./table.ts`); each verb's arguments are parsed by its module (`./verbs/*.ts`).
 */
import { z } from "zod";
import { ALL_REASON_CODES } from "../scanner/catalog.js";
import { parseFindingRef } from "../scanner/labels.js";
import type { FindingRef } from "../scanner/labels.js";
import { CONVERSATION_PREFIX } from "../domain/command-form.js";
import type { CommandForm } from "../domain/command-form.js";
import {
  ErrorCommand,
  IgnoreCommand,
  RefusalCommand,
  commandError,
  echo,
  helpCommand,
  MAX_ECHO_LENGTH,
} from "./verb-parts.js";
import { canonicalVerb, isFindingVerb, verbAllowedIn, verbRow, verbSyntax, VERB_MODULES } from "./table.js";
import type { Verb, VERB_TABLE } from "./table.js";
import type { CommandOf } from "./verb-module.js";
import { SEVERITY_WORDS } from "./verbs/severity.js";

export { MAX_NOTE_LENGTH, CommandFindingRef, CommandErrorCode } from "./verb-parts.js";
export { IgnoreCommand, HelpCommand, ErrorCommand, RefusalCommand } from "./verb-parts.js";
export { ResolutionCommand } from "./verbs/resolution.js";
export { ApprovalCommand } from "./verbs/approval.js";
export { SeverityCommand, SEVERITY_WORDS } from "./verbs/severity.js";
export { NoteCommand } from "./verbs/note.js";
export { PublishCommand } from "./verbs/publish.js";
export { RescanCommand, CancelCommand, MAX_RESCAN_BUDGET, MAX_PRESET_REF_LENGTH } from "./verbs/scan.js";
export { StatusCommand, CreditsCommand, GuidanceCommand, AreasCommand } from "./verbs/info.js";

/**
 * What a comment asks for: not a command, a parse error, a refusal, or the command of one verb module of
 * the table. `requiresPermission` is false only for `help` and `status`; `ignore` has none.
 */
export type ParsedCommand =
  IgnoreCommand | ErrorCommand | RefusalCommand | CommandOf<(typeof VERB_TABLE)[number]["module"]>;
/**
 * The schema of {@link ParsedCommand}, so a parsed command can be re-validated after a trip through a
 * queue (JSON in Redis): the union of the shared shapes and every module's schema.
 */
export const ParsedCommand = z.union([
  IgnoreCommand,
  ErrorCommand,
  RefusalCommand,
  ...VERB_MODULES.map((m) => m.schema),
]) as unknown as z.ZodType<ParsedCommand>;

/** Options of {@link parseCommand}. */
export interface ParseOptions {
  /** two-letter prefix used in the example label of syntax hints (default `SC`) */
  labelPrefix?: string;
}

const IGNORE: ParsedCommand = { kind: "ignore" };
const VERB_TOKEN = /^\/[A-Za-z][A-Za-z-]*$/;

/**
 * Parses a comment body into a command. Total: never throws, whatever the input.
 *
 * Rules:
 * - The command is the first line that is not blank, not quoted with `>`, not inside a fenced code
 *   block (``` or ~~~) and not an indented code line; a quoted earlier command therefore never re-runs.
 *   If that line does not start with a `/word`, the result is `{ kind: "ignore" }`.
 * - Verbs are those of the verb table (`./table.ts`), case-insensitive, aliases allowed
 *   (`/fp` = `/false-positive`, `/wont-fix` = `/wontfix`).
 * - `reply` form: the finding verbs and `/help`. A line starting with `/diffward` is read with the
 *   conversation grammar in either form.
 * - `conversation` form: `/diffward <verb> <finding label or id> [args]` for the finding verbs, plus the
 *   pull-request verbs and `help`. A verb of two words (`publish scan`, `areas add`) is matched before its
 *   first word alone. Other comments are ignored; `/diffward` alone is help.
 * - Free text (note, resolution text, `/in-progress`/`/reopen` text, text after a severity level) is the
 *   rest of the command line joined by a newline with the rest of the body.
 * - Each verb's arguments are read by its module (`parse`), e.g. the reason-versus-note rule of the
 *   resolution verbs (`./verbs/resolution.ts`).
 * - Unknown `/verb` → `{ kind: "help", unknown }`.
 *
 * @param body - the comment body as GitHub sends it (Markdown, any line endings).
 * @param form - where the comment was written.
 * @returns a {@link ParsedCommand}; it satisfies the `ParsedCommand` schema.
 */
export function parseCommand(body: string, form: CommandForm, options: ParseOptions = {}): ParsedCommand {
  try {
    return parseUnsafe(typeof body === "string" ? body : "", form, options.labelPrefix ?? "SC");
  } catch {
    // Defensive: the parser has no known throwing path; a bug must not crash a webhook handler.
    return IGNORE;
  }
}

interface Located {
  line: string;
  rest: string;
}

/** Finds the command line: the first meaningful line outside quotes and code. */
export function findCommandLine(body: string): Located | undefined {
  const lines = body.split(/\r\n|\r|\n/);
  let fence: { char: string; len: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(raw);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.len) fence = undefined;
      continue;
    }
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
    if (open) {
      fence = { char: open[1]![0]!, len: open[1]!.length };
      continue;
    }
    const t = raw.trim();
    if (t === "") continue;
    if (/^ {0,3}>/.test(raw)) continue;
    if (/^( {4}|\t)/.test(raw)) continue; // indented code block
    if (/^<!--.*-->$/.test(t)) continue; // a one-line HTML comment (hidden markers)
    return { line: t, rest: lines.slice(i + 1).join("\n") };
  }
  return undefined;
}

function parseUnsafe(body: string, form: CommandForm, prefix: string): ParsedCommand {
  const located = findCommandLine(body);
  if (!located) return IGNORE;
  const { line, rest } = located;
  const first = /^\S+/.exec(line)?.[0] ?? "";
  const afterFirst = line.slice(first.length).trim();
  if (first.toLowerCase() === CONVERSATION_PREFIX) return parseConversation(afterFirst, rest, prefix);
  if (form === "conversation") return IGNORE;
  if (!VERB_TOKEN.test(first)) return IGNORE;
  const typed = first.slice(1);
  const verb = canonicalVerb(typed);
  if (!verb || !verbAllowedIn(verb, "reply")) return helpCommand(typed.toLowerCase());
  return parseVerb(verb, "reply", undefined, afterFirst, rest, prefix);
}

function parseConversation(args: string, rest: string, prefix: string): ParsedCommand {
  const typed = /^\S+/.exec(args)?.[0];
  if (!typed) return helpCommand();
  // A two-word verb of the table (`publish scan`, `areas add`) wins over its first word.
  const two = /^(\S+)\s+(\S+)/.exec(args);
  const pair = two ? canonicalVerb(`${two[1]} ${two[2]}`) : undefined;
  if (two && pair)
    return parseVerb(pair, "conversation", undefined, args.slice(two[0].length).trim(), rest, prefix);
  const verb = canonicalVerb(typed);
  if (!verb) return helpCommand(typed.toLowerCase().slice(0, MAX_ECHO_LENGTH));
  const afterVerb = args.slice(typed.length).trim();
  if (!isFindingVerb(verb)) return parseVerb(verb, "conversation", undefined, afterVerb, rest, prefix);

  const token = /^\S+/.exec(afterVerb)?.[0];
  const syntax = `\`${verbSyntax(verb, "conversation", prefix)}\``;
  if (!token) {
    return commandError(
      verb,
      "missing_finding_ref",
      `\`/diffward ${verb}\` needs a finding label or id: ${syntax}.`,
    );
  }
  const bare = token.replace(/^`+|`+$/g, "");
  const lower = bare.toLowerCase();
  const looksLikeArg =
    ALL_REASON_CODES.includes(lower) || (SEVERITY_WORDS as readonly string[]).includes(lower);
  const ref = looksLikeArg ? undefined : parseFindingRef(bare);
  if (!ref) {
    const why = looksLikeArg
      ? `\`${echo(bare)}\` is an argument, not a finding`
      : `\`${echo(bare)}\` is not a finding label or id`;
    return commandError(
      verb,
      looksLikeArg ? "missing_finding_ref" : "invalid_finding_ref",
      `${why}. Use ${syntax}.`,
    );
  }
  return parseVerb(verb, "conversation", ref, afterVerb.slice(token.length).trim(), rest, prefix);
}

function parseVerb(
  verb: Verb,
  form: CommandForm,
  ref: FindingRef | undefined,
  args: string,
  rest: string,
  prefix: string,
): ParsedCommand {
  const row = verbRow(verb);
  if (!row) return helpCommand(verb);
  const syntax = `\`${verbSyntax(verb, form, prefix)}\``;
  return row.module.parse({ verb, form, ref, args, rest, syntax }) as ParsedCommand;
}
