import { describe, expect, it } from "vitest";
import { SEVERITIES } from "../../src/scanner/catalog.js";
import { details, link, severityBadge, table } from "../../src/render/markdown.js";
import { escapeTableCell } from "../../src/render/escape.js";

describe("markdown helpers", () => {
  it("details", () => {
    expect(details("Ruled out", "body")).toMatchInlineSnapshot(`
      "<details><summary>Ruled out</summary>

      body

      </details>"
    `);
  });

  it("table pads short rows, escapes pipes once and refuses long rows", () => {
    expect(table(["A", "B"], [["x|y", "1"], [escapeTableCell("p|q\nr")]])).toMatchInlineSnapshot(`
      "| A | B |
      | --- | --- |
      | x\\|y | 1 |
      | p\\|q<br>r |   |"
    `);
    expect(() => table(["A"], [["1", "2"]])).toThrow(RangeError);
    expect(() => table([], [])).toThrow(RangeError);
  });

  it("severity badges", () => {
    expect(SEVERITIES.map(severityBadge)).toEqual([
      "🔴 Critical",
      "🟠 High",
      "🟡 Medium",
      "🔵 Low",
      "⚪ Info",
    ]);
  });

  it("links only http(s) URLs and escapes parentheses", () => {
    expect(link("scan", "https://svc.example/scans/1 (x)")).toBe(
      "[scan](https://svc.example/scans/1%20%28x%29)",
    );
    expect(link("scan", "javascript:alert(1)")).toBe("scan");
    expect(link("scan", "not a url")).toBe("scan");
  });
});
