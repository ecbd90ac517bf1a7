/**
 * The slash-command parser: a total, pure function from a comment body to a {@link ParsedCommand}.
 * It decides nothing about permissions or the service; it only says what the comment asks for, with the
 * exact fields of the request that follows (spec "Endpoints → Findings": notes, severity, resolution,
 * publish; "Endpoints → Scans": launch, cancel).
 */
import { z } from "zod";
import { checkReason, RESOLUTION_STATUSES, SEVERITIES, ALL_REASON_CODES } from "../scanner/catalog.js";
import type { ResolutionStatus } from "../scanner/catalog.js";
import { parseFindingRef } from "../scanner/labels.js";
import type { FindingRef } from "../scanner/labels.js";
import {
  CONVERSATION_PREFIX,
  RESOLUTION_VERBS,
  Verb,
  canonicalVerb,
  isFindingVerb,
  isResolutionVerb,
  verbSyntax,
} from "./verbs.js";
import type { CommandForm } from "./verbs.js";

/** Longest note content diffward sends, in characters (Unicode code points). Longer → `note_too_long`. */
export const MAX_NOTE_LENGTH = 20_000;
/** Largest `budget=` accepted by `/diffward rescan`, in credits. */
export const MAX_RESCAN_BUDGET = 1_000_000_000;
/** Longest `preset=` value accepted by `/diffward rescan`, in characters. */
export const MAX_PRESET_REF_LENGTH = 200;

/** The words `/severity` takes; `reset` clears the override (spec: severity `null`). */
export const SEVERITY_WORDS = ["critical", "high", "medium", "low", "info", "reset"] as const;

const Status = z.enum(RESOLUTION_STATUSES);
const SeverityValue = z.enum(SEVERITIES);

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

/** Why a command could not be turned into a request. */
export const CommandErrorCode = z.enum([
  /** a required argument is missing (`/note` without text, `/severity` without a level) */
  "missing_argument",
  /** `/severity` with a word that is not a level */
  "invalid_severity",
  /** conversation form without a finding label or id */
  "missing_finding_ref",
  /** conversation form with something that is not a label or id */
  "invalid_finding_ref",
  /** note text longer than {@link MAX_NOTE_LENGTH} */
  "note_too_long",
  /** a malformed `key=value` argument (`budget=abc`) */
  "invalid_argument",
  /** an argument the verb does not take */
  "unexpected_argument",
]);
export type CommandErrorCode = z.infer<typeof CommandErrorCode>;

const finding = { ref: CommandFindingRef.optional() };
const needsPermission = { requiresPermission: z.literal(true) };
const noteText = z
  .string()
  .min(1)
  .max(MAX_NOTE_LENGTH * 2); // code units; the code-point cap is enforced by the parser

/** Not a command: post nothing. */
export const IgnoreCommand = z.object({ kind: z.literal("ignore") });
/** Show help; `unknown` is the verb the user typed when it was not recognised. */
export const HelpCommand = z.object({
  kind: z.literal("help"),
  verb: z.literal("help"),
  requiresPermission: z.literal(false),
  unknown: z.string().optional(),
});
/** A recognised command with bad arguments: answer `message` and change nothing. */
export const ErrorCommand = z.object({
  kind: z.literal("error"),
  verb: Verb,
  requiresPermission: z.boolean(),
  code: CommandErrorCode,
  /** user-facing text: what was wrong and the right syntax (contains user text: escape before posting) */
  message: z.string(),
  /** the valid values, when the error is about a choice (severity levels) */
  validValues: z.array(z.string()).optional(),
});
/**
 * A reason code from another status's catalog (spec resolution rule 4). Nothing must be changed;
 * answer with `validCodes`, the codes of `status`.
 */
export const RefusalCommand = z.object({
  kind: z.literal("refusal"),
  verb: Verb,
  ...needsPermission,
  ...finding,
  status: Status,
  reasonCode: z.string(),
  belongsTo: Status,
  validCodes: z.array(z.string()),
  message: z.string(),
});
/**
 * `PATCH …/findings/{findingId}/resolution` with `resolutionStatus: status` and at most one of `reason`
 * or `note.content` (rule 1); `extraNote` is posted separately with `POST …/notes` (rule 2: the service
 * ignores note and reason for `NOT_STARTED`/`IN_PROGRESS`). `reasonCode` is for display only: the code
 * the note states when the user gave a code and text.
 */
