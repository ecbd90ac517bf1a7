/**
 * The verb table: ONE list that drives parsing (which words are verbs, their aliases, whether they name a
 * finding), dispatch (which module runs a parsed command) and the help text (syntax and purpose of each
 * verb, in this order). See `README.md` in this folder for the recipe of a new verb.
 */
import { z } from "zod";
import type { CommandForm } from "../domain/command-form.js";
import { CONVERSATION_PREFIX } from "../domain/command-form.js";
import { MAX_NOTE_LENGTH } from "./verb-parts.js";
import type { AnyVerbModule } from "./verb-module.js";
import { resolutionVerb } from "./verbs/resolution.js";
import { approvalVerb } from "./verbs/approval.js";
import { severityVerb } from "./verbs/severity.js";
import { noteVerb } from "./verbs/note.js";
import { publishScanVerb, publishVerb } from "./verbs/publish.js";
import { areasAddVerb, areasRemoveVerb } from "./verbs/areas.js";
import { cancelVerb, rescanVerb } from "./verbs/scan.js";
import { areasVerb, creditsVerb, guidanceVerb, helpVerb, statusVerb } from "./verbs/info.js";

/**
 * Where a verb may be written and what it names:
 * - `finding`: acts on one finding; reply form (`/verb` in the finding's thread) and conversation form
 *   (`/diffward verb <label or id>`);
 * - `pull-request`: about the whole pull request; conversation form only (`/diffward verb`);
 * - `help`: both forms.
 */
export type VerbScope = "finding" | "pull-request" | "help";

/** One row of the verb table. */
export interface VerbRow {
  /** the canonical verb, lower case */
  verb: string;
  /** other accepted spellings (matched case-insensitively) */
  aliases?: readonly string[];
  scope: VerbScope;
  /** the arguments after the verb (and the finding), as shown in help and error messages */
  args: string;
  /** what the verb does, as shown in help */
  what: string;
  /** the module that parses, plans and applies it (`./verbs/*.ts`) */
  module: AnyVerbModule;
}

/** Every verb diffward knows, in the order help lists them. */
export const VERB_TABLE = [
  {
    verb: "resolve",
    scope: "finding",
    args: "[reason code or text]",
    what: "mark the finding fixed",
    module: resolutionVerb,
  },
  {
    verb: "mitigate",
    scope: "finding",
    args: "[reason code or text] [until <YYYY-MM-DD or date-time> | for <N>d]",
    what: "risk reduced, not fixed; with `until`/`for`, only until then (as `wontfix`)",
    module: resolutionVerb,
  },
  {
    verb: "wontfix",
    aliases: ["wont-fix"],
    scope: "finding",
    args: "[reason code or text] [until <YYYY-MM-DD or date-time> | for <N>d]",
    what: "accepted as is; with `until`/`for`, only until then (a date alone: the end of that day, UTC; at most `triage.maxAcceptanceDays` ahead, a past or unreadable date is refused)",
    module: resolutionVerb,
  },
  {
    verb: "false-positive",
    aliases: ["fp"],
    scope: "finding",
    args: "[reason code or text]",
    what: "not a real problem",
    module: resolutionVerb,
  },
  {
    verb: "duplicate",
    scope: "finding",
    args: "[reason code or text]",
    what: "already reported",
    module: resolutionVerb,
  },
  {
    verb: "in-progress",
    aliases: ["inprogress"],
    scope: "finding",
    args: "[text]",
    what: "someone is working on it; the text is added as a note",
    module: resolutionVerb,
  },
  {
    verb: "reopen",
    scope: "finding",
    args: "[text]",
    what: "back to not started; the text is added as a note",
    module: resolutionVerb,
  },
  {
    verb: "approve",
    scope: "finding",
    args: "[text]",
    what: "approve a dismissal awaiting a second person (`triage.approval`); not by its requester",
    module: approvalVerb,
  },
  {
    verb: "reject",
    scope: "finding",
    args: "",
    what: "drop a dismissal awaiting approval (its requester or an approver)",
    module: approvalVerb,
  },
  {
    verb: "severity",
    scope: "finding",
    args: "critical|high|medium|low|info|reset",
    what: "override the severity; `reset` restores the service's own",
    module: severityVerb,
  },
  {
    verb: "note",
    scope: "finding",
    args: "<markdown>",
    what: `add a Markdown note (up to ${MAX_NOTE_LENGTH.toLocaleString("en-US")} characters)`,
    module: noteVerb,
  },
  {
    verb: "publish",
    scope: "finding",
    args: "",
    what: "publish the finding as a public artifact",
    module: publishVerb,
  },
  {
    verb: "rescan",
    scope: "pull-request",
    args: "[preset=<ref>] [budget=<credits>]",
    what: "scan the pull request again (budget in credits)",
    module: rescanVerb,
  },
  { verb: "cancel", scope: "pull-request", args: "", what: "cancel the running scan", module: cancelVerb },
  { verb: "status", scope: "pull-request", args: "", what: "show the scan state", module: statusVerb },
  { verb: "credits", scope: "pull-request", args: "", what: "show the credit balance", module: creditsVerb },
  {
    verb: "publish scan",
    scope: "pull-request",
    args: "",
    what: "publish the pull request's last reported scan as a public artifact (never with an access password)",
    module: publishScanVerb,
  },
  {
    verb: "guidance",
    scope: "pull-request",
    args: "",
    what: "show which guidance layers apply: the committed file, the stored guidance (size, latest revision)",
    module: guidanceVerb,
  },
  {
    verb: "areas",
    scope: "pull-request",
    args: "",
    what: "list the repository's audit areas",
    module: areasVerb,
  },
  {
    verb: "areas add",
    scope: "pull-request",
    args: "<name>: <description>",
    what: "add a custom audit area (needs the service token's `guidance:write`)",
    module: areasAddVerb,
  },
  {
    verb: "areas remove",
    scope: "pull-request",
    args: "<key>",
    what: "remove a custom audit area (discovered areas cannot be removed)",
    module: areasRemoveVerb,
  },
  { verb: "help", scope: "help", args: "", what: "show this help", module: helpVerb },
] as const satisfies readonly VerbRow[];

