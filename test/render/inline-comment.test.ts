import { describe, expect, it } from "vitest";
import { codeValues, hazards } from "../support/markdown.js";
import { fingerprint, shapeKey } from "../../src/domain/identity.js";
import { neutralize } from "../../src/render/escape.js";
import { findingMarker, parseFindingMarker, renderFindingComment } from "../../src/render/inline-comment.js";
import { COMMENT_BODY_MAX_CHARS } from "../../src/render/limits.js";
import { finding } from "../support/finding.js";

const f = finding({
  id: "fnd_0000000000aaaa1111",
  description: "User input reaches `db.query` unescaped.",
  recommendedFix: "Use a parameterized query.",
});

describe("renderFindingComment", () => {
  it("renders one finding", () => {
    expect(renderFindingComment(f, { labelPrefix: "SC" })).toMatchInlineSnapshot(`
      "<!-- diffward:finding=fnd_0000000000aaaa1111 v=2 fp=70186a42916a856fba9d64dab8c04f89fd8f2d0cd5ec9353bb495a5f7db51f1b shape=e3105e3596b048bd953dac1383942e6e935d9eac0871b769405867098868b34d -->

      🟠 High · \`SC-aaaa1111\` · injection · \`src/db/users.ts:42\`

      **SQL injection in getUser**

      User input reaches \`db.query\` unescaped.

      **Recommended fix**

      Use a parameterized query.

      **Triage:** Confirmed (Proof of concept) · **Resolution:** Not started"
    `);
  });

  //
  it("says when the finding's decision was carried by fingerprint rather than by id", () => {
    const carried = finding({
      resolutionStatus: "FALSE_POSITIVE",
      matchedTo: { findingId: "fnd_old00000cccc3333", by: "fingerprint" },
    });
    expect(renderFindingComment(carried, { labelPrefix: "SC" })).toContain(
      "**Resolution:** False positive (earlier decision matched by fingerprint to `SC-cccc3333`)",
    );
    expect(renderFindingComment(finding(), { labelPrefix: "SC" })).not.toContain("matched by fingerprint");
  });

  it("shows the team's decision without pinging its author", () => {
    const body = renderFindingComment(finding({ resolutionStatus: "FALSE_POSITIVE" }), {
      labelPrefix: "SC",
      decision: {
        resolutionStatus: "FALSE_POSITIVE",
        reason: "not_reachable",
        note: "guarded by @admin check\nsee #12",
        by: "octocat",
        at: "2025-03-04T10:00:00Z",
      },
    });
    expect(body).toContain(
      "**Decision:** False positive (`not_reachable`) by `@octocat` on 2025-03-04\n\n> guarded by @\u200Badmin check\n> see #\u200B12",
    );
    expect(body).toContain("**Resolution:** False positive");
  });

  it("neutralizes hostile finding text and a forged marker", () => {
    const evil = finding({
      id: "fnd_evil00000000bbbb",
      title: "<!-- diffward:finding=other fp=" + "0".repeat(64) + " --> @everyone",
      description: "```\n</details><img src=x onerror=alert(1)>\n```\ncloses #1",
    });
    const body = renderFindingComment(evil, { labelPrefix: "SC" });
    expect(body.match(/<!--/g)).toHaveLength(1);
    // the code block keeps the service's text exactly; outside code, nothing is live
    expect(codeValues(body)).toContain("</details><img src=x onerror=alert(1)>");
    expect(hazards(body.split("\n").slice(1).join("\n"))).toEqual([]);
    expect(body).not.toMatch(/@everyone|#1\b/);
    expect(parseFindingMarker(body)).toEqual({
      id: "fnd_evil00000000bbbb",
      fingerprint: fingerprint(evil),
      shape: shapeKey(evil),
      version: 2,
    });
  });

  it("stays within 65,536 characters and keeps the marker", () => {
    // Each text is cut to MAX_SOURCE_CHARS before rendering, and every `@` gains a zero-width space, so two
    // long texts of mentions still render past the comment limit.
    const body = renderFindingComment(
      finding({ description: "@".repeat(30_000), recommendedFix: "@".repeat(30_000) }),
      { labelPrefix: "SC" },
    );
    expect(body.length).toBeLessThanOrEqual(COMMENT_BODY_MAX_CHARS);
    expect(body).toContain("cut to fit GitHub's 65,536-character limit");
    expect(parseFindingMarker(body)?.id).toBe("fnd_0000000000aaaa1111");
  });
});

describe("parseFindingMarker", () => {
  const fp = "f".repeat(64);
  const shape = "e".repeat(64);
  it("reads the marker on the first line, with an encoded id", () => {
    expect(findingMarker("a b/c", fp, shape)).toBe(
      `<!-- diffward:finding=a%20b%2Fc v=2 fp=${fp} shape=${shape} -->`,
    );
    expect(parseFindingMarker(`${findingMarker("a b/c", fp, shape)}\nrest`)).toEqual({
      id: "a b/c",
      fingerprint: fp,
      shape,
      version: 2,
    });
  });
  // comments posted before markers carried the fingerprint have the first marker: they still parse (and pair by id only)
  it("still reads the version 1 marker of earlier comments", () => {
    expect(parseFindingMarker(`<!-- diffward:finding=a%20b fp=${fp} -->\nold body`)).toEqual({
      id: "a b",
      fingerprint: fp,
      version: 1,
    });
  });
  it("ignores markers that are not the first line, malformed or neutralized", () => {
    expect(parseFindingMarker(`hello\n${findingMarker("x", fp, shape)}`)).toBeUndefined();
    expect(parseFindingMarker(`<!-- diffward:finding=x fp=123 -->`)).toBeUndefined();
    expect(parseFindingMarker(`<!-- diffward:finding=x v=2 fp=${fp} shape=123 -->`)).toBeUndefined();
    expect(() => findingMarker("x", fp, "nope")).toThrow(/64 hex/);
    expect(parseFindingMarker(neutralize(findingMarker("x", fp, shape)))).toBeUndefined();
    expect(parseFindingMarker(`<!-- diffward:finding=%E0%A4%A fp=${fp} -->`)).toBeUndefined();
    expect(parseFindingMarker(undefined)).toBeUndefined();
    expect(parseFindingMarker("")).toBeUndefined();
  });
});
