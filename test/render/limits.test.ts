import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CHECK_RUN_SUMMARY_MAX_BYTES,
  COMMENT_BODY_MAX_CHARS,
  LimitTooSmallError,
  truncateBytes,
  truncateChars,
} from "../../src/render/limits.js";
import { propertyOptions } from "../support/property.js";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");
/** True when `s` has no lone surrogate (a cut inside a pair would leave one). */
const wellFormed = (s: string) =>
  !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe("truncateBytes", () => {
  it("returns text that fits unchanged", () => {
    expect(truncateBytes("short", 100, "NOTE")).toBe("short");
  });

  it("cuts at a line boundary and appends the note within the limit", () => {
    const text = ["line one", "line two", "line three", "line four"].join("\n");
    const out = truncateBytes(text, 30, "NOTE");
    expect(out).toBe("line one\nline two\n\nNOTE");
    expect(bytes(out)).toBeLessThanOrEqual(30);
  });

  it("never cuts inside a multi-byte character", () => {
    const out = truncateBytes("€".repeat(100), 50, "…");
    expect(bytes(out)).toBeLessThanOrEqual(50);
    expect(out).not.toContain("\uFFFD");
    expect(out).toMatch(/^€+\n\n…$/);
  });

  it("closes a <details> block and a code fence left open by the cut", () => {
    const text = `<details><summary>x</summary>\n\n${"row\n".repeat(50)}</details>`;
    const out = truncateBytes(text, 120, "NOTE");
    expect(out).toContain("</details>");
    expect(out.endsWith("NOTE")).toBe(true);
    expect(bytes(out)).toBeLessThanOrEqual(120);
    const fenced = truncateBytes(`\`\`\`\n${"code\n".repeat(50)}\`\`\``, 60, "NOTE");
    expect(fenced.match(/```/g)).toHaveLength(2);
  });

  it("throws a typed error when the note cannot fit", () => {
    expect(() => truncateBytes("x".repeat(100), 5, "a long note")).toThrow(LimitTooSmallError);
    expect(() => truncateBytes("x", 0, "n")).toThrow(RangeError);
  });

  it("respects the check run limit for any text (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 400 }),
        fc.integer({ min: 20, max: 300 }),
        (s, max) => {
          const out = truncateBytes(s, max, "…cut");
          expect(bytes(out)).toBeLessThanOrEqual(max);
          if (bytes(s) <= max) expect(out).toBe(s);
          else expect(out.endsWith("…cut")).toBe(true);
          if (wellFormed(s)) expect(wellFormed(out)).toBe(true);
        },
      ),
      propertyOptions(),
    );
    const big = "x".repeat(70_000);
    expect(bytes(truncateBytes(big, CHECK_RUN_SUMMARY_MAX_BYTES))).toBeLessThanOrEqual(65_535);
  });
});

describe("truncateChars", () => {
  it("keeps surrogate pairs whole and fits the comment limit", () => {
    const out = truncateChars("😀".repeat(40_000), COMMENT_BODY_MAX_CHARS, "NOTE");
    expect(out.length).toBeLessThanOrEqual(COMMENT_BODY_MAX_CHARS);
    expect(wellFormed(out)).toBe(true);
    expect(out.endsWith("NOTE")).toBe(true);
  });
});
