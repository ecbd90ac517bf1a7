/** The note verb's plan (src/commands/verbs/note.ts). */
import { describe, expect, it } from "vitest";
import { planNote, type NoteCommand } from "../../../src/commands/verbs/note.js";
import { input, parsed } from "../../support/verbs.js";

describe("note plan", () => {
  it("note: signed content and the answer", () => {
    const plan = planNote(input(parsed("/diffward note SC-01234567 see #12", "note") as NoteCommand));
    expect(plan.note).toBe("see #12\n\n— GitHub user @octo-writer via diffward (octo/app#9)");
    expect(plan.answer).toContain("Added your note to `SC-01234567`");
  });
});
