/**
 * Inline suppressions (pure): a line holding `diffward-ignore <reason>: <note>` on a finding's line or the line
 * directly above it, in the file at the pull request's head commit, acts as `/wontfix <reason> <note>` sent by
 * the pull request's author (README "Configuration", `suppressions`). The marker is found in any comment
 * style (`//`, `#`, `--`, `/* *\/`, `<!-- -->`): the text `diffward-ignore` anywhere in the line; a block
 * comment's closer after the note is not part of it. `<reason>` must be a `WONT_FIX` reason of the service's
 * catalog (spec §Findings, resolution rule 4); a marker without one is not honoured, and says why.
 */
import { z } from "zod";
import { checkReason, reasonCodesFor } from "../scanner/catalog.js";

/** The text that makes a line a suppression marker. */
export const SUPPRESSION_MARKER = "diffward-ignore";

/** Longest note kept from a marker, in characters (a longer one is cut and ends in `…`). */
export const SUPPRESSION_NOTE_MAX = 500;

/**
 * The marker lines of one file at one commit: 1-based line number → the line's text, only the lines holding
 * {@link SUPPRESSION_MARKER}; `missing` when the file is not there (deleted, a directory, binary or too large).
 */
export const FileMarkers = z.object({
  missing: z.boolean().optional(),
  lines: z.record(z.string(), z.string()),
});
export type FileMarkers = z.infer<typeof FileMarkers>;

/** The marker lines of a file's text ({@link FileMarkers}). */
export function markerLines(text: string): FileMarkers {
  const lines: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.includes(SUPPRESSION_MARKER)) lines[String(i + 1)] = line.slice(0, 2_000);
  });
  return { lines };
}

/** A marker found for a finding: honoured (`reason`, `note`) or not (`why`), and the line it is on. */
export type Suppression =
  | { kind: "marker"; line: number; reason: string; note: string }
  | { kind: "invalid"; line: number; why: string };

/** Comment closers that may follow the note on the marker's line. */
const CLOSERS = /\s*(\*\/|-->|--\]\]|%>|#>|\}\})\s*$/;

/**
 * Reads the marker on one line: `diffward-ignore <reason>: <note>` (the colon and the note may be left out).
 * `<reason>` is lower-cased, `-` read as `_`, as `/wontfix` reads it.
 */
export function parseMarker(text: string, line: number): Suppression {
  const after = text
    .slice(text.indexOf(SUPPRESSION_MARKER) + SUPPRESSION_MARKER.length)
    .replace(CLOSERS, "")
    .trim();
  const m = /^([A-Za-z][\w-]*)\s*(?::\s*(.*))?$/s.exec(after);
  const valid = reasonCodesFor("WONT_FIX").map((c) => `\`${c}\``);
  if (!m)
    return {
      kind: "invalid",
      line,
      why: `\`${SUPPRESSION_MARKER}\` needs a reason, \`${SUPPRESSION_MARKER} <reason>: <note>\` (reasons: ${valid.join(", ")})`,
    };
  const reason = m[1]!.toLowerCase().replace(/-/g, "_");
  const check = checkReason("WONT_FIX", reason);
  if (!check.ok)
    return {
      kind: "invalid",
      line,
      why: `\`${reason}\` is not a reason for won't fix (reasons: ${valid.join(", ")})`,
    };
  const note = (m[2] ?? "").trim();
  const capped = note.length > SUPPRESSION_NOTE_MAX ? `${note.slice(0, SUPPRESSION_NOTE_MAX - 1)}…` : note;
  return { kind: "marker", line, reason, note: capped };
}

/**
 * The marker that applies to a finding starting at `line`: one on that line, else one on the line directly
 * above it; `undefined` when neither holds one.
 */
export function suppressionAt(markers: FileMarkers, line: number): Suppression | undefined {
  for (const at of [line, line - 1]) {
    const text = markers.lines[String(at)];
    if (text !== undefined) return parseMarker(text, at);
  }
  return undefined;
}
