/**
 * What a report keeps of its fetched details (src/report/decide/details.ts): each text cut with a stated note,
 * the total bounded most severe first, and the check run's details rendered the same from what is kept
 * (first report) as from the stored report (recompute).
 */
import { describe, expect, it } from "vitest";
import type { ReportFinding } from "../../../src/domain/finding-types.js";
import {
  KEPT_DESCRIPTION_MAX_CHARS,
  KEPT_FIX_MAX_CHARS,
  KEPT_TOTAL_MAX_CHARS,
  keepDetails,
  withKeptDetails,
} from "../../../src/report/decide/details.js";
import type { ReportState } from "../../../src/stores/stored-report.js";
import { renderPullVerdict } from "../../../src/report/decide/current-verdict.js";
import { renderCheckRunOutput } from "../../../src/render/check-run.js";
import { NOTHING_OPEN_TEXT, inPlaceOutput } from "../../../src/triage/check.js";
import { fullCheckRun } from "../../support/check-run.js";
import { nthFinding } from "../../support/finding.js";

/** The `n`-th finding at `severity`, not yet triaged by the service. */
const finding = (n: number, severity: ReportFinding["severity"], extra: Partial<ReportFinding> = {}) =>
  nthFinding(n, { severity, triageStatus: "NEW", ...extra });

const para = (word: string, lines: number) =>
  Array.from({ length: lines }, (_, i) => `${word} line ${i} of the text.`).join("\n");

describe("keepDetails", () => {
  it("cuts a long description and fix at a line, closes an open fence, and says so", () => {
    const long = `${para("desc", 50)}\n\n\`\`\`js\n${para("code", 400)}\n\`\`\``;
    const f = finding(1, "HIGH", { description: long, recommendedFix: para("fix", 400) });
    const kept = keepDetails(new Map([[f.id, f]]))[f.id]!;
    expect(kept.description.length).toBeLessThanOrEqual(KEPT_DESCRIPTION_MAX_CHARS);
    expect(kept.description).toContain("```\n\n_… description cut to 4,000 characters here:");
    expect(kept.description.startsWith(para("desc", 50))).toBe(true);
    expect(kept.recommendedFix!.length).toBeLessThanOrEqual(KEPT_FIX_MAX_CHARS);
    expect(kept.recommendedFix).toContain("_… recommended fix cut to 2,000 characters here:");
    // short texts are kept whole; a finding with neither keeps nothing
    const short = finding(2, "LOW", { description: "Short.", recommendedFix: null });
    const none = finding(3, "LOW", { description: "  " });
    expect(keepDetails(new Map([short, none].map((x) => [x.id, x])))).toEqual({
      [short.id]: { description: "Short." },
    });
  });

  it("keeps at most KEPT_TOTAL_MAX_CHARS in all, most severe first", () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      finding(i, i === 39 ? "CRITICAL" : "LOW", {
        description: para(`d${i}`, 400),
        recommendedFix: para("f", 400),
      }),
    );
    const kept = keepDetails(new Map(many.map((f) => [f.id, f])));
    const total = Object.values(kept).reduce(
      (n, k) => n + k.description.length + (k.recommendedFix?.length ?? 0),
      0,
    );
    expect(total).toBeLessThanOrEqual(KEPT_TOTAL_MAX_CHARS);
    expect(Object.keys(kept).length).toBeGreaterThan(0);
    expect(Object.keys(kept).length).toBeLessThan(many.length);
    expect(kept[many[39]!.id]).toBeDefined(); // the critical one first
  });
});

describe("the recompute renders the details the report showed", () => {
  it("same output.text from the stored report as from the first report", () => {
    const inline = finding(1, "CRITICAL", {
      description: "Uses `eval` on @someone's input, see #4.",
      recommendedFix: "Parse it with `JSON.parse`.",
    });
    const other = finding(2, "HIGH");
    const listed = [
      { ...inline, description: undefined, recommendedFix: undefined },
      other,
    ] satisfies ReportFinding[];
    const kept = keepDetails(new Map([[inline.id, inline]]));
    const first = fullCheckRun(withKeptDetails(listed, kept));
    const report = {
      scanId: "scan_1",
      projectId: "prj_1",
      checkRunId: 1,
      headSha: "a".repeat(40),
      installationId: 1,
      accountLogin: "acme",
      config: { failOn: "high", disclosure: "full" },
      presetRef: "diff",
      findings: [inline, other].map((f) => ({
        id: f.id,
        label: f.id,
        fingerprint: f.id,
        severity: f.severity,
        title: f.title,
        location: f.location,
        category: f.category,
        triageStatus: f.triageStatus,
        resolutionStatus: f.resolutionStatus,
        commentId: 7,
      })),
      details: kept,
      reportedAt: 0,
    } as unknown as ReportState;
    const again = renderPullVerdict(report, listed, { labelPrefix: "SC" }).output;
    expect(first.text).toContain("Parse it with `JSON.parse`.");
    expect(again.text).toBe(first.text);
    // without the stored details the recompute would have lost them
    expect(
      renderPullVerdict({ ...report, details: undefined }, listed, { labelPrefix: "SC" }).output.text,
    ).not.toContain("JSON.parse");
  });
});

describe("an open finding without its description and fix says where to read them", () => {
  it("its review comment, its page in the service, or the service", () => {
    const f = finding(1, "HIGH");
    const model = {
      scan: { id: "scan_1", status: "COMPLETED" },
      findings: [f],
      failOn: "high" as const,
      disclosure: "full" as const,
      labelPrefix: "SC",
    };
    expect(renderCheckRunOutput({ ...model, inlineIds: [f.id] }).text).toContain(
      "_Description and recommended fix: see its review comment on this pull request._",
    );
    expect(
      renderCheckRunOutput({ ...model, inlineIds: [f.id], publicUrl: "https://s.example", projectId: "p" })
        .text,
    ).toContain(
      `_Description and recommended fix: see [its page in the scanning service](https://s.example/projects/p/findings/${f.id}) or its review comment on this pull request._`,
    );
    expect(renderCheckRunOutput({ ...model, inlineIds: [] }).text).toContain(
      "_Description and recommended fix: see this finding in the scanning service._",
    );
  });

  it("an in-place recompute never leaves the old details standing", () => {
    expect(inPlaceOutput({ title: "t", summary: "s" }, "full").text).toBe(NOTHING_OPEN_TEXT);
    expect(inPlaceOutput({ title: "t", summary: "s", text: "x" }, "full").text).toBe("x");
    expect(inPlaceOutput({ title: "t", summary: "s" }, "summary").text).toBeUndefined();
  });
});