export const ResolutionCommand = z.object({
  kind: z.literal("resolution"),
  verb: Verb,
  ...needsPermission,
  ...finding,
  status: Status,
  reason: z.string().optional(),
  note: noteText.optional(),
  extraNote: noteText.optional(),
  reasonCode: z.string().optional(),
});
/** `PATCH …/severity` with `severity` (`null` clears the override); `extraNote` → `POST …/notes`. */
export const SeverityCommand = z.object({
  kind: z.literal("severity"),
  verb: z.literal("severity"),
  ...needsPermission,
  ...finding,
  severity: SeverityValue.nullable(),
  extraNote: noteText.optional(),
});
/** `POST …/notes` with `content`. */
export const NoteCommand = z.object({
  kind: z.literal("note"),
  verb: z.literal("note"),
  ...needsPermission,
  ...finding,
  content: noteText,
});
/** `POST …/findings/{findingId}/publish`. */
export const PublishCommand = z.object({
  kind: z.literal("publish"),
  verb: z.literal("publish"),
  ...needsPermission,
  ...finding,
});
/** A new diff scan of the pull request head: `presetRef` and `creditBudget` (credits) when given. */
export const RescanCommand = z.object({
  kind: z.literal("rescan"),
  verb: z.literal("rescan"),
  ...needsPermission,
  preset: z.string().min(1).max(MAX_PRESET_REF_LENGTH).optional(),
  budget: z.int().min(1).max(MAX_RESCAN_BUDGET).optional(),
});
/** `POST …/scans/{scanId}/cancel` for the pull request's running scan. */
export const CancelCommand = z.object({
  kind: z.literal("cancel"),
  verb: z.literal("cancel"),
  ...needsPermission,
});
/** Report the pull request's scan state (anyone may ask). */
export const StatusCommand = z.object({
  kind: z.literal("status"),
  verb: z.literal("status"),
  requiresPermission: z.literal(false),
});
/** `GET …/billing/balance` (and usage) for the project. */
export const CreditsCommand = z.object({
  kind: z.literal("credits"),
  verb: z.literal("credits"),
  ...needsPermission,
});
/** Show the guidance layers that apply to the pull request. */
export const GuidanceCommand = z.object({
  kind: z.literal("guidance"),
  verb: z.literal("guidance"),
  ...needsPermission,
});
/** `GET …/audit-areas` for the repository. */
export const AreasCommand = z.object({
  kind: z.literal("areas"),
  verb: z.literal("areas"),
  ...needsPermission,
});

/**
 * What a comment asks for. A zod schema so a parsed command can be re-validated after a trip through a
 * queue (JSON in Redis). `requiresPermission` is false only for `help` and `status`; `ignore` has none.
 */
export const ParsedCommand = z.discriminatedUnion("kind", [
  IgnoreCommand,
  HelpCommand,
  ErrorCommand,
  RefusalCommand,
  ResolutionCommand,
  SeverityCommand,
  NoteCommand,
  PublishCommand,
  RescanCommand,
  CancelCommand,
  StatusCommand,
  CreditsCommand,
  GuidanceCommand,
  AreasCommand,
]);
export type ParsedCommand = z.infer<typeof ParsedCommand>;
export type ResolutionCommand = z.infer<typeof ResolutionCommand>;
export type ErrorCommand = z.infer<typeof ErrorCommand>;
export type RefusalCommand = z.infer<typeof RefusalCommand>;

/** Options of {@link parseCommand}. */
export interface ParseOptions {
  /** two-letter prefix used in the example label of syntax hints (default `SC`) */
  labelPrefix?: string;
}

const IGNORE: ParsedCommand = { kind: "ignore" };
const VERB_TOKEN = /^\/[A-Za-z][A-Za-z-]*$/;
const MAX_ECHO = 60;

