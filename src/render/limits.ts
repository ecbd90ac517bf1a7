/**
 * GitHub size limits diffward must respect, and trimmers that cut text to fit them.
 */

/** Check run `output.summary` and `output.text`: at most 65,535 bytes each ("Update a check run"). */
export const CHECK_RUN_SUMMARY_MAX_BYTES = 65_535;
export const CHECK_RUN_TEXT_MAX_BYTES = 65_535;
/** Annotations accepted per create/update check run request. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** Annotation `message` and `raw_details`: 64 KB each (taken as 64 × 1,024 bytes). */
export const ANNOTATION_MESSAGE_MAX_BYTES = 65_536;
export const ANNOTATION_RAW_DETAILS_MAX_BYTES = 65_536;
/** Annotation `title`: 255 characters. */
export const ANNOTATION_TITLE_MAX_CHARS = 255;
/** Body of an issue comment, review or review comment: 65,536 characters. */
export const COMMENT_BODY_MAX_CHARS = 65_536;

/**
 * Longest finding title diffward renders on one line outside the findings table (a review comment's
 * title line, a details heading, a command answer), in characters. The client already cuts titles at 500
 * characters when it reads them (src/scanner/schemas.ts); this bound holds for any text a builder gets,
 * so one title (untrusted input) can never crowd out the rest of a comment or summary.
 */
export const TITLE_LINE_MAX_CHARS = 300;

/** `title` flattened to one line and cut to {@link TITLE_LINE_MAX_CHARS} characters, ending in `…` when cut. */
export function titleLine(title: string, max: number = TITLE_LINE_MAX_CHARS): string {
  const flat = title.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  let keep = max - 1;
  const last = flat.charCodeAt(keep - 1);
  if (last >= 0xd800 && last <= 0xdbff) keep -= 1;
  return `${flat.slice(0, keep).trimEnd()}…`;
}

export const CHECK_RUNS_DOCS_URL = "https://docs.github.com/en/rest/checks/runs#update-a-check-run";
/** Where the comment body limit is documented (issue comments; review comments share it). */
export const COMMENT_LIMIT_DOCS_URL =
  "https://docs.github.com/en/rest/issues/comments#create-an-issue-comment";

export const DEFAULT_TRUNCATION_NOTE = "_… truncated to fit GitHub's size limit._";

/** Thrown when a limit is too small to hold even the truncation note. */
export class LimitTooSmallError extends RangeError {
  override readonly name = "LimitTooSmallError";
  constructor(
    readonly limit: number,
    readonly needed: number,
    readonly unit: "bytes" | "characters",
  ) {
    super(`a limit of ${limit} ${unit} cannot hold the truncation note (${needed} ${unit})`);
  }
}

type Measure = (text: string) => number;

/** The units GitHub's limits are given in. */
type Unit = LimitTooSmallError["unit"];

/** How each unit measures a text. */
const MEASURES: Record<Unit, Measure> = {
  bytes: (text) => Buffer.byteLength(text, "utf8"),
  characters: (text) => text.length,
};

/**
 * Cuts `text` to at most `max` UTF-8 bytes. Text that fits is returned unchanged. Otherwise the
 * longest prefix that fits is kept, cut back to the last line break (or, without one, to a whole
 * character: never inside a multi-byte character or a surrogate pair); any `<details>` or code fence
 * left open by the cut is closed; then a blank line and `note` are appended. The result, note
 * included, is at most `max` bytes.
 *
 * GitHub doc: check run `output.summary`/`output.text` take at most 65,535 bytes
 * ({@link CHECK_RUNS_DOCS_URL}).
 *
 * @param max the limit in bytes (UTF-8), a positive integer.
 * @param note trusted Markdown shown after the cut, e.g. where to read the rest.
 * @throws LimitTooSmallError when the note and its closers do not fit in `max`.
 * @throws RangeError when `max` is not a positive integer.
 */
export const truncateBytes = truncator("bytes");

/**
 * Like {@link truncateBytes} but counts characters as JavaScript string length (UTF-16 code units),
 * which is never fewer than the Unicode characters GitHub counts, so the result always fits.
 *
 * GitHub doc: a comment body takes at most 65,536 characters ({@link COMMENT_LIMIT_DOCS_URL}).
 *
 * @throws LimitTooSmallError when the note does not fit in `max`.
 * @throws RangeError when `max` is not a positive integer.
 */
export const truncateChars = truncator("characters");

/** {@link truncateBytes} and {@link truncateChars}: one trimmer, measuring `text` in `unit`. */
function truncator(unit: Unit): (text: string, max: number, note?: string) => string {
  const measure = MEASURES[unit];
  return (text, max, note = DEFAULT_TRUNCATION_NOTE) => {
    if (!Number.isSafeInteger(max) || max <= 0)
      throw new RangeError(`limit must be a positive integer, got ${max}`);
    if (measure(text) <= max) return text;
    const tail = `\n\n${note}`;
    let budget = max - measure(tail);
    for (let attempt = 0; attempt < 8; attempt += 1) {
      if (budget < 0) break;
      const kept = cutAtLine(prefixWithin(text, budget, measure));
      const closers = openBlockClosers(kept);
      const result = `${kept}${closers}${tail}`;
      if (measure(result) <= max) return result;
      budget -= measure(closers);
    }
    throw new LimitTooSmallError(max, measure(tail), unit);
  };
}

/** The longest prefix of `text` measuring at most `budget`, ending on a whole code point. */
function prefixWithin(text: string, budget: number, measure: Measure): string {
  if (budget <= 0) return "";
  let lo = 0;
  let hi = Math.min(text.length, budget);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(safeSlice(text, mid)) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return safeSlice(text, lo);
}

/** `text.slice(0, end)` moved back one unit when it would split a surrogate pair. */
function safeSlice(text: string, end: number): string {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? text.slice(0, end - 1) : text.slice(0, end);
}

function cutAtLine(prefix: string): string {
  const nl = prefix.lastIndexOf("\n");
  return (nl > 0 ? prefix.slice(0, nl) : prefix).trimEnd();
}

/** Closers for code fences and `<details>` blocks left open in `text`. */
function openBlockClosers(text: string): string {
  let fence: string | undefined;
  let details = 0;
  for (const line of text.split("\n")) {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (m) {
      const run = m[1]!;
      if (fence === undefined) fence = run;
      else if (run[0] === fence[0] && run.length >= fence.length && line.trim() === run) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    details += (line.match(/<details[\s>]/g) ?? []).length;
    details -= (line.match(/<\/details>/g) ?? []).length;
  }
  let closers = fence !== undefined ? `\n${fence}` : "";
  for (let i = 0; i < Math.max(0, details); i += 1) closers += "\n\n</details>";
  return closers;
}
