/**
 * Every fast-check run in `test/` has a known seed: its options come from `propertyOptions()`
 * (`test/support/property.ts`: a fixed seed in `npm test`, a random one under `npm run test:explore`) or
 * name a seed themselves (a replayed counterexample). A run without either would draw a new seed on
 * every `npm test`, and a red CI would be a coin toss.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const RUNNERS = new Set(["fc.assert", "fc.check"]);

function seeded(options: ts.Expression | undefined): boolean {
  if (!options) return false;
  if (ts.isCallExpression(options)) return options.expression.getText() === "propertyOptions";
  return (
    ts.isObjectLiteralExpression(options) && options.properties.some((p) => p.name?.getText() === "seed")
  );
}

/** Each fast-check run in `file`, as `file:line` and whether its options name a known seed. */
function runs(file: string): Array<{ at: string; seeded: boolean }> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: Array<{ at: string; seeded: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && RUNNERS.has(node.expression.getText())) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push({ at: `${relative(ROOT, file)}:${line + 1}`, seeded: seeded(node.arguments[1]) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("fast-check runs", () => {
  it("all take their seed from propertyOptions() or name one", () => {
    const files = readdirSync(join(ROOT, "test"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(ROOT, "test", f));
    const all = files.flatMap(runs);
    expect(all.length).toBeGreaterThan(25);
    expect(all.filter((r) => !r.seeded).map((r) => r.at)).toEqual([]);
  });
});