/**
 * Parses a comment body into a command. Total: never throws, whatever the input.
 *
 * Rules:
 * - The command is the first line that is not blank, not quoted with `>`, not inside a fenced code
 *   block (``` or ~~~) and not an indented code line; a quoted earlier command therefore never re-runs.
 *   If that line does not start with a `/word`, the result is `{ kind: "ignore" }`.
 * - Verbs are case-insensitive; `/fp` = `/false-positive`, `/wont-fix` = `/wontfix`.
 * - `reply` form: `/resolve`, `/mitigate`, `/wontfix`, `/false-positive`, `/duplicate`, `/in-progress`,
 *   `/reopen`, `/severity`, `/note`, `/publish`, `/help`. A line starting with `/diffward` is read with
 *   the conversation grammar in either form.
 * - `conversation` form: `/diffward <verb> <finding label or id> [args]` for the finding verbs, plus
 *   `rescan [preset=<ref>] [budget=<n>]`, `cancel`, `status`, `credits`, `guidance`, `areas`, `help`.
 *   Other comments are ignored; `/diffward` alone is help.
 * - Free text (note, resolution text, `/in-progress`/`/reopen` text, text after a severity level) is the
 *   rest of the command line joined by a newline with the rest of the body.
 * - Resolution text: a lone reason code of the status's catalog → `reason`; a code of another status's
 *   catalog (alone, or written with `_` and followed by text) → `refusal` (spec resolution rule 4); a
 *   valid code followed by text → `note` "Reason: `code`. text" and `reasonCode`; any other text → `note`.
 *   `NOT_STARTED`/`IN_PROGRESS` never carry `reason` or `note` (rule 2): their text is `extraNote`.
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
  if (!verb || !(isFindingVerb(verb) || verb === "help")) return help(typed.toLowerCase());
  return parseVerb(verb, "reply", undefined, afterFirst, rest, prefix);
}

function parseConversation(args: string, rest: string, prefix: string): ParsedCommand {
  const typed = /^\S+/.exec(args)?.[0];
  if (!typed) return help();
  const verb = canonicalVerb(typed);
  if (!verb) return help(typed.toLowerCase().slice(0, MAX_ECHO));
  const afterVerb = args.slice(typed.length).trim();
  if (!isFindingVerb(verb)) return parseVerb(verb, "conversation", undefined, afterVerb, rest, prefix);

  const token = /^\S+/.exec(afterVerb)?.[0];
  const syntax = `\`${verbSyntax(verb, "conversation", prefix)}\``;
  if (!token) {
    return error(
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
    return error(
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
  const r = ref ? { ref } : {};
  const text = joinText(args, rest);
  const syntax = `\`${verbSyntax(verb, form, prefix)}\``;
  if (isResolutionVerb(verb)) return parseResolution(verb, RESOLUTION_VERBS[verb], r, text);
  switch (verb) {
    case "help":
      return help();
    case "severity":
      return parseSeverity(r, text, syntax);
    case "note": {
      if (!text) return error("note", "missing_argument", `\`/note\` needs text: ${syntax}.`);
      return (
        capped("note", text) ?? { kind: "note", verb: "note", requiresPermission: true, ...r, content: text }
      );
    }
    case "publish":
      if (args) return unexpected(verb, args, syntax);
      return { kind: "publish", verb: "publish", requiresPermission: true, ...r };
    case "rescan":
      return parseRescan(args, syntax);
    case "status":
      // like help, status is read-only and open to anyone: trailing words are ignored
      return { kind: "status", verb: "status", requiresPermission: false };
    case "cancel":
    case "credits":
    case "guidance":
    case "areas":
      if (args) return unexpected(verb, args, syntax);
      return { kind: verb, verb, requiresPermission: true } as ParsedCommand;
    default:
      return help(verb);
  }
}

function parseResolution(
  verb: Verb,
  status: ResolutionStatus,
  r: { ref?: FindingRef },
  text: string,
): ParsedCommand {
  const base = { kind: "resolution" as const, verb, requiresPermission: true as const, ...r, status };
  if (!text) return base;
  const tooLong = capped(verb, text);
  if (status === "NOT_STARTED" || status === "IN_PROGRESS") return tooLong ?? { ...base, extraNote: text };

  const word = /^\S+/.exec(text)![0];
  const after = text.slice(word.length).trim();
  const code = normalizeCode(word);
  const check = code ? checkReason(status, code) : undefined;
  if (code && check?.ok) {
    if (!after) return { ...base, reason: code };
    const note = `Reason: \`${code}\`. ${after}`;
    return capped(verb, note) ?? { ...base, note, reasonCode: code };
  }
  if (code && check && !check.ok && check.belongsTo && (!after || word.includes("_"))) {
    return {
      kind: "refusal",
      verb,
      requiresPermission: true,
      ...r,
      status,
      reasonCode: code,
      belongsTo: check.belongsTo,
      validCodes: [...check.validCodes],
      message:
        `\`${code}\` is a reason for ${check.belongsTo}, not for ${status}; nothing was changed. ` +
        `Reasons for ${status}: ${check.validCodes.map((c) => `\`${c}\``).join(", ")}.`,
    };
  }
  return tooLong ?? { ...base, note: text };
}

function parseSeverity(r: { ref?: FindingRef }, text: string, syntax: string): ParsedCommand {
  const valid = [...SEVERITY_WORDS];
  const word = /^\S+/.exec(text)?.[0];
  if (!word) {
    return {
      ...error("severity", "missing_argument", `\`/severity\` needs a level: ${syntax}.`),
      validValues: valid,
    };
  }
  const level = word.toLowerCase().replace(/^`+|`+$/g, "");
  if (!(valid as string[]).includes(level)) {
    return {
      ...error(
        "severity",
        "invalid_severity",
        `\`${echo(word)}\` is not a severity level. Use one of ${valid.map((v) => `\`${v}\``).join(", ")}: ${syntax}.`,
      ),
      validValues: valid,
    };
  }
  const severity = level === "reset" ? null : SeverityValue.parse(level.toUpperCase());
  const extra = text.slice(word.length).trim();
  const cmd: ParsedCommand = { kind: "severity", verb: "severity", requiresPermission: true, ...r, severity };
  if (!extra) return cmd;
  return capped("severity", extra) ?? { ...cmd, extraNote: extra };
}

function parseRescan(args: string, syntax: string): ParsedCommand {
  const out: { preset?: string; budget?: number } = {};
  for (const token of args.split(/\s+/).filter(Boolean)) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(token);
    const key = m?.[1]?.toLowerCase();
    const value = m?.[2] ?? "";
    if (key === "preset" && out.preset === undefined) {
      if (!value || value.length > MAX_PRESET_REF_LENGTH) {
        return error("rescan", "invalid_argument", `\`preset=\` needs a preset ref: ${syntax}.`);
      }
      out.preset = value;
    } else if (key === "budget" && out.budget === undefined) {
      const n = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
      if (!Number.isSafeInteger(n) || n < 1 || n > MAX_RESCAN_BUDGET) {
        return error(
          "rescan",
          "invalid_argument",
          `\`budget=${echo(value)}\` is not a credit budget: use a whole number of credits from 1 to ${MAX_RESCAN_BUDGET}: ${syntax}.`,
        );
      }
      out.budget = n;
    } else {
      return unexpected("rescan", token, syntax);
    }
  }
  return { kind: "rescan", verb: "rescan", requiresPermission: true, ...out };
}

/** Lower-cases a typed code, strips backticks and trailing punctuation, maps `-` to `_`. */
function normalizeCode(word: string): string | undefined {
  const w = word
    .replace(/^`+|`+$/g, "")
    .replace(/[.,;:!]+$/, "")
    .replace(/^`+|`+$/g, "")
    .toLowerCase()
    .replace(/-/g, "_");
  return /^[a-z_]+$/.test(w) ? w : undefined;
}

