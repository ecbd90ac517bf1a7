/**
 * The slash-command vocabulary of diffward: verbs, aliases, which resolution status each resolution verb
 * sets, and the syntax line shown in help and error messages.
 */
import { z } from "zod";
import type { ResolutionStatus } from "../scanner/catalog.js";

/** The two places a command can be written. */
export const CommandForm = z.enum(["reply", "conversation"]);
/**
 * `reply`: a reply in the review thread of a finding comment (the finding is known from the thread).
 * `conversation`: a pull-request conversation comment, `/diffward <verb> <finding> [args]`.
 */
export type CommandForm = z.infer<typeof CommandForm>;

/**
 * Resolution verbs and the `resolutionStatus` each sets (spec "States and transitions → Finding
 * resolutionStatus"). `/reopen` sets `NOT_STARTED`.
 */
export const RESOLUTION_VERBS = {
  resolve: "RESOLVED",
  mitigate: "MITIGATED",
  wontfix: "WONT_FIX",
  "false-positive": "FALSE_POSITIVE",
  duplicate: "DUPLICATE",
  "in-progress": "IN_PROGRESS",
  reopen: "NOT_STARTED",
} as const satisfies Record<string, ResolutionStatus>;
export type ResolutionVerb = keyof typeof RESOLUTION_VERBS;

/** Verbs that act on one finding (in the conversation form they need a finding label or id). */
export const FINDING_VERBS = [
  ...(Object.keys(RESOLUTION_VERBS) as ResolutionVerb[]),
  "severity",
  "note",
  "publish",
] as const;

/** Verbs about the whole pull request; conversation form only (`/diffward <verb>`). */
export const PULL_REQUEST_VERBS = ["rescan", "cancel", "status", "credits", "guidance", "areas"] as const;

/** Every canonical verb. */
export const Verb = z.enum([...FINDING_VERBS, ...PULL_REQUEST_VERBS, "help"]);
export type Verb = z.infer<typeof Verb>;

/** Accepted spellings that map to a canonical verb (matched case-insensitively). */
export const VERB_ALIASES: Readonly<Record<string, Verb>> = {
  fp: "false-positive",
  "wont-fix": "wontfix",
  inprogress: "in-progress",
};

/** The word that starts every conversation-form command. */
export const CONVERSATION_PREFIX = "/diffward";

/** Resolves a typed verb (any case, aliases allowed) to its canonical name, or `undefined`. */
export function canonicalVerb(typed: string): Verb | undefined {
  const v = typed.toLowerCase();
  const alias = VERB_ALIASES[v];
  if (alias) return alias;
  const parsed = Verb.safeParse(v);
  return parsed.success ? parsed.data : undefined;
}

/** True for the verbs that set a resolution status. */
export function isResolutionVerb(verb: Verb): verb is ResolutionVerb {
  return Object.prototype.hasOwnProperty.call(RESOLUTION_VERBS, verb);
}

/** True for the verbs that name one finding. */
export function isFindingVerb(verb: Verb): boolean {
  return (FINDING_VERBS as readonly string[]).includes(verb);
}

const ARGS: Record<Verb, string> = {
  resolve: "[reason code or text]",
  mitigate: "[reason code or text]",
  wontfix: "[reason code or text]",
  "false-positive": "[reason code or text]",
  duplicate: "[reason code or text]",
  "in-progress": "[text]",
  reopen: "[text]",
  severity: "critical|high|medium|low|info|reset",
  note: "<markdown>",
  publish: "",
  help: "",
  rescan: "[preset=<ref>] [budget=<credits>]",
  cancel: "",
  status: "",
  credits: "",
  guidance: "",
  areas: "",
};

/**
 * The syntax line of a verb in a form, e.g. `/resolve [reason code or text]` (reply) or
 * `/diffward resolve SC-1a2b3c4d [reason code or text]` (conversation).
 *
 * @param labelPrefix - the two-letter label prefix shown in the example label (`SCANNER_LABEL_PREFIX`).
 */
export function verbSyntax(verb: Verb, form: CommandForm, labelPrefix = "SC"): string {
  const args = ARGS[verb];
  if (form === "reply") return [`/${verb}`, args].filter(Boolean).join(" ");
  const ref = isFindingVerb(verb) ? `${labelPrefix}-1a2b3c4d` : "";
  return [CONVERSATION_PREFIX, verb, ref, args].filter(Boolean).join(" ");
}