/** Every canonical verb. */
export type Verb = (typeof VERB_TABLE)[number]["verb"];
/** Every canonical verb, as a schema. */
export const Verb = z.enum(VERB_TABLE.map((r) => r.verb) as [Verb, ...Verb[]]);

const ROWS: ReadonlyMap<string, VerbRow> = new Map(VERB_TABLE.map((r) => [r.verb, r]));

/** Verbs that act on one finding (in the conversation form they need a finding label or id). */
export const FINDING_VERBS: readonly Verb[] = VERB_TABLE.filter((r) => r.scope === "finding").map(
  (r) => r.verb,
);
/** Verbs about the whole pull request; conversation form only (`/diffward <verb>`). */
export const PULL_REQUEST_VERBS: readonly Verb[] = VERB_TABLE.filter((r) => r.scope === "pull-request").map(
  (r) => r.verb,
);

/** Accepted spellings that map to a canonical verb (matched case-insensitively). */
export const VERB_ALIASES: Readonly<Record<string, Verb>> = Object.fromEntries(
  VERB_TABLE.flatMap((r: VerbRow) => (r.aliases ?? []).map((a) => [a, r.verb as Verb])),
);

/** The table row of a canonical verb. */
export function verbRow(verb: string): VerbRow | undefined {
  return ROWS.get(verb);
}

/** Resolves a typed verb (any case, aliases allowed) to its canonical name, or `undefined`. */
export function canonicalVerb(typed: string): Verb | undefined {
  const v = typed.toLowerCase();
  const alias = VERB_ALIASES[v];
  if (alias) return alias;
  return ROWS.has(v) ? (v as Verb) : undefined;
}

/** True for the verbs that name one finding. */
export function isFindingVerb(verb: string): boolean {
  return ROWS.get(verb)?.scope === "finding";
}

/** True when `verb` may be written in `form` (pull-request verbs only in the conversation form). */
export function verbAllowedIn(verb: string, form: CommandForm): boolean {
  const scope = ROWS.get(verb)?.scope;
  return scope !== undefined && (form === "conversation" || scope !== "pull-request");
}

/**
 * The syntax line of a verb in a form, e.g. `/resolve [reason code or text]` (reply) or
 * `/diffward resolve SC-1a2b3c4d [reason code or text]` (conversation).
 *
 * @param labelPrefix - the two-letter label prefix shown in the example label (`SCANNER_LABEL_PREFIX`).
 */
export function verbSyntax(verb: string, form: CommandForm, labelPrefix = "SC"): string {
  const args = ROWS.get(verb)?.args ?? "";
  if (form === "reply") return [`/${verb}`, args].filter(Boolean).join(" ");
  const ref = isFindingVerb(verb) ? `${labelPrefix}-1a2b3c4d` : "";
  return [CONVERSATION_PREFIX, verb, ref, args].filter(Boolean).join(" ");
}

/**
 * The module that runs a parsed command of `kind` (the dispatch of the command job).
 * @throws Error for a kind no row registers (a bug: the parser only makes registered kinds).
 */
export function moduleFor(kind: string): AnyVerbModule {
  const row = VERB_TABLE.find((r: VerbRow) => r.module.kind === kind);
  if (!row) throw new Error(`no verb module for command kind ${kind}`);
  return row.module;
}

/** Every distinct verb module of the table, in table order. */
export const VERB_MODULES: readonly AnyVerbModule[] = [...new Set(VERB_TABLE.map((r: VerbRow) => r.module))];