function joinText(args: string, rest: string): string {
  return [args.trim(), rest.trim()].filter(Boolean).join("\n");
}

function capped(verb: Verb, text: string): ErrorCommand | undefined {
  const length = [...text].length;
  if (length <= MAX_NOTE_LENGTH) return undefined;
  return error(
    verb,
    "note_too_long",
    `The note is ${length} characters long; the limit is ${MAX_NOTE_LENGTH}. Shorten it and try again.`,
  );
}

function unexpected(verb: Verb, got: string, syntax: string): ErrorCommand {
  return error(verb, "unexpected_argument", `\`/${verb}\` does not take \`${echo(got)}\`: ${syntax}.`);
}

function error(verb: Verb, code: CommandErrorCode, message: string, requiresPermission = true): ErrorCommand {
  return { kind: "error", verb, requiresPermission, code, message };
}

function help(unknown?: string): ParsedCommand {
  return unknown === undefined
    ? { kind: "help", verb: "help", requiresPermission: false }
    : { kind: "help", verb: "help", requiresPermission: false, unknown: unknown.slice(0, MAX_ECHO) };
}

function echo(text: string): string {
  const t = text.replace(/`/g, "'");
  return t.length > MAX_ECHO ? `${t.slice(0, MAX_ECHO)}…` : t;
}
