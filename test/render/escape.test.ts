import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ZWSP,
  codeBlock,
  escapePipes,
  escapeTableCell,
  inlineCode,
  neutralize,
} from "../../src/render/escape.js";
import { propertyOptions } from "../support/property.js";

describe("neutralize", () => {
  it.each([
    ["ping @octocat and @org/team", `ping @${ZWSP}octocat and @${ZWSP}org/team`],
    ["fixes #123, GH-45 and octo/repo#9", `fixes #${ZWSP}123, GH-${ZWSP}45 and octo/repo#${ZWSP}9`],
    ['<img src=x onerror="alert(1)">', "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"],
    ["</details><details open>", "&lt;/details&gt;&lt;details open&gt;"],
    ["<!-- diffward:finding=x fp=y -->", "&lt;!-- diffward:finding=x fp=y --&gt;"],
    ["```js\nevil\n```", `\`${ZWSP}\`${ZWSP}\`js\nevil\n\`${ZWSP}\`${ZWSP}\``],
    ["~~~~", `~${ZWSP}~${ZWSP}~${ZWSP}~`],
    ["a\r\nb\u0000c\u0007", "a\nbc"],
    ["abc\u202Edef", "abc[U+202E]def"],
    ["keep **bold** and `code`", "keep **bold** and `code`"],
  ])("%j", (input, expected) => {
    expect(neutralize(input)).toBe(expected);
  });

  it("output has no tag opener, no mention, no reference, no fence (property)", () => {
    const nasty = fc.constantFrom(
      "<",
      ">",
      "@",
      "#",
      "`",
      "~",
      "&",
      "!",
      "-",
      "GH",
      "a",
      "1",
      "/",
      "\n",
      " ",
      "|",
      ":",
      "w",
      ".",
    );
    const text = fc.oneof(
      fc.string(),
      fc.array(nasty, { maxLength: 60 }).map((a) => a.join("")),
    );
    fc.assert(
      fc.property(text, (s) => {
        const out = neutralize(s);
        expect(out).not.toMatch(/<[A-Za-z!/?]/);
        expect(out).not.toMatch(/@[A-Za-z0-9_-]/);
        expect(out).not.toMatch(/#\d/);
        expect(out).not.toMatch(/\bGH-\d/i);
        expect(out).not.toContain("```");
        expect(out).not.toContain("~~~");
        expect(out).not.toContain("<!--");
        expect(out).not.toContain("://");
        expect(out).not.toMatch(/www\./i);
      }),
      propertyOptions(3000),
    );
  });
});

describe("table cells", () => {
  it("escapes pipes once (idempotent) and turns newlines into <br>", () => {
    expect(escapeTableCell("a|b\nc")).toBe("a\\|b<br>c");
    expect(escapePipes(escapePipes("a|b \\| c \\\\| d"))).toBe("a\\|b \\| c \\\\\\| d");
  });
  it("keeps a cell to one cell whatever the input (property)", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const cell = escapeTableCell(s);
        expect(cell).not.toMatch(/\n/);
        // every pipe is preceded by an odd number of backslashes
        for (const m of cell.matchAll(/(\\*)\|/g)) expect(m[1]!.length % 2).toBe(1);
      }),
      propertyOptions(),
    );
  });
});

describe("inlineCode and codeBlock", () => {
  it("picks a fence longer than any backtick run", () => {
    expect(inlineCode("a`b")).toBe("``a`b``");
    expect(inlineCode("`x`")).toBe("`` `x` ``");
    expect(inlineCode("line1\nline2")).toBe("`line1 line2`");
    expect(inlineCode("")).toBe("` `");
    expect(codeBlock("x\n```\ny")).toBe("````\nx\n```\ny\n````");
  });
  it("the content can never close the span early (property)", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const code = inlineCode(s);
        const fence = /^`+/.exec(code)![0];
        const inner = code.slice(fence.length, code.length - fence.length);
        expect(code.endsWith(fence)).toBe(true);
        for (const run of inner.match(/`+/g) ?? []) expect(run.length).not.toBe(fence.length);
      }),
      propertyOptions(),
    );
  });
});
