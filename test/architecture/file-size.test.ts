/**
 * No file in `src/` is over {@link MAX_FILE_LINES} lines: a file that long holds more than one thing, and a
 * newcomer reads a module whole (STYLE.md: "one main function per kebab-case file where that keeps files
 * small"). Lines are counted as `wc -l` counts them.
 *
 * {@link OVER_THE_LIMIT} is the allow-list of the files still over it, each with its size when it was listed
 * as a ceiling. It may only shrink, until it is empty: a listed file may not grow past its ceiling, and once
 * a listed file is within the limit, split or gone, this test fails until its row is removed (and a ceiling
 * is lowered, never raised, when a listed file shrinks but stays over). No file is ever added to it.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

/** The most lines a file in `src/` may have. */
const MAX_FILE_LINES = 600;

/** The files still over {@link MAX_FILE_LINES}, each with its ceiling in lines; to shrink to empty. */
const OVER_THE_LIMIT: Readonly<Record<string, number>> = {};

/** Every `.ts` file below `src/`, as a path from the repository root with `/` separators. */
function sourceFiles(): string[] {
  return readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => `src/${f.split("\\").join("/")}`);
}

/** The number of newline characters in `file`, as `wc -l` counts lines. */
function lineCount(file: string): number {
  return readFileSync(join(ROOT, file), "utf8").split("\n").length - 1;
}

const SIZES = new Map(sourceFiles().map((file) => [file, lineCount(file)]));

describe(`no file in src/ over ${MAX_FILE_LINES} lines`, () => {
  it("every file not on the allow-list is within the limit", () => {
    expect(SIZES.size).toBeGreaterThan(100);
    const over = [...SIZES]
      .filter(([file, lines]) => lines > MAX_FILE_LINES && !(file in OVER_THE_LIMIT))
      .map(([file, lines]) => `${file}: ${lines} lines (split it by what it does)`);
    expect(over).toEqual([]);
  });

  it("every file on the allow-list is still over the limit and not past its ceiling", () => {
    const stale = Object.entries(OVER_THE_LIMIT).flatMap(([file, ceiling]) => {
      const lines = SIZES.get(file);
      if (lines === undefined) return [`${file}: gone; take it off the allow-list`];
      if (lines <= MAX_FILE_LINES)
        return [`${file}: ${lines} lines, within the limit; take it off the allow-list`];
      if (lines > ceiling) return [`${file}: ${lines} lines, grown past its ceiling of ${ceiling}`];
      return [];
    });
    expect(stale).toEqual([]);
  });
});
