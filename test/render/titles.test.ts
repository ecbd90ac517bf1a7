import { describe, expect, it } from "vitest";
import { toAnnotations } from "../../src/render/annotations.js";
import { renderCheckRunOutput } from "../../src/render/check-run.js";
import { conflictAnswer } from "../../src/render/command-answers.js";
import { findingTitle } from "../../src/render/escape.js";
import { renderFindingComment } from "../../src/render/inline-comment.js";
import { alertMessage, buildSarif } from "../../src/code-scanning/sarif-log.js";
import { finding } from "../support/finding.js";
import { DIFFWARD_HTML, hazards } from "../support/markdown.js";

/**
 * A finding title is untrusted text (spec "Finding (list item)": `title`), rendered in many places. Each of
 * them must leave nothing GitHub acts on: no mention, no `#123`/`GH-123` reference and no autolinked URL,
 * since a full issue or pull request URL in a comment makes a cross-reference in that timeline
 * (https://docs.github.com/en/get-started/writing-on-github/working-with-advanced-formatting/autolinked-references-and-urls).
 */
const HOSTILE =
  "Leak, see https://github.com/octo-org/octo-repo/issues/7 and www.github.com/octo-org/octo-repo/pull/8, " +
  "cc @octocat, octo-org/octo-repo#9, GH-10, http://example.com/x";
const f = finding({ id: "fnd_title0000000001", title: HOSTILE, location: "src/a.ts:3" });
const other = finding({ id: "fnd_title0000000002", title: HOSTILE, location: "src/b.ts:4", severity: "LOW" });

/** Anything in plain text (annotations, SARIF message text) a reader's client could autolink. */
const PLAIN_HAZARD = /[a-z][a-z0-9+.-]*:\/\/|www\.|@[A-Za-z0-9_-]|#\d|\bGH-\d/i;

describe("finding titles are neutralized in every place that renders them", () => {
  it("findingTitle: one line, no mention, reference or autolinked URL, and the words still read", () => {
    const t = findingTitle(HOSTILE);
    expect(t).not.toContain("\n");
    expect(hazards(t)).toEqual([]);
    // the reader still sees the address, only GitHub does not link it
    expect(t.replace(/\u200B/g, "")).toContain("https://github.com/octo-org/octo-repo/issues/7");
    expect(findingTitle(HOSTILE, { plain: true })).not.toMatch(PLAIN_HAZARD);
  });

  it("check run summary (findings table) and text (details headings)", () => {
    const out = renderCheckRunOutput({
      scan: { id: "scan_1", status: "COMPLETED" },
      findings: [f, other],
      failOn: "high",
      disclosure: "full",
      labelPrefix: "SC",
      inlineIds: [],
    });
    expect(out.summary).toContain("octo-org");
    expect(out.text).toContain("octo-org");
    for (const body of [out.title, out.summary, out.text ?? ""])
      expect(hazards(body, undefined, { html: DIFFWARD_HTML }), body).toEqual([]);
  });

  it("annotation titles and messages", () => {
    const annotations = toAnnotations([f, other], "full", { failOn: "high", labelPrefix: "SC" });
    expect(annotations).toHaveLength(2);
    for (const a of annotations) {
      expect(a.title).toContain("octo-org");
      expect(a.title).not.toMatch(PLAIN_HAZARD);
      expect(a.message).not.toMatch(PLAIN_HAZARD);
    }
  });

  it("the finding's review comment", () => {
    const body = renderFindingComment(f, { labelPrefix: "SC" });
    expect(body).toContain("octo-org");
    expect(hazards(body, undefined, { html: DIFFWARD_HTML })).toEqual([]);
  });

  it("command answers that list findings", () => {
    const body = conflictAnswer("SC-00000001", [f, other], "SC");
    expect(body).toContain("octo-org");
    expect(hazards(body)).toEqual([]);
  });

  it("SARIF (the code scanning alert's message), and the message still names the finding", () => {
    const message = alertMessage(f, "SC");
    expect(message).toContain("octo-org");
    expect(message).not.toMatch(PLAIN_HAZARD);
    expect(hazards(message)).toEqual([]);
    expect(message).toMatch(/\(diffward finding fnd_title0000000001\)$/);
    const { log } = buildSarif({
      findings: [f],
      labelPrefix: "SC",
      toolVersion: "0",
      headSha: "a".repeat(40),
      scanId: "s",
    });
    const text = JSON.stringify(log);
    expect(text).not.toContain("https://github.com/octo-org");
  });
});
