/**
 * Escaping untrusted text is written once: one `escapeHtml` (src/render/html.ts) and one set of the
 * bidirectional and control-character patterns (src/render/escape.ts, `escapeControls`), which every page,
 * Markdown renderer and tool imports. Read with the TypeScript compiler API over `src/`, `dev/`, `scripts/`
 * and `bench/`: a second copy would drift from the first (a character added to one list and not the other).
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const TREES = ["src", "dev", "scripts", "bench"];

function sourceFiles(): string[] {
  return TREES.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(ROOT, dir, f)),
  );
}

/** Every function or variable declared with `name`, and every regular expression literal, per file. */
function scan(file: string): { declared: string[]; regexes: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const declared: string[] = [];
  const regexes: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isFunctionDeclaration(node) || ts.isVariableDeclaration(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
    )
      declared.push(node.name.text);
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) regexes.push(node.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { declared, regexes };
}

const FILES = sourceFiles().map((file) => ({ file: relative(ROOT, file), ...scan(file) }));

describe("escaping is defined once", () => {
  it("one escapeHtml, in src/render/html.ts", () => {
    expect(FILES.length).toBeGreaterThan(100);
    const defining = FILES.filter((f) => f.declared.includes("escapeHtml")).map((f) => f.file);
    expect(defining).toEqual(["src/render/html.ts"]);
  });

  it("one pattern of bidirectional controls and one of control characters, in src/render/escape.ts", () => {
    const bidi = FILES.filter((f) => f.regexes.some((r) => r.includes("\\u202A-\\u202E"))).map((f) => f.file);
    const control = FILES.filter((f) => f.regexes.some((r) => r.includes("\\u0000-\\u0008"))).map(
      (f) => f.file,
    );
    expect(bidi).toEqual(["src/render/escape.ts"]);
    expect(control).toEqual(["src/render/escape.ts"]);
  });
});
