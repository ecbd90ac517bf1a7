/**
 * `/note <markdown>`: adds a signed note to a finding (spec §Findings, `POST …/findings/{findingId}/notes`).
 */
import { z } from "zod";
import { attributed, who } from "../../render/command-answers.js";
import { inlineCode } from "../../render/escape.js";
import { findingLabel } from "../../scanner/labels.js";
import {
  capped,
  commandError,
  finding,
  joinText,
  commandName,
  noteText,
  type VerbArgs,
} from "../verb-parts.js";
import type { ErrorCommand } from "../verb-parts.js";
import { auditAs, defineVerb, targetOf, VERB_NEEDS, writeFindingOnce } from "../verb-module.js";
import type { VerbInput } from "../verb-module.js";

/** `POST …/notes` with `content`. */
export const NoteCommand = z.object({
  ...commandName("note", "note"),
  ...finding,
  content: noteText,
});
export type NoteCommand = z.infer<typeof NoteCommand>;

function parseNote(a: VerbArgs): NoteCommand | ErrorCommand {
  const text = joinText(a.args, a.rest);
  if (!text) return commandError("note", "missing_argument", `\`/note\` needs text: ${a.syntax}.`);
  return (
    capped("note", text) ?? {
      kind: "note",
      verb: "note",
      requiresPermission: true,
      ...(a.ref ? { ref: a.ref } : {}),
      content: text,
    }
  );
}

/** What a note command adds and answers. */
export interface NotePlan {
  findingId: string;
  /** the note's content, signed with the GitHub user */
  note: string;
  answer: string;
}

/** Plans a note (pure). */
export function planNote(input: VerbInput<NoteCommand>): NotePlan {
  const id = targetOf(input).detail.id;
  return {
    findingId: id,
    note: attributed(input.cmd.content, input.sender, input.pull),
    answer: `Added your note to ${inlineCode(findingLabel(id, input.labelPrefix))} in the scanning service (signed as ${who(input.sender)}).`,
  };
}

/** `/note`. */
export const noteVerb = defineVerb(NoteCommand, VERB_NEEDS.finding, {
  parse: parseNote,
  describe: () => "add the note",
  plan: planNote,
  async apply(io, plan, input) {
    await writeFindingOnce(io, input, plan.findingId, { step: "note", note: plan.note });
    await io.refreshFindingComment(targetOf(input));
    await io.answer(plan.answer);
    return "changed";
  },
  audit: auditAs("note", (input) => ({ reason: input.cmd.content })),
});
