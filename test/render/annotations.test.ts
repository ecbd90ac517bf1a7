import { describe, expect, it } from "vitest";
import { batches, toAnnotations } from "../../src/render/annotations.js";
import { finding } from "../support/finding.js";

const findings = [
  finding({
    id: "fnd_aaaaaaaa11111111",
    severity: "HIGH",
    location: "src/a.ts:3-5",
    description: "Bad <b>thing</b>",
    recommendedFix: "Use params",
  }),
  finding({ id: "fnd_bbbbbbbb22222222", severity: "MEDIUM", location: "src/b.ts#L9", displayId: 2 }),
  finding({ id: "fnd_cccccccc33333333", severity: "LOW", location: "lib/c.py:1", displayId: 3 }),
  finding({ id: "fnd_dddddddd44444444", severity: "CRITICAL", location: "module Foo", displayId: 4 }),
  finding({
    id: "fnd_eeeeeeee55555555",
    severity: "CRITICAL",
    location: "src/e.ts:1",
    triageStatus: "FALSE_POSITIVE",
  }),
];

describe("toAnnotations", () => {
  it("annotates open findings with a line, with levels by blocking and severity", () => {
    const out = toAnnotations(findings, "full", { failOn: "high", labelPrefix: "SC" });
    expect(out).toEqual([
      {
        path: "src/a.ts",
        start_line: 3,
        end_line: 5,
        annotation_level: "failure",
        title: "SC-11111111 · High · SQL injection in getUser",
        message: "Bad <b>thing</b>\n\nTriage: Confirmed. Resolution: Not started.",
        raw_details: "Recommended fix:\nUse params",
      },
      expect.objectContaining({ path: "src/b.ts", start_line: 9, end_line: 9, annotation_level: "warning" }),
      expect.objectContaining({ path: "lib/c.py", annotation_level: "notice" }),
    ]);
  });

  it("posts no annotation with disclosure summary: an annotation would show the finding's file and lines", () => {
    expect(toAnnotations(findings, "full", { failOn: "critical" })).toHaveLength(3);
    expect(toAnnotations(findings, "summary", { failOn: "critical" })).toEqual([]);
  });

  it("cuts long titles to 255 characters", () => {
    const [a] = toAnnotations([finding({ title: "x ".repeat(400) })], "full", { failOn: "none" });
    expect(a!.title.length).toBeLessThanOrEqual(255);
    expect(a!.title.endsWith("…")).toBe(true);
  });
});

describe("batches", () => {
  it("splits into chunks of 50 by default", () => {
    const items = Array.from({ length: 120 }, (_, i) => i);
    expect(batches(items).map((b) => b.length)).toEqual([50, 50, 20]);
    expect(batches(items).flat()).toEqual(items);
    expect(batches([])).toEqual([]);
    expect(() => batches(items, 0)).toThrow(RangeError);
  });
});
