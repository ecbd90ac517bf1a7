import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DiffParseError, commentableLines, pickCommentLine } from "../../src/domain/diff.js";
import { propertyOptions } from "../support/property.js";

const PATCH = [
  "@@ -1,4 +1,5 @@ function a() {",
  " line1",
  "-old2",
  "+new2",
  "+new3",
  " line4",
  " line5",
  "@@ -20,3 +21,2 @@",
  " ctx21",
  "-gone",
  " ctx22",
].join("\n");

describe("commentableLines", () => {
  it("collects added and context lines of every hunk on the right side", () => {
    expect([...commentableLines(PATCH)].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 21, 22]);
  });

  it("ignores the no-newline marker and removed lines", () => {
    const patch =
      "@@ -1,2 +1,2 @@\n-a\n-b\n\\ No newline at end of file\n+a\n+b\n\\ No newline at end of file";
    expect([...commentableLines(patch)]).toEqual([1, 2]);
  });

  it("reads a header without counts and a new file", () => {
    expect([...commentableLines("@@ -0,0 +1 @@\n+only")]).toEqual([1]);
    expect([...commentableLines("@@ -0,0 +1,3 @@\n+a\n+b\n+c")]).toEqual([1, 2, 3]);
  });

  it("gives nothing for a deleted file, an empty or missing patch", () => {
    expect(commentableLines("@@ -1,2 +0,0 @@\n-a\n-b").size).toBe(0);
    expect(commentableLines("").size).toBe(0);
    expect(commentableLines(undefined).size).toBe(0);
    expect(commentableLines(null).size).toBe(0);
  });

  it("treats an empty line inside a hunk as context and ignores lines past the hunk's count", () => {
    expect([...commentableLines("@@ -5,2 +5,2 @@\n a\n\n+extra beyond count\n")]).toEqual([5, 6]);
  });

  it("skips git headers outside hunks", () => {
    const patch = "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b";
    expect([...commentableLines(patch)]).toEqual([1]);
  });

  it("throws a typed error for a malformed hunk header", () => {
    expect(() => commentableLines("@@ -x +y @@\n+a")).toThrow(DiffParseError);
    let caught: unknown;
    try {
      commentableLines(" a\n@@ nope");
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DiffParseError);
    expect((caught as DiffParseError).patchLine).toBe(2);
    expect((caught as DiffParseError).message).toContain("@@ nope");
  });

  it("matches a model of the right side for generated hunks", () => {
    const op = fc.constantFrom("+", "-", " ");
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.array(op, { minLength: 1, maxLength: 40 }),
        (start, ops) => {
          const oldCount = ops.filter((o) => o !== "+").length;
          const newCount = ops.filter((o) => o !== "-").length;
          const patch = [
            `@@ -${start},${oldCount} +${start},${newCount} @@`,
            ...ops.map((o, i) => `${o}l${i}`),
          ].join("\n");
          const expected: number[] = [];
          let line = start;
          for (const o of ops) if (o !== "-") expected.push(line++);
          expect([...commentableLines(patch)]).toEqual(expected);
        },
      ),
      propertyOptions(),
    );
  });
});

describe("pickCommentLine", () => {
  const lines = commentableLines(PATCH);
  it("uses the end line when the diff shows it", () => {
    expect(pickCommentLine({ startLine: 2, endLine: 4 }, lines)).toBe(4);
  });
  it("falls back to the last line of the range in the diff", () => {
    expect(pickCommentLine({ startLine: 4, endLine: 15 }, lines)).toBe(5);
    expect(pickCommentLine({ startLine: 1, endLine: 1_000_000_000 }, lines)).toBe(22);
  });
  it("gives undefined outside the diff or without a line", () => {
    expect(pickCommentLine({ startLine: 8, endLine: 20 }, lines)).toBeUndefined();
    expect(pickCommentLine({}, lines)).toBeUndefined();
    expect(pickCommentLine(undefined, lines)).toBeUndefined();
  });
  it("uses the start line when there is no end line", () => {
    expect(pickCommentLine({ startLine: 21 }, lines)).toBe(21);
  });
  it("always returns a line inside both the range and the diff", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 200 }),
        (diffLines, start, span) => {
          const set = new Set(diffLines);
          const got = pickCommentLine({ startLine: start, endLine: start + span }, set);
          const inRange = diffLines.filter((l) => l >= start && l <= start + span);
          expect(got).toBe(inRange.length ? Math.max(...inRange) : undefined);
        },
      ),
      propertyOptions(),
    );
  });
});
