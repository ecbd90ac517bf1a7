/**
 * The import rules of `.dependency-cruiser.cjs` (docs/architecture.md) hold over `src/`: no cycle, the
 * product never imports development tooling, each layer imports only what is below it. Runs
 * dependency-cruiser's programmatic API (`cruise`) with the same config as `npm run lint:deps`, and fails
 * with the list of violations.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

const ROOT = resolve(import.meta.dirname, "../..");
const CONFIG = resolve(ROOT, ".dependency-cruiser.cjs");

async function cruiseSrc(): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(CONFIG);
  const tsConfig = extractTSConfig(resolve(ROOT, "tsconfig.json"));
  const result = await cruise(["src"], { ...options, validate: true }, {}, { tsConfig });
  return result.output as ICruiseResult;
}

describe("src/ import rules (dependency-cruiser)", () => {
  it("no rule of .dependency-cruiser.cjs is broken", async () => {
    const output = await cruiseSrc();
    expect(output.summary.totalCruised).toBeGreaterThan(50);
    const violations = output.summary.violations.map(
      (v) =>
        `${v.rule.name}: ${v.from} → ${v.to}` +
        (v.cycle?.length ? ` (cycle: ${v.cycle.map((c) => c.name).join(" → ")})` : ""),
    );
    expect(violations).toEqual([]);
  }, 120_000);

  it("the rules see type-only imports and the cycle rule is active", async () => {
    const options = await extractDepcruiseOptions(CONFIG);
    expect(options.tsPreCompilationDeps).toBe(true);
    const names = (options.ruleSet?.forbidden ?? []).map((r) => r.name);
    for (const rule of [
      "no-circular",
      "product-not-tooling",
      "scanner-knows-no-github",
      "github-knows-no-service",
      "pure-layers-not-runtime",
      "handlers-are-thin",
    ])
      expect(names).toContain(rule);
  });
});
