/**
 * the demo's findings (fixtures/scenarios/demo.json, what `npm run demo` shows)
 * rendered through the report job's path (`renderFindingComment` with `findingCommentOptions`, and the check
 * run's text), then read as Markdown and as the HTML the demo page shows (marked, GFM): every code block
 * reads exactly as the service wrote it, and the hostile description shows no image, raw HTML, live mention
 * or cross-reference.
 */
import { marked } from "marked";
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../dev/sandbox/findings-source.js";
import type { ReportFinding } from "../../src/domain/finding-types.js";
import { ZWSP } from "../../src/render/escape.js";
import { renderFindingComment } from "../../src/render/inline-comment.js";
import { parseMarkdown } from "../../src/render/untrusted-markdown.js";
import { findingCommentOptions } from "../../src/report/decide/finding-comment.js";
import { codeValues, DIFFWARD_HTML, hazards } from "../support/markdown.js";
import { fullCheckRun } from "../support/check-run.js";

const scenario = loadScenario("demo");

function demoFinding(title: string): ReportFinding {
  const i = scenario.findings.findIndex((f) => f.title === title);
  const f = scenario.findings[i];
  if (!f) throw new Error(`the demo scenario has no finding "${title}"`);
  return {
    ...f,
    id: `fnd_demo${String(i).padStart(12, "0")}`,
    displayId: i + 1,
    confirmationEvidence: f.confirmationEvidence ?? null,
    resolutionStatus: "NOT_STARTED",
    recommendedFix: f.recommendedFix ?? null,
  };
}

/** The finding comment exactly as the report job builds it (src/report/decide/decide-report.ts `findingBody`). */
function comment(f: ReportFinding): string {
  return renderFindingComment(f, findingCommentOptions({ labelPrefix: "SC", disclosure: "full", notes: [] }));
}

/** The code of the fenced blocks of a Markdown text as the service wrote it (CommonMark reading). */
function fencedCode(markdown: string): string[] {
  const out: string[] = [];
  const visit = (n: { type: string; value?: string; children?: unknown[] }) => {
    if (n.type === "code") out.push(n.value!);
    for (const c of (n.children ?? []) as (typeof n)[]) visit(c);
  };
  visit(parseMarkdown(markdown));
  return out;
}

/** The text of each `<pre><code>` block of the HTML the demo page shows, entities decoded. */
function preBlocks(html: string): string[] {
  const decode = (s: string) =>
    s.replace(/&(lt|gt|quot|#39|amp);/g, (_, e: string) =>
      e === "lt" ? "<" : e === "gt" ? ">" : e === "quot" ? '"' : e === "#39" ? "'" : "&",
    );
  return [...html.matchAll(/<pre><code[^>]*>([\s\S]*?)<\/code><\/pre>/g)].map((m) =>
    decode(m[1]!).replace(/\n$/, ""),
  );
}

describe("the demo's finding with code (SQL injection in user lookup)", () => {
  const sqli = demoFinding("SQL injection in user lookup");
  const body = comment(sqli);
  const written = [...fencedCode(sqli.description!), ...fencedCode(sqli.recommendedFix!)];

  it("the scenario's description and fix hold fenced code with quotes and <", () => {
    expect(written).toHaveLength(2);
    for (const code of written) {
      expect(code).toContain('"');
      expect(code).toContain("<");
    }
  });

  it("the finding comment keeps each fenced block byte for byte, with its language", () => {
    expect(body).toContain(
      '```js\nif (name.length < 64) {\n  const sql = "SELECT * FROM users WHERE name = \'" + name + "\'";\n  return db.query(sql);\n}\n```',
    );
    expect(body).toContain(
      '```js\nif (name.length < 64) {\n  const rows = await db.query("SELECT * FROM users WHERE name = $1", [name]);\n}\n```',
    );
    expect(fencedCode(body)).toEqual(written);
    expect(codeValues(body)).toContain("' OR 1=1 --");
    expect(body).not.toContain("&quot;");
    expect(body).not.toContain("&lt;");
    expect(body).not.toContain(ZWSP);
  });

  it("the demo page (marked, GFM) shows the same code in <pre> blocks", () => {
    const html = marked.parse(body, { async: false, gfm: true });
    expect(preBlocks(html)).toEqual(written);
    expect(html).toContain('<pre><code class="language-js">');
  });

  it("the check run text keeps the same code when it shows the description", () => {
    const out = fullCheckRun([sqli], "scan_demo");
    expect(fencedCode(out.text!)).toEqual(written);
    expect(preBlocks(marked.parse(out.text!, { async: false, gfm: true }))).toEqual(written);
  });
});

describe("the demo's hostile finding (Reflected XSS in search page)", () => {
  const xss = demoFinding("Reflected XSS in search page");
  const body = comment(xss);
  const html = marked.parse(body, { async: false, gfm: true });

  it("shows no image, raw HTML, live link, mention or cross-reference outside code", () => {
    expect(hazards(body, "https://scanner.invalid", { html: DIFFWARD_HTML })).toEqual([]);
    expect(html).not.toMatch(/<img|<script|<\/details>|<b>raw/);
    expect(html).not.toMatch(/href="https:\/\/(evil\.example|github\.com|tracker\.example)/);
    // the hostile text is there, inert: escaped HTML, broken mentions and references, links as code
    expect(body).toContain("\\<img src=x onerror=alert(1)>");
    expect(body).toContain(`@${ZWSP}acme/security-team`);
    expect(body).toContain(`#${ZWSP}123`);
    expect(body).toContain("`https://github.com/acme/web/issues/7`");
    expect(body).toContain("Read the advisory (`https://evil.example/phish`) first.");
    expect(body).toContain("**Not a heading**");
  });

  it("keeps its code as written, the fence the service left open included", () => {
    const written = [...fencedCode(xss.description!), ...fencedCode(xss.recommendedFix!)];
    expect(written).toEqual([
      'app.get("/search", (req, res) => res.send(`<p>Results for ${req.query.q}</p>`));',
      "closing fence below on purpose",
      "<script>alert('fence break')</script>\n\nEnd of description, inside the fence the service left open.",
      "<p>Results for {{ q }}</p>",
    ]);
    expect(fencedCode(body)).toEqual(written);
    expect(preBlocks(html)).toEqual(written);
  });
});
