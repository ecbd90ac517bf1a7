import { describe, expect, it } from "vitest";
import { codeValues, hazards } from "../support/markdown.js";
import { fingerprint } from "../../src/domain/identity.js";
import { neutralize } from "../../src/render/escape.js";
import { findingMarker, parseFindingMarker, renderFindingComment } from "../../src/render/inline-comment.js";
import { COMMENT_BODY_MAX_CHARS } from "../../src/render/limits.js";
import { finding } from "../domain/fixtures.js";

const f = finding({
  id: "fnd_0000000000aaaa1111",
  description: "User input reaches `db.query` unescaped.",
  recommendedFix: "Use a parameterized query.",
});

describe("renderFindingComment", () => {
  it("renders one finding", () => {
    expect(renderFindingComment(f, { labelPrefix: "SC" })).toMatchInlineSnapshot(`
      "<!-- diffward:finding=fnd_0000000000aaaa1111 fp=f8f8a0cd8a84e70ac5273045bd86f25b113dcd99adde84d2a9d6dbe92a7f6ce7 -->

      🟠 High · \`SC-aaaa1111\` · injection · \`src/db/users.ts:42\`

      **SQL injection in getUser**

      User input reaches \`db.query\` unescaped.

      **Recommended fix**

      Use a parameterized query.

      **Triage:** Confirmed (Proof of concept) · **Resolution:** Not started"
    `);
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
    expect(parseFindingMarker(body)).toEqual({ id: "fnd_evil00000000bbbb", fingerprint: fingerprint(evil) });
  });

  it("stays within 65,536 characters and keeps the marker", () => {
    const body = renderFindingComment(
      finding({ description: "word ".repeat(30_000) + "\n".repeat(10) + "x".repeat(20_000) }),
      {
        labelPrefix: "SC",
      },
    );
    expect(body.length).toBeLessThanOrEqual(COMMENT_BODY_MAX_CHARS);
    expect(body).toContain("cut to fit GitHub's 65,536-character limit");
    expect(parseFindingMarker(body)?.id).toBe("fnd_0000000000aaaa1111");
  });
});

describe("parseFindingMarker", () => {
  const fp = "f".repeat(64);
  it("reads the marker on the first line, with an encoded id", () => {
    expect(parseFindingMarker(`${findingMarker("a b/c", fp)}\nrest`)).toEqual({
      id: "a b/c",
      fingerprint: fp,
    });
  });
  it("ignores markers that are not the first line, malformed or neutralized", () => {
    expect(parseFindingMarker(`hello\n${findingMarker("x", fp)}`)).toBeUndefined();
    expect(parseFindingMarker(`<!-- diffward:finding=x fp=123 -->`)).toBeUndefined();
    expect(parseFindingMarker(neutralize(findingMarker("x", fp)))).toBeUndefined();
    expect(parseFindingMarker(`<!-- diffward:finding=%E0%A4%A fp=${fp} -->`)).toBeUndefined();
    expect(parseFindingMarker(undefined)).toBeUndefined();
    expect(parseFindingMarker("")).toBeUndefined();
  });
});
