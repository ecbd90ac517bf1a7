import { describe, expect, it } from "vitest";
import { githubWebUrl } from "../../src/org-page/page-deps.js";

describe("githubWebUrl", () => {
  it("is github.com, or the GitHub Enterprise Server host with its protocol", () => {
    expect(githubWebUrl({})).toBe("https://github.com");
    expect(githubWebUrl({ GHE_HOST: "github.example.com" })).toBe("https://github.example.com");
    expect(githubWebUrl({ GHE_HOST: "ghe.local:8080", GHE_PROTOCOL: "http" })).toBe("http://ghe.local:8080");
  });
});
