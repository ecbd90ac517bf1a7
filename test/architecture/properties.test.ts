/**
 * Every fast-check run in `test/` takes its options from `propertyOptions()` (`test/support/property.ts`: a
 * fixed seed in `npm test`, random seeds and more runs under `npm run test:explore`), except the replay of
 * a recorded counterexample (options naming its `seed` with `numRuns: 1`). A run without them would draw
 * a new seed on every `npm test`, so a red CI would be a coin toss; one with a seed of its own would
 * never be explored.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const RUNNERS = new Set(["fc.assert", "fc.check"]);

/** The options are `propertyOptions(…)`, or `{ seed, …, numRuns: 1 }` (a replay). */
function allowed(options: ts.Expression | undefined): boolean {
  if (!options) return false;
  if (ts.isCallExpression(options)) return options.expression.getText() === "propertyOptions";
  if (!ts.isObjectLiteralExpression(options)) return false;
  const named = (name: string) => options.properties.find((p) => p.name?.getText() === name);
  const runs = named("numRuns");
  return (
    named("seed") !== undefined &&
    runs !== undefined &&
    ts.isPropertyAssignment(runs) &&
    runs.initializer.getText() === "1"
  );
}

/** Each fast-check run in `file`, as `file:line` and whether its options are allowed. */
function runs(file: string): Array<{ at: string; allowed: boolean }> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: Array<{ at: string; allowed: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && RUNNERS.has(node.expression.getText())) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push({ at: `${relative(ROOT, file)}:${line + 1}`, allowed: allowed(node.arguments[1]) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("fast-check runs", () => {
  it("all take their options from propertyOptions(), or replay one recorded counterexample", () => {
    const files = readdirSync(join(ROOT, "test"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(ROOT, "test", f));
    const all = files.flatMap(runs);
    expect(all.length).toBeGreaterThan(25);
    expect(all.filter((r) => !r.allowed).map((r) => r.at)).toEqual([]);
  });
});
