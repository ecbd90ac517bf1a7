/**
 * Untrusted Markdown (a finding's description and recommended fix, notes) made safe for GitHub by a
 * real Markdown parser, not by regexes: the text is parsed into an mdast tree (`mdast-util-from-markdown`
 * with GFM: `micromark-extension-gfm` + `mdast-util-gfm`), rebuilt from an allowlist of node types, and
 * serialized again with `mdast-util-to-markdown`. Code keeps every character.
 *
 * GitHub docs on what must be neutralized: "Basic writing and formatting syntax" (mentions) and
 * "Autolinked references and URLs" (`#123`, `GH-123`, `owner/repo#123`, issue and pull request URLs):
 * https://docs.github.com/en/get-started/writing-on-github/working-with-advanced-formatting/autolinked-references-and-urls
 * CommonMark 0.31.2 "Fenced code blocks" and "Code spans" for the fences.
 */
import type {
  Blockquote,
  Code,
  Definition,
  List,
  ListItem,
  Nodes,
  Paragraph,
  PhrasingContent,
  Root,
  RootContent,
  Table,
  TableCell,
  TableRow,
} from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown, gfmToMarkdown } from "mdast-util-gfm";
import { toMarkdown, type Unsafe } from "mdast-util-to-markdown";
import { gfm } from "micromark-extension-gfm";
import { escapeControls, ZWSP } from "./escape.js";

/** Options of {@link safeMarkdown}. */
export interface SafeMarkdownOptions {
  /**
   * The scanning service's public web address (`SCANNER_PUBLIC_URL`): links to this origin (same
   * scheme, host and port) stay links; every other link becomes its text plus the URL as inline code.
   */
  trustedOrigin?: string | undefined;
}

