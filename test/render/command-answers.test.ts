/** Command answers (src/render/command-answers.ts): attribution, escaping, no password. */
import { describe, expect, it } from "vitest";
import { attributed, conflictAnswer, publishedAnswer } from "../../src/render/command-answers.js";

describe("answers", () => {
  it("every note names the GitHub user diffward acts for", () => {
    const pull = { owner: "acme", repo: "api", pullNumber: 7 };
    expect(attributed("looks fine", "octo", pull)).toBe(
      "looks fine\n\n— GitHub user @octo via diffward (acme/api#7)",
    );
    expect(attributed(undefined, "octo", pull)).toContain("@octo");
  });

  it("conflict candidates are escaped; publishing never shows a password", () => {
    const text = conflictAnswer(
      "SC-11111111",
      [{ id: "fnd_a11111111", title: "<img src=x> @team #1", severity: "HIGH" }],
      "SC",
    );
    expect(text).toContain("`fnd_a11111111`");
    expect(text).not.toMatch(/<img|@team|#1\b/);
    const pub = publishedAnswer("SC-11111111", "pub_1", undefined);
    expect(pub).toContain("`pub_1`");
    expect(pub).not.toContain("http");
    expect(pub).toContain("never asks for an access password");
  });
});
