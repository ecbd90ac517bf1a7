/**
 * File names say what a file holds: at most 10 files in `src/` share their base name with another file of
 * `src/` (`index.ts`, a folder's entry, aside), so a name met in a stack trace or an import leads to one place
 * (STYLE.md "The shape of the code": one main function per kebab-case file).
 */
import { readdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");

/** The TypeScript files of `src/`, relative to it. */
const sources = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((p) => p.endsWith(".ts"));

describe("file names in src/", () => {
  it("at most 10 files share their name with another (index.ts aside)", () => {
    const byName = new Map<string, string[]>();
    for (const p of sources.filter((s) => basename(s) !== "index.ts"))
      byName.set(basename(p), [...(byName.get(basename(p)) ?? []), join("src", p)]);
    const repeated = [...byName.values()].filter((paths) => paths.length > 1).flat();
    expect(sources.length).toBeGreaterThan(100);
    expect(repeated.length, repeated.sort().join("\n")).toBeLessThanOrEqual(10);
  });
});
