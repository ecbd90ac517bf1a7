/** The comment handler's guards (src/handlers/comments.ts): who may give a command, what looks like one. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isBot, looksLikeCommand } from "../../src/handlers/comments.js";
import { propertyOptions } from "../support/property.js";

describe("comment handler guards", () => {
  it("bots never give commands", () => {
    expect(isBot({ login: "diffward[bot]", type: "Bot" })).toBe(true);
    expect(isBot({ login: "renovate[bot]", type: "User" })).toBe(true);
    expect(isBot({ login: "octo", type: "User" })).toBe(false);
    expect(isBot(null)).toBe(true);
  });

  it("only a first meaningful line starting with / looks like a command", () => {
    expect(looksLikeCommand("/fp")).toBe(true);
    expect(looksLikeCommand("> quoted /fp\n\n/resolve fixed_in_code")).toBe(true);
    expect(looksLikeCommand("thanks!\n/fp")).toBe(false);
    expect(looksLikeCommand("```\n/fp\n```")).toBe(false);
    expect(looksLikeCommand(null)).toBe(false);
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(typeof looksLikeCommand(s)).toBe("boolean");
      }),
      propertyOptions(),
    );
  });
});
