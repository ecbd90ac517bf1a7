/**
 * Small Markdown builders. They take trusted Markdown fragments: run untrusted text through
 * `neutralize`, `escapeTableCell` or `inlineCode` (./escape.ts) first.
 */
import type { Severity } from "../scanner/catalog.js";
import { toCell } from "./escape.js";
import { severityBadgeText, severityName, statusName } from "./glossary.js";

/**
 * A collapsed `<details>` block (GitHub doc "Organizing information with collapsed sections",
 * https://docs.github.com/en/get-started/writing-on-github/working-with-advanced-formatting/organizing-information-with-collapsed-sections).
 * Blank lines around `body` let GitHub render Markdown inside; `open` starts it expanded.
 */
export function details(summary: string, body: string, open = false): string {
  return `<details${open ? " open" : ""}><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

/**
 * A GitHub-flavoured Markdown table. Every cell is made cell-safe (unescaped pipes escaped, line
 * breaks turned into `<br>`); rows shorter than the header are padded with empty cells, longer rows
 * are refused.
 *
 * @throws RangeError when there are no headers or a row has more cells than headers.
 */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  if (headers.length === 0) throw new RangeError("a table needs at least one header");
  const line = (cells: readonly string[]) => `| ${cells.map((c) => toCell(c) || " ").join(" | ")} |`;
  const out = [line(headers), `| ${headers.map(() => "---").join(" | ")} |`];
  rows.forEach((row, i) => {
    if (row.length > headers.length) {
      throw new RangeError(`table row ${i} has ${row.length} cells for ${headers.length} headers`);
    }
    out.push(line([...row, ...Array<string>(headers.length - row.length).fill("")]));
  });
  return out.join("\n");
}

/** Emoji and word for a severity: 🔴 Critical, 🟠 High, 🟡 Medium, 🔵 Low, ⚪ Info. */
export function severityBadge(severity: Severity): string {
  return severityBadgeText(severity);
}

/** The word alone: `Critical`, `High`, … */
export function severityWord(severity: Severity): string {
  return severityName(severity);
}

/** `NOT_STARTED` → `Not started`, `WONT_FIX` → `Won't fix`: the glossary's status name (plain text). */
export function humanize(code: string): string {
  return statusName(code);
}

/**
 * A Markdown link to a trusted URL (only `https:` and `http:`); the text must already be safe
 * Markdown. Brackets in the text and parentheses/spaces in the URL are escaped. A URL of another
 * scheme or that does not parse gives the text alone.
 */
export function link(text: string, url: string): string {
  let href: URL;
  try {
    href = new URL(url);
  } catch {
    return text;
  }
  if (href.protocol !== "https:" && href.protocol !== "http:") return text;
  const safeUrl = href.href.replace(
    /[()\s<>]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
  );
  return `[${text.replace(/[[\]]/g, (c) => `\\${c}`)}](${safeUrl})`;
}

/** Joined with blank lines; empty parts dropped. */
export function sections(...parts: readonly (string | undefined | false | null)[]): string {
  return parts.filter((p): p is string => typeof p === "string" && p.trim() !== "").join("\n\n");
}

/** A bullet list; items are trusted Markdown. Empty input gives "". */
export function bullets(items: readonly string[]): string {
  return items.map((i) => `- ${i.replace(/\n/g, "\n  ")}`).join("\n");
}
