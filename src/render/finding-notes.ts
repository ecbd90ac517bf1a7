/**
 * The service's discussion of a finding, shown in diffward's finding comment: the notes written in the
 * scanning service (spec §Finding (detail) adds: `notes`, each with `body`,
 * `createdAt` and `author`), under a collapsed block. Only with `disclosure: full` (the caller decides).
 * Note bodies and author names are untrusted: bodies go through the render module's sanitizer for
 * untrusted Markdown (`safeMarkdown`, mdast allowlist; code kept exact), names through `neutralize`,
 * so they can never @mention, reference an issue, inject HTML or break the comment.
 * Author e-mail addresses are never shown.
 */
import { inlineCode, neutralize } from "./escape.js";
import { details } from "./markdown.js";
import { safeMarkdown } from "./untrusted-markdown.js";

/** A note as the comment shows it (the spec's note, less the author's e-mail and ids). */
export interface FindingNoteView {
  body: string;
  /** ISO 8601 date-time */
  createdAt: string;
  /** the author's display name; `null` when the service has none */
  authorName: string | null;
}

/** Most notes shown (the newest); older ones are counted, not shown. */
export const MAX_NOTES_SHOWN = 20;
/** Longest note body shown, in characters; a longer one is cut with a pointer to the service. */
export const MAX_NOTE_CHARS = 4_000;

/**
 * Notes diffward wrote itself (signed "— GitHub user @login via diffward (…)", or carried decisions):
 * they repeat what the pull request already shows, so they are left out of the block.
 */
export function isDiffwardNote(body: string): boolean {
  return (
    /— GitHub user @\S+ via diffward \(/.test(body) || /^diffward applied an earlier /.test(body.trimStart())
  );
}

/**
 * The collapsed "Discussion in the scanning service" block, oldest first, newest {@link MAX_NOTES_SHOWN}
 * only; `undefined` (post nothing) when no note is left after dropping diffward's own.
 */
export function renderFindingNotes(
  notes: readonly FindingNoteView[],
  publicUrl?: string | undefined,
): string | undefined {
  const theirs = notes
    .filter((n) => !isDiffwardNote(n.body))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (theirs.length === 0) return undefined;
  const shown = theirs.slice(-MAX_NOTES_SHOWN);
  const parts = shown.map((n) => {
    const who = n.authorName?.trim()
      ? `**${neutralize(n.authorName.trim().replace(/\s+/g, " ").slice(0, 100))}**`
      : "_someone_";
    const when = /^\d{4}-\d{2}-\d{2}/.test(n.createdAt)
      ? n.createdAt.slice(0, 10)
      : inlineCode(n.createdAt.slice(0, 40));
    const chars = [...n.body.trim()];
    const cut = chars.length > MAX_NOTE_CHARS;
    const body = safeMarkdown(chars.slice(0, MAX_NOTE_CHARS).join(""), { trustedOrigin: publicUrl });
    return `${who} · ${when}\n\n${body}${cut ? "\n\n_… cut; the whole note is in the scanning service._" : ""}`;
  });
  const older = theirs.length - shown.length;
  if (older > 0) parts.unshift(`_${older} older note${older === 1 ? "" : "s"} in the scanning service._`);
  const count = `${theirs.length} note${theirs.length === 1 ? "" : "s"}`;
  return details(`Discussion in the scanning service (${count})`, parts.join("\n\n---\n\n"));
}
