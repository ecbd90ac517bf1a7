/**
 * Which lines of a pull request diff can carry a review comment.
 *
 * GitHub doc: "Create a review comment for a pull request"
 * (https://docs.github.com/en/rest/pulls/comments#create-a-review-comment-for-a-pull-request):
 * `line` is "the line of the blob in the pull request diff that the comment applies to"; with
 * `side: "RIGHT"` it must be an added or unchanged (context) line of a hunk of the file's `patch`
 * (the `patch` field of "List pull requests files"). Other lines are refused with 422.
 */
import type { Location } from "./finding-types.js";

/** Thrown when a `patch` has a hunk header that cannot be read. */
export class DiffParseError extends Error {
  override readonly name = "DiffParseError";
  constructor(
    message: string,
    /** 1-based line number inside the patch text */
    readonly patchLine: number,
    /** the offending line, cut to 200 characters */
    readonly text: string,
  ) {
    super(`${message} at patch line ${patchLine}: ${JSON.stringify(text)}`);
  }
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * The RIGHT-side (new file) line numbers a review comment may target: every added (`+`) and
 * context (` `) line inside a hunk. Removed lines (`-`), `\ No newline at end of file` markers and
 * text outside hunks (`diff --git`, `index`, `---`/`+++` headers) add nothing. An empty line inside
 * a hunk that still expects lines counts as a context line (some tools strip the lone space).
 * Lines past the count a hunk header announced are ignored until the next header.
 *
 * @param patch the unified diff of one file (GitHub's `patch`; `undefined`/`null` for binary or
 *   very large files, which yields an empty set).
 * @returns 1-based line numbers of the file at the head commit.
 * @throws DiffParseError when a line starts with `@@` but is not a valid `@@ -a,b +c,d @@` header.
 */
export function commentableLines(patch: string | null | undefined): Set<number> {
  const lines = new Set<number>();
  if (!patch) return lines;
  const rows = patch.split(/\r?\n/);
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  rows.forEach((row, index) => {
    if (row.startsWith("@@")) {
      const m = HUNK.exec(row);
      if (!m) throw new DiffParseError("malformed hunk header", index + 1, row.slice(0, 200));
      newLine = Number(m[3]);
      oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      newLeft = m[4] === undefined ? 1 : Number(m[4]);
      return;
    }
    if (oldLeft <= 0 && newLeft <= 0) return;
    const kind = row === "" ? " " : row[0];
    if (kind === "+") {
      if (newLeft <= 0) return;
      lines.add(newLine);
      newLine += 1;
      newLeft -= 1;
    } else if (kind === " ") {
      if (newLeft <= 0 || oldLeft <= 0) return;
      lines.add(newLine);
      newLine += 1;
      newLeft -= 1;
      oldLeft -= 1;
    } else if (kind === "-") {
      oldLeft -= 1;
    }
    // `\ No newline at end of file` and anything else: no line on either side
  });
  return lines;
}

/**
 * The line to put a review comment on for a finding at `loc`: its end line when the diff shows it,
 * else the last line of its range that the diff shows, else `undefined` (the finding is outside the
 * diff and goes to the check run summary instead). A location without a line gives `undefined`.
 *
 * @param loc a parsed location (see `parseLocation`); only `startLine`/`endLine` are read.
 * @param lines the result of {@link commentableLines} for the finding's file.
 */
export function pickCommentLine(
  loc: Pick<Location, "startLine" | "endLine"> | undefined,
  lines: ReadonlySet<number>,
): number | undefined {
  if (loc?.startLine === undefined) return undefined;
  const start = Math.min(loc.startLine, loc.endLine ?? loc.startLine);
  const end = Math.max(loc.startLine, loc.endLine ?? loc.startLine);
  if (lines.has(end)) return end;
  if (end - start < lines.size) {
    for (let line = end - 1; line >= start; line -= 1) if (lines.has(line)) return line;
    return undefined;
  }
  let best: number | undefined;
  for (const line of lines)
    if (line >= start && line <= end && (best === undefined || line > best)) best = line;
  return best;
}