/** Parses Markdown with GFM (tables, strikethrough, autolink literals, task lists, footnotes). */
export function parseMarkdown(text: string): Root {
  return fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

/**
 * A `<` in prose followed by a character an e-mail address may start with is escaped. The serializer
 * escapes `<` only before a letter, `!`, `/` or `?` (HTML, URI autolinks), but the local part of an
 * e-mail autolink may also start with a digit or `.!#$%&'*+=^_\`{|}~-` (CommonMark 0.31.2 "Autolinks",
 * https://spec.commonmark.org/0.31.2/#email-autolink): written bare, `<` before a code span reads as
 * `<`@x>` and turns the code into a live `mailto:` link.
 */
const EMAIL_AUTOLINK_START: Unsafe = {
  character: "<",
  after: "[0-9.!#$%&'*+=^_`{|}~-]",
  inConstruct: "phrasing",
  notInConstruct: [
    "autolink",
    "destinationLiteral",
    "destinationRaw",
    "reference",
    "titleQuote",
    "titleApostrophe",
  ],
};

/** Serializes an mdast tree: `-` bullets, `*` emphasis, fenced code, GFM tables. */
export function serializeMarkdown(tree: Root): string {
  return toMarkdown(tree, {
    extensions: [gfmToMarkdown()],
    unsafe: [EMAIL_AUTOLINK_START],
    bullet: "-",
    emphasis: "_",
    strong: "*",
    rule: "-",
    fences: true,
    listItemIndent: "one",
  }).trimEnd();
}

/**
 * Prose text (never code) made inert for GitHub: a zero-width space after every `@` (no mention, no
 * team ping), before the number of `#123` and `GH-123` and at the end of a text ending in `#` (no
 * cross-reference), inside `://` and after `www` (no autolinked URL, so no issue URL reference); control
 * characters go through {@link escapeControls} (bidi controls become visible `[U+202E]` escapes).
 */
export function neutralizeProse(text: string): string {
  return escapeControls(text)
    .replace(/@/g, `@${ZWSP}`)
    .replace(/#(?=\d|$)/g, `#${ZWSP}`)
    .replace(/\b(GH)-(?=\d)/gi, `$1-${ZWSP}`)
    .replace(/:\/\//g, `:/${ZWSP}/`)
    .replace(/(www)\./gi, `$1${ZWSP}.`);
}

/** A code block's info string reduced to a language word GitHub highlights; anything else is dropped. */
function safeLang(lang: string | null | undefined): string | null {
  return lang && /^[A-Za-z0-9_+.#-]{1,40}$/.test(lang) ? lang : null;
}

function sameOrigin(url: string, trusted: string | undefined): boolean {
  if (!trusted) return false;
  try {
    const u = new URL(url);
    const t = new URL(trusted);
    return (u.protocol === "https:" || u.protocol === "http:") && u.origin === t.origin;
  } catch {
    return false;
  }
}

type Phrasing = PhrasingContent;

interface Ctx {
  trustedOrigin: string | undefined;
  definitions: Map<string, Definition>;
}

function text(value: string): Phrasing {
  return { type: "text", value };
}

/** Plain text of a subtree (alt text, link text). */
function plain(node: Nodes): string {
  if ("value" in node && typeof node.value === "string") return node.value;
  if (node.type === "image" || node.type === "imageReference") return node.alt ?? "";
  if ("children" in node) return (node.children as Nodes[]).map(plain).join("");
  return "";
}

/**
 * Sanitized phrasing content. Two code spans that end up side by side (a link turned into code next to
 * a code span) get a zero-width space between them: serialized back to back, their fences would merge.
 */
function phrasing(nodes: readonly Nodes[], ctx: Ctx): Phrasing[] {
  const out: Phrasing[] = [];
  for (const n of nodes.flatMap((x) => inline(x, ctx))) {
    if (n.type === "inlineCode" && out[out.length - 1]?.type === "inlineCode") out.push(text(ZWSP));
    out.push(n);
  }
  return out;
}

/** A link that is not trusted: its text (sanitized), then the URL as code; the URL alone when they agree. */
function untrustedLink(children: readonly Nodes[], url: string, ctx: Ctx): Phrasing[] {
  const label = plain({ type: "paragraph", children: children as Phrasing[] }).trim();
  const bare = url.replace(/^mailto:/i, "").replace(/^https?:\/\//i, "");
  const code: Phrasing = { type: "inlineCode", value: url };
  const hasCode = children.some((c) => c.type === "inlineCode");
  if (hasCode) return [...phrasing(children, ctx), text(" ("), code, text(")")];
  if (label === "" || label === url || label === bare || `http://${label}` === url) return [code];
  return [...phrasing(children, ctx), text(" ("), code, text(")")];
}

function inline(node: Nodes, ctx: Ctx): Phrasing[] {
  switch (node.type) {
    case "text":
      return [text(neutralizeProse(node.value))];
    case "inlineCode":
      return [{ type: "inlineCode", value: node.value }];
    case "break":
      return [{ type: "break" }];
    case "emphasis":
    case "strong":
    case "delete":
      return [{ type: node.type, children: phrasing(node.children, ctx) }];
    case "html":
      return [text(neutralizeProse(node.value))];
    case "image":
    case "imageReference":
      return node.alt ? [text(neutralizeProse(node.alt))] : [];
    case "link":
      return sameOrigin(node.url, ctx.trustedOrigin)
        ? [{ type: "link", url: node.url, title: null, children: phrasing(node.children, ctx) }]
        : untrustedLink(node.children, node.url, ctx);
    case "linkReference": {
      const def = ctx.definitions.get(node.identifier);
      if (!def) return phrasing(node.children, ctx);
      return sameOrigin(def.url, ctx.trustedOrigin)
        ? [{ type: "link", url: def.url, title: null, children: phrasing(node.children, ctx) }]
        : untrustedLink(node.children, def.url, ctx);
    }
    case "footnoteReference":
      return [text(`[^${neutralizeProse(node.label ?? node.identifier)}]`)];
    default:
      // Any block met in phrasing position (should not happen): its text, neutralized.
      return [text(neutralizeProse(plain(node)))];
  }
}

function paragraph(children: Phrasing[]): Paragraph {
  return { type: "paragraph", children };
}

/** A list with its items' blocks sanitized; its kind (ordered, start, spread, task) kept. */
function list(node: List, ctx: Ctx): List {
  return {
    type: "list",
    ordered: node.ordered ?? false,
    start: node.ordered ? (node.start ?? 1) : null,
    spread: node.spread ?? false,
    children: node.children.map((li): ListItem => ({
      type: "listItem",
      spread: li.spread ?? false,
      checked: li.checked ?? null,
      children: blocks(li.children, ctx) as ListItem["children"],
    })),
  };
}

/** A table with its cells' phrasing sanitized; its column alignment kept. */
function table(node: Table, ctx: Ctx): Table {
  return {
    type: "table",
    align: node.align ?? null,
    children: node.children.map((row): TableRow => ({
      type: "tableRow",
      children: row.children.map((cell): TableCell => ({
        type: "tableCell",
        children: phrasing(cell.children, ctx),
      })),
    })),
  };
}

function block(node: Nodes, ctx: Ctx): RootContent[] {
  switch (node.type) {
    case "paragraph":
      return [paragraph(phrasing(node.children, ctx))];
    case "heading":
      return [paragraph([{ type: "strong", children: phrasing(node.children, ctx) }])];
    case "code": {
      const code: Code = { type: "code", lang: safeLang(node.lang), meta: null, value: node.value };
      return [code];
    }
    case "blockquote":
      return [{ type: "blockquote", children: blocks(node.children, ctx) as Blockquote["children"] }];
    case "list":
      return [list(node, ctx)];
    case "table":
      return [table(node, ctx)];
    case "thematicBreak":
      return [{ type: "thematicBreak" }];
    case "html":
      return [paragraph([text(neutralizeProse(node.value))])];
    case "definition":
      // Used by link references above; alone it would render nothing, so it is dropped.
      return [];
    case "footnoteDefinition":
      return [
        paragraph([text(`[^${neutralizeProse(node.label ?? node.identifier)}]: `)]),
        ...blocks(node.children, ctx),
      ];
    default: {
      const children = inline(node, ctx);
      return children.length ? [paragraph(children)] : [];
    }
  }
}

function blocks(nodes: readonly Nodes[], ctx: Ctx): RootContent[] {
  return nodes.flatMap((n) => block(n, ctx));
}

function collectDefinitions(node: Nodes, into: Map<string, Definition>): void {
  if (node.type === "definition" && !into.has(node.identifier)) into.set(node.identifier, node);
  if ("children" in node) for (const c of node.children as Nodes[]) collectDefinitions(c, into);
}

/**
 * Makes untrusted Markdown safe to post on GitHub while keeping it readable and its code exact.
 *
 * Kept (allowlist): paragraphs, emphasis, strong, strikethrough, inline code, fenced and indented code
 * (written as fenced code with its language word; other info-string text dropped), lists (task lists
 * too), block quotes, tables, thematic breaks, hard breaks. Transformed:
 * - links and reference links become their text plus the URL as inline code (the URL alone when the
 *   text is the URL), unless the URL's origin is `trustedOrigin`; link definitions are dropped;
 * - images (inline and reference) become their alt text;
 * - raw HTML (block and inline) becomes text, so `<img>`, `<details>`, `</details>` and `<!-- -->`
 *   render literally;
 * - headings become bold paragraphs;
 * - in prose only (never in code): `@mentions`, `#123`, `GH-123` and bare URLs are neutralized with a
 *   zero-width space ({@link neutralizeProse}).
 *
 * Code (inline and fenced) keeps every character: `mdast-util-to-markdown` writes a fence one longer
 * than the longest backtick run inside (at least three) and pads code spans as CommonMark requires, so
 * parsing the output gives back the same code values (property-tested in test/render/untrusted-markdown.test.ts).
 * Line endings are normalized to `\n` first. Empty or blank text gives "". Never throws for a string, and
 * its time is bounded: text longer than {@link MAX_SOURCE_CHARS} is cut, and text nested deeper than
 * {@link MAX_NESTING}, with more than {@link MAX_MARKUP_CHARACTERS} delimiters, or that the parser cannot
 * handle is shown whole as plain text in a code block.
 */
export function safeMarkdown(markdown: string, options: SafeMarkdownOptions = {}): string {
  const source = bounded(String(markdown ?? "").replace(/\r\n?/g, "\n"));
  if (source.trim() === "") return "";
  if (nestingBound(source) > MAX_NESTING) return asPlainText(source, "nested too deeply to render");
  if (markupCount(source) > MAX_MARKUP_CHARACTERS) return asPlainText(source, "too much markup to render");
  try {
    const tree = parseMarkdown(source);
    if (treeDepth(tree) > MAX_TREE_DEPTH) return asPlainText(source, "nested too deeply to render");
    const definitions = new Map<string, Definition>();
    collectDefinitions(tree, definitions);
    const ctx: Ctx = { trustedOrigin: options.trustedOrigin, definitions };
    return serializeMarkdown({ type: "root", children: blocks(tree.children, ctx) });
  } catch {
    // The parser or serializer gave up on this text: show it, inert, rather than nothing.
    return asPlainText(source, "could not be rendered as Markdown");
  }
}

/**
 * The most characters of one untrusted text that are parsed, in UTF-16 code units. GitHub caps a whole
 * check run text and a comment body at 65,535 and 65,536 characters (https://docs.github.com/en/rest/checks/runs,
 * output.text), which many findings share; and the parser's worst cases (thousands of unmatched `[`) grow
 * faster than linearly, so this cap bounds one text's time to about a second on a 2-core machine. A
 * longer text is cut at a line break and says how much was left out.
 */
export const MAX_SOURCE_CHARS = 20_000;

/**
 * The deepest container nesting (block quotes and lists) rendered as Markdown. Deeper text, which no
 * finding needs and an attacker can write to exhaust the parser's stack or time, is shown as plain text.
 */
export const MAX_NESTING = 32;

/**
 * The most emphasis, link, code-span and autolink delimiters (`*`, `_`, `~`, `[`, `]`, backtick, `<`) one
 * text may hold to be rendered as Markdown. The parser pairs delimiters in time that grows faster than
 * linearly with their number (10,000 `*a` took 30 s), and a finding's prose needs a few dozen; a text with
 * more is shown whole as plain text.
 */
export const MAX_MARKUP_CHARACTERS = 2_000;

function markupCount(source: string): number {
  let n = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    // * _ ~ [ ] ` <
    if (c === 42 || c === 95 || c === 126 || c === 91 || c === 93 || c === 96 || c === 60) n++;
  }
  return n;
}

/** The deepest mdast tree walked (containers plus inline nesting such as emphasis in links). */
const MAX_TREE_DEPTH = 200;

function bounded(source: string): string {
  if (source.length <= MAX_SOURCE_CHARS) return source;
  const cut = source.lastIndexOf("\n", MAX_SOURCE_CHARS);
  const kept = source.slice(0, cut > MAX_SOURCE_CHARS / 2 ? cut : MAX_SOURCE_CHARS);
  return `${kept}\n\n… ${source.length - kept.length} more characters not shown`;
}

/**
 * An upper bound on the container nesting of any line, read without parsing (linear time): the block
 * quote markers and list markers that open the line, plus its indentation in steps of two columns beyond
 * one space per marker (a nested list item is indented by at least its parent's marker width; CommonMark
 * 0.31.2 "List items").
 */
export function nestingBound(source: string): number {
  let deepest = 0;
  for (const line of source.split("\n")) {
    let depth = 0;
    let columns = 0;
    let i = 0;
    while (i < line.length) {
      const c = line[i]!;
      if (c === " ") columns += 1;
      else if (c === "\t") columns += 4 - (columns % 4);
      else if (c === ">") depth += 1;
      else if ((c === "-" || c === "*" || c === "+") && /[ \t]/.test(line[i + 1] ?? "")) depth += 1;
      else if (/[0-9]/.test(c)) {
        const m = /^[0-9]{1,9}[.)](?=[ \t]|$)/.exec(line.slice(i, i + 11));
        if (!m) break;
        depth += 1;
        i += m[0].length;
        continue;
      } else break;
      i += 1;
    }
    // One space after each marker belongs to the marker; the rest is indentation that can nest.
    deepest = Math.max(deepest, depth + Math.floor(Math.max(0, columns - depth) / 2));
  }
  return deepest;
}

/** The depth of an mdast tree, walked with an explicit stack (no recursion). */
function treeDepth(root: Root): number {
  let deepest = 0;
  const stack: Array<[Nodes, number]> = [[root, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (depth > MAX_TREE_DEPTH) break;
    if ("children" in node) for (const c of node.children as Nodes[]) stack.push([c, depth + 1]);
  }
  return deepest;
}

/** The whole text in a fenced code block (inert on GitHub, every character kept) after a short note why. */
function asPlainText(source: string, why: string): string {
  const note = paragraph([{ type: "emphasis", children: [text(`Shown as plain text: ${why}.`)] }]);
  const code: Code = { type: "code", lang: null, meta: null, value: source };
  return serializeMarkdown({ type: "root", children: [note, code] });
}
