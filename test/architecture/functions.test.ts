/**
 * Two rules of docs/architecture.md and STYLE.md over `src/`, read with the TypeScript compiler API:
 * - a function fits on a screen: none is longer than {@link MAX_LINES} lines unless its docblock says why
 *   (a `@long <reason>` tag, or a sentence starting "Long because");
 * - a comment states the rule and its source, never a tracker nobody can open: no comment in `src/`, `test/`,
 *   `dev/`, `scripts/` or `bench/`, and no test title, cites an issue by number or title, a tracker's item by
 *   number, or a bare number after a hash sign (the patterns are {@link TRACKER}).
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const MAX_LINES = 80;

/** Every `.ts` file below `dir` (default `src/`). */
function sourceFiles(dir = "src"): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(ROOT, dir, f));
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/**
 * The node whose docblock documents `fn`: the function itself, or for a function expression or arrow
 * function the variable statement or property it initializes.
 */
function documented(fn: FunctionNode): ts.Node {
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent) && ts.isVariableDeclarationList(parent.parent))
    return parent.parent.parent;
  if (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent;
  return fn;
}

/** The `/** … *\/` comments right before `node`. */
function docblocks(node: ts.Node, source: ts.SourceFile): string[] {
  const text = source.getFullText();
  return (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [])
    .map((r) => text.slice(r.pos, r.end))
    .filter((c) => c.startsWith("/**"));
}

/** Whether a docblock says why its function is long. */
export function saysWhyLong(docblock: string): boolean {
  return /@long\s+\S/.test(docblock) || /(^|[.*\s])Long because\s+\S/.test(docblock);
}

/** A readable name of `fn` for the failure list. */
function nameOf(fn: FunctionNode): string {
  if (fn.name) return fn.name.getText();
  if (ts.isConstructorDeclaration(fn)) return "constructor";
  const parent = fn.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText();
  return "(anonymous)";
}

/** Every function in `source` longer than {@link MAX_LINES} lines whose docblock does not say why. */
export function longFunctions(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_LINES && !docblocks(documented(node), source).some(saysWhyLong))
        found.push(`${relative(ROOT, source.fileName)}:${start + 1} ${nameOf(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every comment in `source` (line and block comments, each once), with its line. */
export function comments(source: ts.SourceFile): Array<{ line: number; text: string }> {
  const text = source.getFullText();
  const seen = new Map<number, { line: number; text: string }>();
  const add = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? [])
      if (!seen.has(r.pos))
        seen.set(r.pos, {
          line: source.getLineAndCharacterOfPosition(r.pos).line + 1,
          text: text.slice(r.pos, r.end),
        });
  };
  const visit = (node: ts.Node): void => {
    add(ts.getLeadingCommentRanges(text, node.getFullStart()));
    add(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  add(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen.values()].sort((a, b) => a.line - b.line);
}

/** Citations of a tracker: an issue by number or title, an item by number, a bare `#123`. */
const TRACKER = [/\bissues?\s+(#?\d|")/i, /\bitems?\s+\d/i, /(^|[\s(])#\d+\b/];

/** Every comment line in `source` that cites a tracker, as `file:line: text`. */
export function trackerCitations(source: ts.SourceFile): string[] {
  return comments(source).flatMap((c) =>
    c.text
      .split("\n")
      .flatMap((text, i) =>
        TRACKER.some((p) => p.test(text))
          ? [`${relative(ROOT, source.fileName)}:${c.line + i}: ${text.trim()}`]
          : [],
      ),
  );
}

describe("functions in src/", () => {
  it(`are at most ${MAX_LINES} lines long, or their docblock says why`, () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.map(parse).flatMap(longFunctions)).toEqual([]);
  });

  it("the check sees a long function and accepts one whose docblock says why", () => {
    const body = Array.from({ length: MAX_LINES }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const long = (doc: string) =>
      longFunctions(
        ts.createSourceFile("x.ts", `${doc}\nfunction f() {\n${body}\n}\n`, ts.ScriptTarget.Latest, true),
      );
    expect(long("/** Does f. */")).toHaveLength(1);
    expect(long("/** Does f. Long because it is one catalogue of cases. */")).toEqual([]);
    expect(long("/**\n * Does f.\n * @long one catalogue of cases\n */")).toEqual([]);
    const arrow = ts.createSourceFile(
      "x.ts",
      `/** Does g. */\nexport const g = () => {\n${body}\n};\n`,
      ts.ScriptTarget.Latest,
      true,
    );
    expect(longFunctions(arrow)).toHaveLength(1);
  });
});

/** The titles of `describe`, `it` and `test` calls in `source` that cite a tracker, as `file:line: title`. */
export function trackerTitles(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source).split(".")[0];
      const title = node.arguments[0];
      if (
        ["describe", "it", "test"].includes(callee ?? "") &&
        title &&
        (ts.isStringLiteral(title) || ts.isNoSubstitutionTemplateLiteral(title)) &&
        TRACKER.some((p) => p.test(title.text))
      ) {
        const line = source.getLineAndCharacterOfPosition(title.getStart(source)).line + 1;
        found.push(`${relative(ROOT, source.fileName)}:${line}: ${title.text}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("comments in src/, test/, dev/, scripts/ and bench/", () => {
  it("cite no issue number, tracker item or #number", () => {
    const files = ["src", "test", "dev", "scripts", "bench"].flatMap((dir) => sourceFiles(dir));
    expect(files.map(parse).flatMap(trackerCitations)).toEqual([]);
  });

  it("test titles cite no issue number, tracker item or #number either", () => {
    expect(sourceFiles("test").map(parse).flatMap(trackerTitles)).toEqual([]);
  });

  it("the check sees tracker citations in line and block comments, and not in code", () => {
    const cites = (code: string) =>
      trackerCitations(ts.createSourceFile("x.ts", code, ts.ScriptTarget.Latest, true));
    expect(cites("const a = 1; // see issue 12\n")).toHaveLength(1);
    expect(cites("/**\n * The rule (issue 10, item 15).\n */\nconst a = 1;\n")).toHaveLength(1);
    expect(cites('/** As issue "Reporting" says. */\nconst a = 1;\n')).toHaveLength(1);
    expect(cites("// fixed in #123\nconst a = 1;\n")).toHaveLength(1);
    expect(cites("const s = `pull request #${n}, issue 12`; // the rule, by heading\n")).toEqual([]);
    expect(cites("// spec §Scans: 100 items per page\nconst a = 1;\n")).toEqual([]);
    const titles = (code: string) =>
      trackerTitles(ts.createSourceFile("x.test.ts", code, ts.ScriptTarget.Latest, true));
    expect(titles('it("item 5: uninstalling launches nothing", () => {});\n')).toHaveLength(1);
    expect(
      titles('describe.each([1])("issue 12", () => {});\ntest.skip("#4 works", () => {});\n'),
    ).toHaveLength(2);
    expect(titles('it("uninstalling launches nothing, 100 items per page", () => {});\n')).toEqual([]);
  });
});
