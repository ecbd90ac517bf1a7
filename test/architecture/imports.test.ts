/**
 * The import rules of `.dependency-cruiser.cjs` (docs/architecture.md) hold over `src/` and `dev/`: no cycle
 * in either, the product never imports development tooling, each layer imports only what is below it. Runs
 * dependency-cruiser's programmatic API (`cruise`) with the same config and the same folders as
 * `npm run lint:deps`, and fails with the list of violations.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

const ROOT = resolve(import.meta.dirname, "../..");
const CONFIG = resolve(ROOT, ".dependency-cruiser.cjs");

/** The folders `npm run lint:deps` cruises. */
const FOLDERS = ["src", "dev"];

async function cruiseFolders(): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(CONFIG);
  const tsConfig = extractTSConfig(resolve(ROOT, "tsconfig.json"));
  const result = await cruise(FOLDERS, { ...options, validate: true }, {}, { tsConfig });
  return result.output as ICruiseResult;
}

describe("src/ and dev/ import rules (dependency-cruiser)", () => {
  it("no rule of .dependency-cruiser.cjs is broken", async () => {
    const output = await cruiseFolders();
    expect(output.summary.totalCruised).toBeGreaterThan(50);
    for (const folder of FOLDERS)
      expect(output.modules.some((m) => m.source.startsWith(`${folder}/`))).toBe(true);
    const violations = output.summary.violations.map(
      (v) =>
        `${v.rule.name}: ${v.from} → ${v.to}` +
        (v.cycle?.length ? ` (cycle: ${v.cycle.map((c) => c.name).join(" → ")})` : ""),
    );
    expect(violations).toEqual([]);
  }, 120_000);

  it("the rules see type-only imports and the cycle rule is active over src/ and dev/", async () => {
    const options = await extractDepcruiseOptions(CONFIG);
    expect(options.tsPreCompilationDeps).toBe(true);
    const circular = (options.ruleSet?.forbidden ?? []).find((r) => r.name === "no-circular");
    const from = new RegExp(String(circular?.from.path));
    for (const file of ["src/index.ts", "dev/github-standin/state.ts", "dev/sandbox/main.ts"])
      expect(from.test(file)).toBe(true);
    const manifest = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts["lint:deps"]).toBe(
      `depcruise ${FOLDERS.join(" ")} --config .dependency-cruiser.cjs`,
    );
    const names = (options.ruleSet?.forbidden ?? []).map((r) => r.name);
    for (const rule of [
      "kernel-knows-no-feature",
      "features-know-no-entry",
      "no-circular",
      "product-not-tooling",
      "scanner-knows-no-github",
      "github-knows-no-service",
      "pure-layers-not-runtime",
      "handlers-are-thin",
      "report-decide-is-pure",
      "report-decide-no-io-modules",
      "checks-plan-not-send",
    ])
      expect(names).toContain(rule);
  });

  it("every feature room with an index.ts is reached from another room only through it", async () => {
    const options = await extractDepcruiseOptions(CONFIG);
    const rules = options.ruleSet?.forbidden ?? [];
    const features = new RegExp(String(rules.find((r) => r.name === "features-know-no-entry")?.from.path));
    const rooms = readdirSync(resolve(ROOT, "src"))
      .filter((f) => features.test(`src/${f}/`) && existsSync(resolve(ROOT, "src", f, "index.ts")))
      .filter((f) => !rules.some((r) => r.name === `room-through-index-${f}`));
    expect(rooms).toEqual([]);
  });
});
