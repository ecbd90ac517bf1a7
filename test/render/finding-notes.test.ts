import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isDiffwardNote, MAX_NOTES_SHOWN, renderFindingNotes } from "../../src/render/finding-notes.js";
import { renderFindingComment } from "../../src/render/inline-comment.js";
import type { ReportFinding } from "../../src/domain/finding-types.js";
import { propertyOptions } from "../support/property.js";

const finding: ReportFinding = {
  id: "fnd_aaaaaaaa11111111",
  title: "SQL injection",
  location: "src/db.js:12",
  severity: "HIGH",
  category: "injection",
  triageStatus: "NEW",
  resolutionStatus: "NOT_STARTED",
};
const note = (body: string, createdAt = "2026-03-04T05:06:07Z", authorName: string | null = "Jane Sec") => ({
  body,
  createdAt,
  authorName,
});

describe("the service's notes in a finding comment", () => {
  it("shows author name, date and the Markdown under a collapsed block, oldest first", () => {
    const block = renderFindingNotes([
      note("Second: **confirmed** in prod", "2026-03-05T00:00:00Z", "Raj"),
      note("First look: the `id` param is *unchecked*"),
    ])!;
    expect(block.startsWith("<details><summary>Discussion in the scanning service (2 notes)</summary>")).toBe(
      true,
    );
    expect(block.trimEnd().endsWith("</details>")).toBe(true);
    expect(block.indexOf("**Jane Sec** · 2026-03-04")).toBeLessThan(block.indexOf("**Raj** · 2026-03-05"));
    expect(block).toContain("**confirmed**");
    expect(block).toContain("`id`");
  });

  it("untrusted notes cannot mention, reference, inject HTML or close the block; code stays code", () => {
    const unescapedTag = /(?<!\\)<[A-Za-z/!?]/;
    const inner = (block: string) =>
      block.slice(block.indexOf("</summary>") + "</summary>".length, block.lastIndexOf("</details>"));
    const block = renderFindingNotes([
      note(
        "ping @security-team about #12 </details><img src=x onerror=alert(1)>\n```\nfence",
        undefined,
        "<b>@mallory</b>",
      ),
    ])!;
    expect(block).not.toMatch(/@(security-team|mallory)/);
    expect(block).not.toMatch(/#12/);
    expect(inner(block)).not.toMatch(unescapedTag);
    expect(block.match(/(?<!\\)<\/details>/g)).toHaveLength(1);
    expect(block).toMatch(/```\nfence\n```\n\n<\/details>$/); // the open fence is closed inside the block
    fc.assert(
      fc.property(fc.string(), fc.string(), (body, name) => {
        const out = renderFindingNotes([note(body || "x", undefined, name)])!;
        expect(out.startsWith("<details><summary>")).toBe(true);
        expect(out.endsWith("</details>")).toBe(true);
        expect(out).not.toMatch(/@[A-Za-z0-9_-]/);
      }),
      propertyOptions(),
    );
  });

  it("leaves out diffward's own notes, never shows e-mails, and keeps the newest notes", () => {
    expect(isDiffwardNote("looks fine\n\n— GitHub user @octo via diffward (acme/api#7)")).toBe(true);
    expect(isDiffwardNote("diffward applied an earlier decision of this pull request: …")).toBe(true);
    expect(renderFindingNotes([note("x\n\n— GitHub user @octo via diffward (a/b#1)")])).toBeUndefined();
    expect(renderFindingNotes([])).toBeUndefined();
    const many = Array.from({ length: MAX_NOTES_SHOWN + 3 }, (_, i) =>
      note(`note ${i}`, `2026-01-${String(i + 1).padStart(2, "0")}T00:00:00Z`, null),
    );
    const block = renderFindingNotes(many)!;
    expect(block).toContain(`(${MAX_NOTES_SHOWN + 3} notes)`);
    expect(block).toContain("_3 older notes in the scanning service._");
    expect(block).not.toContain("note 2\n");
    expect(block).toContain(`note ${MAX_NOTES_SHOWN + 2}`);
    expect(block).toContain("_someone_");
  });

  it("the finding comment carries the block and a pending approval line", () => {
    const body = renderFindingComment(finding, {
      labelPrefix: "SC",
      notes: [note("We saw this in the pentest.")],
      pendingApproval: {
        resolutionStatus: "FALSE_POSITIVE",
        reason: "not_reachable",
        requestedBy: "octo-writer",
        requestedAt: "2026-03-04T05:06:07Z",
        approvers: "maintain",
      },
    });
    expect(body).toContain("Discussion in the scanning service (1 note)");
    expect(body).toContain("We saw this in the pentest.");
    expect(body).toContain("**Dismissal awaiting approval:** False positive (`not_reachable`)");
    expect(body).toContain("`@octo-writer`");
    expect(body).toContain("`maintain`");
    expect(renderFindingComment(finding, { labelPrefix: "SC" })).not.toContain("Discussion");
  });
});
