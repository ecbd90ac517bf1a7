import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatLocation, parseLocation } from "../../src/domain/location.js";
import { propertyOptions } from "../support/property.js";

describe("parseLocation", () => {
  it.each([
    ["src/app.ts:12", { path: "src/app.ts", startLine: 12, endLine: 12 }],
    ["src/app.ts:12-20", { path: "src/app.ts", startLine: 12, endLine: 20 }],
    ["src/app.ts:12:7", { path: "src/app.ts", startLine: 12, endLine: 12 }],
    ["src/app.ts#L12-L20", { path: "src/app.ts", startLine: 12, endLine: 20 }],
    ["src/app.ts#L12-20", { path: "src/app.ts", startLine: 12, endLine: 20 }],
    ["src/app.ts#L12", { path: "src/app.ts", startLine: 12, endLine: 12 }],
    ["./lib/x.py:3", { path: "lib/x.py", startLine: 3, endLine: 3 }],
    ["/lib/x.py", { path: "lib/x.py" }],
    ["setup.py", { path: "setup.py" }],
    ["docker/Dockerfile", { path: "docker/Dockerfile" }],
    ["  src/a.go:5  ", { path: "src/a.go", startLine: 5, endLine: 5 }],
    // a reversed range is swapped
    ["src/app.ts:20-12", { path: "src/app.ts", startLine: 12, endLine: 20 }],
    ["src/app.ts#L20-L12", { path: "src/app.ts", startLine: 12, endLine: 20 }],
  ])("parses %j", (input, expected) => {
    expect(parseLocation(input)).toEqual(expected);
  });

  it.each([
    "",
    "   ",
    "module Foo",
    "Dockerfile",
    "https://example.com/src/app.ts:12",
    "src/app.ts:0",
    "src/app.ts:0-4",
    "src/app.ts#L0",
    "src/app.ts:99999999999999999999",
    "../etc/passwd",
    "src/../secrets.txt",
    "src//a.ts",
    "src/",
    "src/my file.ts:3",
    "a/b.ts:1-2:3",
    "//a.ts",
  ])("refuses %j", (input) => {
    expect(parseLocation(input)).toBeUndefined();
  });

  it("never throws and always round-trips through formatLocation", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        const loc = parseLocation(s);
        if (loc === undefined) return;
        expect(parseLocation(formatLocation(loc))).toEqual(loc);
        if (loc.startLine !== undefined) expect(loc.startLine).toBeLessThanOrEqual(loc.endLine!);
      }),
      propertyOptions(2000),
    );
  });

  it("round-trips generated locations in every accepted shape", () => {
    const segment = fc
      .stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,10}$/)
      .filter((s) => s !== "." && s !== "..");
    const path = fc
      .tuple(fc.array(segment, { minLength: 1, maxLength: 3 }), fc.constantFrom("ts", "py", "go", "rs"))
      .map(([dirs, ext]) => `${dirs.join("/")}.${ext}`);
    const line = fc.integer({ min: 1, max: 1_000_000 });
    fc.assert(
      fc.property(path, line, line, fc.integer({ min: 0, max: 4 }), (p, a, b, shape) => {
        const text = [
          `${p}:${a}-${b}`,
          `${p}#L${a}-L${b}`,
          `./${p}:${a}-${b}`,
          `/${p}#L${a}-${b}`,
          `${p}:${a}`,
        ][shape]!;
        const loc = parseLocation(text);
        const start = shape === 4 ? a : Math.min(a, b);
        const end = shape === 4 ? a : Math.max(a, b);
        expect(loc).toEqual({ path: p, startLine: start, endLine: end });
        expect(parseLocation(formatLocation(loc!))).toEqual(loc);
      }),
      propertyOptions(),
    );
  });
});
