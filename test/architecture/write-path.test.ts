/**
 * One way to write to GitHub (STYLE.md: "Every GitHub write is planned, then applied through one write path
 * (rate lane, retries, audit)"): read with the TypeScript compiler API over `src/`.
 *
 * - An Octokit write is a REST call whose endpoint is not a `GET` or `HEAD` (its method read from Octokit's
 *   own endpoint table, `octokit.rest.<scope>.<method>.endpoint`), an `octokit.request` whose route is not a
 *   `GET`/`HEAD` one (or cannot be read), or a GraphQL `mutation` (or a document that cannot be read).
 * - Octokit writes are made in `src/github/` only, one small function per operation. A function of
 *   `src/github/` that makes one (itself or through another such function) is a write function, and only the
 *   write path calls a write function: `sendWrite` (`src/github/writes.ts`, the typed list of planned
 *   writes), applied by `applyWrites` (`src/runtime/apply-writes.ts`, write lane, retries); or the documented
 *   exceptions of `src/github/direct-writes.ts`, each listed in its `DIRECT_WRITES` table with the reason.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ProbotOctokit } from "probot";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { DIRECT_WRITES as EXCEPTIONS, type DirectWrite } from "../../src/github/direct-writes.js";

const ROOT = resolve(import.meta.dirname, "../..");
/** The Octokit layer: the only folder that calls Octokit's write endpoints. */
const OCTOKIT_LAYER = "src/github/";
/** The write path: its functions call write functions; they are not write functions themselves. */
const WRITE_PATH = ["src/github/writes.ts", "src/runtime/apply-writes.ts"];
/** The one place for writes that do not go through the write path, each with its reason. */
const DIRECT_WRITES = "src/github/direct-writes.ts";

/** Octokit's REST endpoint table, read from an Octokit instance (no request is made). */
const octokit = new ProbotOctokit({ throttle: { enabled: false } }) as unknown as {
  rest: Record<string, Record<string, { endpoint: { DEFAULTS: { method: string; url: string } } }>>;
};

const READ_METHODS = new Set(["GET", "HEAD"]);

/** One Octokit write found in the source: where, and what it asks. */
interface RawWrite {
  file: string;
  line: number;
  /** the top-level declaration it is in (`<module>` outside one) */
  unit: string;
  what: string;
}

/** A top-level declaration of a file (function, variable, class) that may make or reach a write. */
interface Unit {
  file: string;
  name: string;
  node: ts.Node;
}

/** Every `.ts` file below `src/`, relative to the repository. */
function sourceFiles(): string[] {
  return readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join("src", f));
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
}

/** The text of a string literal or a template without substitutions; the head of a template otherwise. */
function literalText(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return node.head.text + node.templateSpans.map((s) => s.literal.text).join("");
  return undefined;
}

/** The initializer of a top-level `const name = …` of the file, if any. */
function constInitializer(source: ts.SourceFile, name: string): ts.Expression | undefined {
  for (const s of source.statements)
    if (ts.isVariableStatement(s))
      for (const d of s.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.name.text === name) return d.initializer;
  return undefined;
}

/** What a call or reference asks of Octokit when it is a write (see the file's docblock); undefined for a read. */
function octokitWrite(node: ts.Node, source: ts.SourceFile): string | undefined {
  // octokit.rest.<scope>.<method>, called or handed on (to paginate, a variable)
  if (
    ts.isPropertyAccessExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    ts.isPropertyAccessExpression(node.expression.expression) &&
    node.expression.expression.name.text === "rest"
  ) {
    const endpoint = octokit.rest[node.expression.name.text]?.[node.name.text]?.endpoint.DEFAULTS;
    if (!endpoint) return `rest.${node.expression.name.text}.${node.name.text} (unknown endpoint)`;
    return READ_METHODS.has(endpoint.method) ? undefined : `${endpoint.method} ${endpoint.url}`;
  }
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return undefined;
  const [first] = node.arguments;
  if (node.expression.name.text === "request") {
    let route = literalText(first);
    if (first && ts.isObjectLiteralExpression(first))
      for (const p of first.properties)
        if (ts.isPropertyAssignment(p) && p.name.getText(source) === "method")
          route = literalText(p.initializer);
    const method = route?.trim().split(/\s+/)[0]?.toUpperCase();
    return method && READ_METHODS.has(method)
      ? undefined
      : `request ${route ?? first?.getText(source) ?? ""}`;
  }
  if (node.expression.name.text === "graphql") {
    const doc =
      literalText(first) ??
      (first && ts.isIdentifier(first) ? literalText(constInitializer(source, first.text)) : undefined);
    if (doc !== undefined && !/^\s*mutation\b/.test(doc)) return undefined;
    return `graphql ${doc === undefined ? "(document not readable)" : (/^\s*mutation\s+\w+/.exec(doc)?.[0] ?? "mutation")}`;
  }
  return undefined;
}

