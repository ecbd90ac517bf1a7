/**
 * Reading rendered Markdown the way GitHub would act on it (tests only): code values, and the hazards
 * (raw HTML, images, live links, mentions, references) outside code.
 */
import type { Nodes } from "mdast";
import { parseMarkdown } from "../../src/render/untrusted-markdown.js";

/** Every node of a tree, depth first. */
export function walk(node: Nodes, visit: (n: Nodes, inCode: boolean) => void): void {
  visit(node, node.type === "code" || node.type === "inlineCode");
  if ("children" in node) for (const c of node.children as Nodes[]) walk(c, visit);
}

/**
 * The values of the code nodes (fenced and inline) of a Markdown text, in document order, as GitHub
 * shows them: in a code span a line ending is shown as a space (CommonMark 0.31.2 "Code spans"), which
 * mdast keeps as `\n` in the value.
 */
export function codeValues(markdown: string): string[] {
  const out: string[] = [];
  walk(parseMarkdown(markdown), (n) => {
    if (n.type === "code") out.push(n.value);
    if (n.type === "inlineCode") out.push(n.value.replace(/\n/g, " "));
  });
  return out;
}

/** What GitHub would act on in `markdown`: raw HTML, images, live links, mentions, references. */
export function hazards(
  markdown: string,
  trustedOrigin = "https://scanner.example.com",
  allow: { html?: RegExp; link?: (url: string) => boolean } = {},
): string[] {
  const found: string[] = [];
  walk(parseMarkdown(markdown), (n) => {
    switch (n.type) {
      case "html":
        if (!allow.html?.test(n.value)) found.push(`html ${n.value}`);
        break;
      case "image":
      case "imageReference":
        found.push(`image ${n.type}`);
        break;
      case "definition":
        found.push(`definition ${n.url}`);
        break;
      case "link":
        if (!n.url.startsWith(`${trustedOrigin}/`) && n.url !== trustedOrigin && !allow.link?.(n.url))
          found.push(`link ${n.url}`);
        break;
      case "text": {
        if (/@[A-Za-z0-9_-]/.test(n.value)) found.push(`mention in ${JSON.stringify(n.value)}`);
        if (/#\d/.test(n.value)) found.push(`reference in ${JSON.stringify(n.value)}`);
        if (/\bGH-\d/i.test(n.value)) found.push(`GH reference in ${JSON.stringify(n.value)}`);
        if (/[a-z]+:\/\/|www\./i.test(n.value)) found.push(`URL in ${JSON.stringify(n.value)}`);
        break;
      }
      default:
    }
  });
  return found;
}

/** The raw HTML nodes of a Markdown text, outside code, in document order. */
export function htmlNodes(markdown: string): string[] {
  const out: string[] = [];
  walk(parseMarkdown(markdown), (n) => {
    if (n.type === "html") out.push(n.value);
  });
  return out;
}

/** `sub` appears in `all` in order (other values may sit between). */
export function isSubsequence(sub: readonly string[], all: readonly string[]): boolean {
  let i = 0;
  for (const v of all) if (i < sub.length && v === sub[i]) i += 1;
  return i === sub.length;
}

/** diffward's own HTML: `<details>`/`<summary>` blocks, `<br>` in table cells, the finding marker. */
export const DIFFWARD_HTML =
  /^(?:<details(?: open)?><summary>[^<>]*<\/summary>|<\/details>|<br>|<!-- diffward:finding=\S+ (?:v=2 )?fp=[0-9a-f]{64}(?: shape=[0-9a-f]{64})? -->)$/;
