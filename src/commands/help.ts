/**
 * The help text of the slash commands, generated from the verb table (`./table.ts`: syntax, purpose and
 * aliases of each verb, in table order) and the reason catalog, so it never drifts from what the parser
 * accepts.
 */
import { statusName } from "../render/glossary.js";
import { reasonCodesFor } from "../scanner/catalog.js";
import type { ResolutionStatus } from "../scanner/catalog.js";
import { DEFAULT_LABEL_PREFIX } from "../scanner/labels.js";
import type { CommandForm } from "../domain/command-form.js";
import { VERB_TABLE, verbAllowedIn, verbSyntax, type VerbRow } from "./table.js";
import { RESOLUTION_VERBS, type ResolutionVerb } from "./verbs/resolution.js";

/** Options of {@link renderHelp}. */
export interface HelpOptions {
  /** two-letter label prefix shown in examples (`SCANNER_LABEL_PREFIX`, default `SC`) */
  labelPrefix?: string;
  /** the verb the user typed that was not recognised; shown first when given (escaped) */
  unknown?: string;
}

/**
 * Renders the command list as Markdown for `form`: one line per verb with its syntax and purpose, then the
 * reason codes each resolution status accepts (spec §Findings, `PATCH …/resolution` reason-code table, read
 * from `REASON_CATALOG`).
 *
 * @param form - `reply` (inside a finding's review thread) or `conversation` (`/diffward …`).
 * @returns Markdown, well under GitHub's 65,536-character comment limit.
 */
export function renderHelp(form: CommandForm, options: HelpOptions = {}): string {
  const prefix = options.labelPrefix ?? DEFAULT_LABEL_PREFIX;
  const parts: string[] = [];
  if (options.unknown !== undefined) {
    parts.push(
      `Unknown command \`${sanitize(options.unknown)}\`. These are the commands diffward knows:`,
      "",
    );
  }
  parts.push(
    form === "reply"
      ? "**diffward commands** (reply to a finding comment; the first line is the command):"
      : `**diffward commands** (in a pull request comment; name the finding by its label, e.g. \`${prefix}-1a2b3c4d\`, or its id):`,
    "",
  );
  for (const row of VERB_TABLE as readonly VerbRow[]) {
    if (!verbAllowedIn(row.verb, form)) continue;
    const aliases = (row.aliases ?? []).map((a) => (form === "reply" ? `\`/${a}\`` : `\`${a}\``));
    const alias = aliases.length ? ` (also ${aliases.join(", ")})` : "";
    parts.push(`- \`${verbSyntax(row.verb, form, prefix)}\`: ${row.what}${alias}`);
  }
  parts.push(
    "",
    "**Reason codes** (a lone code is recorded as the reason; a code followed by text becomes a note):",
    "",
  );
  for (const [verb, status] of Object.entries(RESOLUTION_VERBS) as [ResolutionVerb, ResolutionStatus][]) {
    const codes = reasonCodesFor(status);
    if (codes.length === 0) continue;
    const name = form === "reply" ? `/${verb}` : verb;
    parts.push(`- \`${name}\` (${statusName(status)}): ${codes.map((c) => `\`${c}\``).join(", ")}`);
  }
  if (form === "reply")
    parts.push("", "Commands about the whole pull request start with `/diffward` (try `/diffward help`).");
  return parts.join("\n") + "\n";
}

/** Keeps an echoed word inert: no backticks, mentions or HTML, at most 60 characters. */
function sanitize(text: string): string {
  return text.replace(/[`<>]/g, "").replace(/@/g, "@\u200b").slice(0, 60);
}
