/** Which finding a command is about (src/commands/finding-target.ts). */
import { describe, expect, it } from "vitest";
import { chooseFinding } from "../../src/commands/index.js";

describe("target choice", () => {
  it("inside a finding thread the thread's finding; in the conversation the named one; else none", () => {
    expect(chooseFinding({ threadFindingId: "f_a", threadCommentId: 5 })).toEqual({
      kind: "thread",
      findingId: "f_a",
      commentId: 5,
    });
    const ref = { kind: "label", short: "01234567", prefix: "SC" } as const;
    expect(chooseFinding({ ref })).toEqual({ kind: "ref", ref });
    expect(chooseFinding({})).toEqual({ kind: "missing" });
  });

  it("a label or id named inside another finding's thread wins over the thread", () => {
    const ref = { kind: "label", short: "89abcdef", prefix: "SC" } as const;
    expect(chooseFinding({ threadFindingId: "f_a", threadCommentId: 5, ref })).toEqual({ kind: "ref", ref });
  });
});
