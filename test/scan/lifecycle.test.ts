import { describe, expect, it } from "vitest";
import { closeIsStale } from "../../src/scan/lifecycle.js";
import type { PullState } from "../../src/stores/pull-state.js";

const followed: PullState = {
  installationId: 7,
  owner: "acme",
  repo: "web",
  pullNumber: 3,
  headSha: "b".repeat(40),
  updatedAt: "2026-01-01T00:00:10Z",
};

describe("closeIsStale", () => {
  it("is stale when the followed event (a reopen, a push) came after the close", () => {
    expect(closeIsStale({ updatedAt: "2026-01-01T00:00:09Z" }, followed)).toBe(true);
  });

  it("is not stale when the close came at or after the followed event", () => {
    expect(closeIsStale({ updatedAt: "2026-01-01T00:00:10Z" }, followed)).toBe(false);
    expect(closeIsStale({ updatedAt: "2026-01-01T00:00:11Z" }, followed)).toBe(false);
  });

  it("compares times, not strings (fractions of a second)", () => {
    expect(closeIsStale({ updatedAt: "2026-01-01T00:00:09.500Z" }, followed)).toBe(true);
  });

  it("is never stale against an explicit request's state, stamped with diffward's clock", () => {
    expect(closeIsStale({ updatedAt: "2026-01-01T00:00:09Z" }, { ...followed, explicitNonce: "n1" })).toBe(
      false,
    );
  });

  it("is not stale when either time is missing", () => {
    expect(closeIsStale({}, followed)).toBe(false);
    const { updatedAt: _u, ...noTime } = followed;
    expect(closeIsStale({ updatedAt: "2026-01-01T00:00:09Z" }, noTime)).toBe(false);
  });
});
