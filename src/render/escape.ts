/**
 * Escaping of untrusted text (finding titles, descriptions, fixes, service messages, user input)
 * before it is placed in GitHub Markdown.
 *
 * GitHub docs: "Basic writing and formatting syntax" (mentions, references)
 * https://docs.github.com/en/get-started/writing-on-github/getting-started-with-writing-and-formatting-on-github/basic-writing-and-formatting-syntax
 * and "Autolinked references and URLs"
 * https://docs.github.com/en/get-started/writing-on-github/working-with-advanced-formatting/autolinked-references-and-urls
 */
import { TITLE_LINE_MAX_CHARS, titleLine } from "./limits.js";

/** U+200B ZERO WIDTH SPACE: invisible, but stops GitHub from reading a mention or a reference. */
export const ZWSP = "\u200B";

const HTML: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

/** Bidirectional control characters (Trojan Source, CVE-2021-42574) shown as visible escapes. */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;
/** C0/C1 control characters other than tab and newline; carriage returns are normalised first. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/gu;

/**
 * Makes untrusted text safe to embed as Markdown prose in a GitHub comment, check run summary or
 * review comment, keeping its ordinary Markdown (emphasis, lists, single-backtick code) readable:
 *
 * - raw HTML is escaped (`&` `<` `>` `"` → entities), so `<img onerror=…>`, `<details>`,
 *   `<!-- diffward:… -->` markers and closing tags of diffward's own blocks cannot be injected;
 * - `@login` and `@org/team` mentions get a zero-width space after `@` (no notification);
 * - `#123`, `GH-123` and `owner/repo#123` references get a zero-width space before the number
 *   (no cross-reference in the linked issue's timeline);
 * - URLs get a zero-width space inside `://`, and `www.` one before its dot, so GitHub autolinks none
 *   (a full issue or pull request URL is a reference too: GitHub "Autolinked references and URLs");
 * - runs of three or more backticks or tildes get zero-width spaces between them, so the text
 *   cannot open or close a code fence;
 * - bidirectional control characters become visible `[U+202E]` escapes, other control characters
 *   (except tab and newline) are removed, and `\r\n`/`\r` become `\n`.
 *
 * Output guarantees (tested as a property): no `<` followed by a letter, `!`, `/` or `?`; no `@`
 * followed by a login character (`[A-Za-z0-9_-]`); no `://`, no `www.`; no run of three backticks or
 * three tildes. Not idempotent: escaping twice shows entities literally. Never throws for a string.
 */
export function neutralize(text: string): string {
  return inert(plainText(text).replace(/[&<>"]/g, (c) => HTML[c]!)).replace(/`{3,}|~{3,}/g, (run) =>
    [...run].join(ZWSP),
  );
}

/**
 * What GitHub acts on in text, made inert with zero-width spaces: `@mentions`, `#123`, `GH-123`, and
 * autolinked URLs (`scheme://`, `www.`). The words read the same.
 */
function inert(text: string): string {
  return text
    .replace(/@(?=[A-Za-z0-9_-])/g, `@${ZWSP}`)
    .replace(/#(?=\d)/g, `#${ZWSP}`)
    .replace(/\b(GH)-(?=\d)/gi, `$1-${ZWSP}`)
    .replace(/:\/\//g, `:/${ZWSP}/`)
    .replace(/\b(www)\./gi, `$1${ZWSP}.`);
}

/**
 * A finding's title (untrusted: spec "Finding (list item)", `title`) as one line, the one way every place
 * that shows a title renders it (check run table and details, review comments, command answers,
 * annotations, SARIF): whitespace flattened, cut to `max` characters ending in `…` ({@link titleLine};
 * default {@link TITLE_LINE_MAX_CHARS}), then {@link neutralize}d for Markdown, or with `plain: true`
 * (annotations, which GitHub shows as plain text) {@link plainText} with mentions, references and URLs
 * made inert the same way but no HTML entities. Never throws for a string.
 */
export function findingTitle(title: string, options: { max?: number; plain?: boolean } = {}): string {
  const line = titleLine(String(title), options.max ?? TITLE_LINE_MAX_CHARS);
  return options.plain ? inert(plainText(line)) : neutralize(line);
}

/**
 * Untrusted text for one cell of a Markdown table: {@link neutralize}d, then pipes escaped (see
 * {@link escapePipes}) and newlines turned into `<br>`. Pass the result to `table()` as is.
 */
export function escapeTableCell(text: string): string {
  return toCell(neutralize(text));
}

/**
 * Escapes the pipes of a Markdown fragment so it stays inside one table cell: a `|` not already
 * escaped (preceded by an even number of backslashes) gets a backslash. Idempotent, so trusted
 * fragments and {@link escapeTableCell} output can both go through it. GFM spec "Tables"
 * (https://github.github.com/gfm/#tables-extension-): "include a pipe in a cell's content by
 * escaping it, including inside other inline spans".
 */
export function escapePipes(markdown: string): string {
  return markdown.replace(/(\\*)\|/g, (_m, slashes: string) =>
    slashes.length % 2 === 0 ? `${slashes}\\|` : `${slashes}|`,
  );
}

/** Pipes escaped and line breaks turned into `<br>`: a trusted Markdown fragment made cell-safe. */
export function toCell(markdown: string): string {
  return escapePipes(markdown)
    .replace(/\r\n?|\n/g, "<br>")
    .trim();
}

/**
 * Untrusted text as an inline code span: newlines become spaces, and the fence is one backtick
 * longer than the longest backtick run inside (padded with spaces when the text starts or ends with
 * a backtick), so the text cannot close the span. Inside a code span GitHub renders everything
 * literally: no HTML, no mentions, no references. Empty text gives `` ` ` ``.
 * CommonMark "Code spans": https://spec.commonmark.org/0.31.2/#code-spans
 */
export function inlineCode(text: string): string {
  const flat = String(text)
    .replace(/\r\n?|\n/g, " ")
    .replace(CONTROL, "");
  if (flat.trim() === "") return "` `";
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * Untrusted text as a fenced code block: the fence is a backtick run longer than any inside the
 * text (at least three), so the text cannot end the block early. Used to quote exact messages
 * (config problems, service errors). CommonMark "Fenced code blocks".
 */
export function codeBlock(text: string, info = ""): string {
  const body = String(text).replace(/\r\n?/g, "\n").replace(CONTROL, "");
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  const lang = /^[A-Za-z0-9_+-]*$/.test(info) ? info : "";
  return `${fence}${lang}\n${body}\n${fence}`;
}

/**
 * Plain text for places GitHub does not render Markdown (annotation title and message): control
 * characters removed, bidi controls made visible, line breaks normalised. HTML is not escaped there
 * because GitHub shows annotations as plain text.
 */
export function plainText(text: string): string {
  return escapeControls(String(text).replace(/\r\n?/g, "\n"));
}

/**
 * Control characters in untrusted text defused: bidirectional controls (Trojan Source, CVE-2021-42574)
 * become visible `[U+202E]` escapes, other C0/C1 control characters except tab, line feed and carriage
 * return are removed. Every other character is kept. Never throws for a string.
 */
export function escapeControls(text: string): string {
  return text
    .replace(BIDI, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]`)
    .replace(CONTROL, "");
}