/** The top-level declarations of a file by name, and the one a node sits in. */
function unitsOf(file: string, source: ts.SourceFile): Map<string, Unit> {
  const units = new Map<string, Unit>();
  for (const s of source.statements) {
    if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name)
      units.set(s.name.text, { file, name: s.name.text, node: s });
    if (ts.isVariableStatement(s))
      for (const d of s.declarationList.declarations)
        if (ts.isIdentifier(d.name)) units.set(d.name.text, { file, name: d.name.text, node: d });
  }
  return units;
}

function unitOf(node: ts.Node, source: ts.SourceFile): string {
  let n: ts.Node = node;
  while (n.parent && n.parent !== source) n = n.parent;
  if ((ts.isFunctionDeclaration(n) || ts.isClassDeclaration(n)) && n.name) return n.name.text;
  if (ts.isVariableStatement(n)) {
    const d = n.declarationList.declarations.find((x) => x.pos <= node.pos && node.end <= x.end);
    if (d && ts.isIdentifier(d.name)) return d.name.text;
  }
  return "<module>";
}

/** The names a file imports from other files of `src/`: local name → [file, exported name or `*`]. */
function importsOf(file: string, source: ts.SourceFile): Map<string, [string, string]> {
  const out = new Map<string, [string, string]>();
  for (const s of source.statements) {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier)) continue;
    if (!s.moduleSpecifier.text.startsWith(".")) continue;
    const from = relative(ROOT, resolve(ROOT, dirname(file), s.moduleSpecifier.text)).replace(/\.js$/, ".ts");
    const clause = s.importClause;
    if (!clause?.namedBindings) continue;
    if (ts.isNamespaceImport(clause.namedBindings)) out.set(clause.namedBindings.name.text, [from, "*"]);
    else
      for (const e of clause.namedBindings.elements)
        out.set(e.name.text, [from, (e.propertyName ?? e.name).text]);
  }
  return out;
}

interface Scan {
  raw: RawWrite[];
  /** per file: its units, its imports, and each unit's references to names (identifiers, `ns.name`) */
  files: Map<
    string,
    { units: Map<string, Unit>; imports: Map<string, [string, string]>; refs: Map<string, Set<string>> }
  >;
}

function scanSources(files: readonly string[]): Scan {
  const scan: Scan = { raw: [], files: new Map() };
  for (const file of files) {
    const source = parse(file);
    const units = unitsOf(file, source);
    const imports = importsOf(file, source);
    const refs = new Map<string, Set<string>>();
    const visit = (node: ts.Node): void => {
      const what = octokitWrite(node, source);
      if (what !== undefined) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        scan.raw.push({ file, line, unit: unitOf(node, source), what });
      }
      if (ts.isImportDeclaration(node)) return;
      if (
        ts.isIdentifier(node) &&
        !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)
      ) {
        const unit = unitOf(node, source);
        const name =
          ts.isPropertyAccessExpression(node.parent) && node.parent.expression === node
            ? `${node.text}.${node.parent.name.text}`
            : node.text;
        if (unit !== node.text) (refs.get(unit) ?? refs.set(unit, new Set()).get(unit)!).add(name);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    scan.files.set(file, { units, imports, refs });
  }
  return scan;
}

/** Where a reference `name` (or `ns.name`) of `file` leads: a top-level unit of some file of `src/`. */
function resolveRef(scan: Scan, file: string, ref: string): string | undefined {
  const f = scan.files.get(file)!;
  const [head, member] = ref.split(".") as [string, string | undefined];
  const imported = f.imports.get(head);
  if (imported) {
    const [from, name] = imported;
    return name === "*" ? (member ? `${from}#${member}` : undefined) : `${from}#${name}`;
  }
  return f.units.has(head) ? `${file}#${head}` : undefined;
}

/**
 * The write functions of the Octokit layer (`file#name` → the writes they reach), and every use of one, or of
 * an Octokit write itself, outside the Octokit layer, the write path and the exceptions module.
 */
