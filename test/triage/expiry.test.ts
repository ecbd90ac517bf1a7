import { describe, expect, it } from "vitest";
import { acceptanceLine, expiredNote } from "../../src/domain/acceptance.js";
import { decisionsTtlSeconds } from "../../src/triage/decisions.js";
import { expiryIdOf, latestAcceptance } from "../../src/triage/expiry.js";
import { acceptance } from "../support/finding.js";

const PULL = { owner: "octo", repo: "app", pullNumber: 9 };
const DECISION = acceptance();

describe("an expiry's id", () => {
  it("is a BullMQ job id (no ':', not only digits), the same for the same acceptance and new for another", () => {
    const id = expiryIdOf(PULL, DECISION);
    expect(id).toMatch(/^expiry-[0-9a-f]{24}$/);
    expect(expiryIdOf(PULL, { ...DECISION })).toBe(id);
    expect(expiryIdOf(PULL, { ...DECISION, expiresAt: "2026-05-01T23:59:59.999Z" })).not.toBe(id);
    expect(expiryIdOf({ ...PULL, pullNumber: 10 }, DECISION)).not.toBe(id);
  });
});

describe("the acceptance a finding's notes still carry", () => {
  const line = (at: string, by = "alice") => ({ body: `x\n\n${acceptanceLine(at, by)}`, createdAt: "" });
  it("is the newest acceptance line, unless an expiry note is newer", () => {
    const a = { ...line("2026-04-01T23:59:59.999Z"), createdAt: "2026-03-01T00:00:00Z" };
    const b = { ...line("2026-05-01T23:59:59.999Z", "bob"), createdAt: "2026-03-02T00:00:00Z" };
    const other = { body: "a user's note", createdAt: "2026-03-03T00:00:00Z" };
    expect(latestAcceptance([b, a, other])).toEqual({
      expiresAt: "2026-05-01T23:59:59.999Z",
      by: "bob",
      at: "2026-03-02T00:00:00Z",
    });
    const ended = {
      body: expiredNote("bob", "2026-05-01T23:59:59.999Z", "WONT_FIX"),
      createdAt: "2026-05-02T00:00:00Z",
    };
    expect(latestAcceptance([a, b, ended])).toBeUndefined();
    expect(latestAcceptance([other])).toBeUndefined();
  });
});

describe("how long a decisions document is kept", () => {
  it("90 days, or 7 days past its latest expiry when that is later", () => {
    const now = Date.parse("2026-03-04T00:00:00Z");
    expect(decisionsTtlSeconds({ decisions: [], severities: [] }, now)).toBe(90 * 86_400);
    const far = { ...DECISION, expiresAt: "2027-03-04T00:00:00.000Z" };
    expect(decisionsTtlSeconds({ decisions: [far], severities: [] }, now)).toBe((365 + 7) * 86_400);
  });
});