function writeViolations(scan: Scan): { writeFunctions: Map<string, string>; violations: string[] } {
  const boundary = new Set([...WRITE_PATH, DIRECT_WRITES]);
  const writeFunctions = new Map<string, string>();
  for (const r of scan.raw)
    if (r.file.startsWith(OCTOKIT_LAYER) && !boundary.has(r.file))
      writeFunctions.set(`${r.file}#${r.unit}`, r.what);
  for (let grew = true; grew;) {
    grew = false;
    for (const [file, f] of scan.files) {
      if (!file.startsWith(OCTOKIT_LAYER) || boundary.has(file)) continue;
      for (const [unit, refs] of f.refs)
        for (const ref of refs) {
          const to = resolveRef(scan, file, ref);
          const what = to && writeFunctions.get(to);
          if (what && !writeFunctions.has(`${file}#${unit}`)) {
            writeFunctions.set(`${file}#${unit}`, `${what} (through ${to})`);
            grew = true;
          }
        }
    }
  }
  const violations: string[] = [];
  for (const r of scan.raw)
    if (!r.file.startsWith(OCTOKIT_LAYER))
      violations.push(`${r.file}:${r.line} (${r.unit}) writes to GitHub with Octokit directly: ${r.what}`);
  for (const [file, f] of scan.files) {
    if (file.startsWith(OCTOKIT_LAYER) || boundary.has(file)) continue;
    for (const [unit, refs] of f.refs)
      for (const ref of refs) {
        const to = resolveRef(scan, file, ref);
        const what = to && writeFunctions.get(to);
        if (what) violations.push(`${file} (${unit}) calls ${to} outside the write path: ${what}`);
      }
  }
  return { writeFunctions, violations: [...new Set(violations)].sort() };
}

describe("one way to write to GitHub", () => {
  const scan = scanSources(sourceFiles());

  it("reads Octokit's writes: REST endpoints by their method, routes, GraphQL mutations", () => {
    const src = ts.createSourceFile(
      "x.ts",
      [
        "o.rest.checks.create({});",
        "o.rest.checks.listForRef({});",
        "o.paginate(o.rest.issues.createComment, {});",
        'o.request("POST /app/hook/deliveries/{delivery_id}/attempts");',
        'o.request("GET /installation/repositories");',
        "o.request(route);",
        "o.graphql(`mutation m { resolveReviewThread(input: {}) { thread { id } } }`);",
        "o.graphql(`query { viewer { login } }`);",
      ].join("\n"),
      ts.ScriptTarget.Latest,
      true,
    );
    const found: string[] = [];
    const visit = (n: ts.Node): void => {
      const w = octokitWrite(n, src);
      if (w !== undefined) found.push(w);
      ts.forEachChild(n, visit);
    };
    visit(src);
    expect(found).toEqual([
      "POST /repos/{owner}/{repo}/check-runs",
      "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
      "request POST /app/hook/deliveries/{delivery_id}/attempts",
      "request route",
      "graphql mutation m",
    ]);
  });

  it("finds the Octokit layer's write functions (the check runs, comments, threads and code scanning)", () => {
    const { writeFunctions } = writeViolations(scan);
    for (const f of [
      "src/github/check-runs.ts#createCheckRun",
      "src/github/check-runs.ts#updateCheckRun",
      "src/github/issue-comments.ts#createIssueComment",
      "src/github/threads.ts#setReviewThreadResolved",
      "src/github/code-scanning.ts#updateCodeScanningAlert",
    ])
      expect(writeFunctions.has(f), f).toBe(true);
    for (const f of ["src/github/check-runs.ts#getCheckRun", "src/github/check-runs.ts#listCheckRunsForRef"])
      expect(writeFunctions.has(f), f).toBe(false);
  });

  it("no Octokit write outside the write path and the documented exceptions", () => {
    expect(writeViolations(scan).violations).toEqual([]);
  });

  it("each documented exception is listed with its reason, and makes the write it names", () => {
    const table: Record<string, DirectWrite> = EXCEPTIONS;
    const writers = [...new Set(scan.raw.filter((r) => r.file === DIRECT_WRITES).map((r) => r.unit))].sort();
    expect(Object.keys(table).sort()).toEqual(writers);
    for (const [name, entry] of Object.entries(table)) {
      expect(entry.reason.length, name).toBeGreaterThan(40);
      const made = scan.raw.filter((r) => r.file === DIRECT_WRITES && r.unit === name).map((r) => r.what);
      expect(made.length, name).toBeGreaterThan(0);
      for (const what of made) expect(what.endsWith(entry.endpoint), `${name}: ${what}`).toBe(true);
    }
  });
});
