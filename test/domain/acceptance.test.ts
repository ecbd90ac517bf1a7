import { describe, expect, it } from "vitest";
import {
  acceptanceLine,
  DEFAULT_ACCEPTANCE_RULES,
  expiryText,
  parseAcceptanceLine,
  parseExpiryDate,
  resolveExpiry,
  splitExpiryClause,
} from "../../src/domain/acceptance.js";

const NOW = Date.parse("2026-03-04T05:06:07Z");
const DAY = 24 * 3600_000;

describe("expiry dates", () => {
  it("a date alone is the end of that day, UTC; a date-time needs Z or an offset", () => {
    expect(parseExpiryDate("2027-03-31")).toBe("2027-03-31T23:59:59.999Z");
    expect(parseExpiryDate("2027-03-31T14:00Z")).toBe("2027-03-31T14:00:00.000Z");
    expect(parseExpiryDate("2027-03-31T14:00:05+02:00")).toBe("2027-03-31T12:00:05.000Z");
    expect(parseExpiryDate("2027-03-31T14:00:05.250Z")).toBe("2027-03-31T14:00:05.250Z");
  });

  it("refuses what is not a calendar moment or has no offset", () => {
    for (const bad of [
      "2027-02-30",
      "2027-13-01",
      "2027-03-31T24:00Z",
      "2027-03-31T14:00",
      "31/03/2027",
      "tomorrow",
      "2027-3-31",
      "",
    ])
      expect(parseExpiryDate(bad), bad).toBeUndefined();
  });
});

describe("the expiry clause of a command line", () => {
  it("`until <date>` and `for <N>d` end the line; the text before them stays", () => {
    expect(splitExpiryClause("risk_accepted until 2027-03-31")).toEqual({
      kind: "ok",
      text: "risk_accepted",
      spec: { kind: "until", at: "2027-03-31T23:59:59.999Z", typed: "until 2027-03-31" },
    });
    expect(splitExpiryClause("vendor patch due FOR 30d")).toEqual({
      kind: "ok",
      text: "vendor patch due",
      spec: { kind: "for", days: 30, typed: "for 30d" },
    });
    expect(splitExpiryClause("until 2027-03-31")).toMatchObject({ kind: "ok", text: "" });
  });

  it("`until` with something that is no date is invalid and says the syntax; `for review` is a note", () => {
    const bad = splitExpiryClause("ok until tomorrow");
    expect(bad).toMatchObject({ kind: "invalid", text: "ok" });
    if (bad.kind === "invalid") expect(bad.message).toContain("`until YYYY-MM-DD`");
    expect(splitExpiryClause("parked for 3w")).toMatchObject({ kind: "invalid" });
    expect(splitExpiryClause("parked for 0d")).toMatchObject({ kind: "invalid" });
    expect(splitExpiryClause("waiting for review")).toEqual({ kind: "none" });
    expect(splitExpiryClause("until the end of time is near")).toEqual({ kind: "none" });
  });
});

describe("an expiry against the clock and the rules", () => {
  const rules = DEFAULT_ACCEPTANCE_RULES;
  it("`for <N>d` counts from now; a date in range is kept", () => {
    expect(resolveExpiry("WONT_FIX", { kind: "for", days: 30, typed: "for 30d" }, NOW, rules)).toEqual({
      ok: true,
      expiresAt: new Date(NOW + 30 * DAY).toISOString(),
    });
    const at = "2026-06-01T23:59:59.999Z";
    expect(resolveExpiry("MITIGATED", { kind: "until", at, typed: "until 2026-06-01" }, NOW, rules)).toEqual({
      ok: true,
      expiresAt: at,
    });
  });

  it("refuses a past moment and one beyond maxAcceptanceDays, stating the rule", () => {
    const past = resolveExpiry(
      "WONT_FIX",
      { kind: "until", at: "2026-03-04T05:06:06.000Z", typed: "until 2026-03-04T05:06:06Z" },
      NOW,
      rules,
    );
    expect(past).toMatchObject({ ok: false });
    if (!past.ok) expect(past.why).toContain("in the past");
    const far = resolveExpiry("WONT_FIX", { kind: "for", days: 366, typed: "for 366d" }, NOW, rules);
    expect(far).toMatchObject({ ok: false });
    if (!far.ok) expect(far.why).toContain("more than 365 days ahead (`triage.maxAcceptanceDays`)");
    const tight = resolveExpiry("WONT_FIX", { kind: "for", days: 8, typed: "for 8d" }, NOW, {
      ...rules,
      maxAcceptanceDays: 7,
    });
    expect(tight.ok).toBe(false);
  });

  it("requireExpiry makes one mandatory for its statuses only; other statuses take none", () => {
    const strict = { ...rules, requireExpiry: ["WONT_FIX" as const] };
    const missing = resolveExpiry("WONT_FIX", undefined, NOW, strict);
    expect(missing).toMatchObject({ ok: false });
    if (!missing.ok) expect(missing.why).toContain("`triage.requireExpiry`");
    expect(resolveExpiry("MITIGATED", undefined, NOW, strict)).toEqual({ ok: true });
    expect(resolveExpiry("FALSE_POSITIVE", undefined, NOW, strict)).toEqual({ ok: true });
  });
});

describe("the acceptance line of the service note", () => {
  it("round-trips the expiry and its author; other notes carry none", () => {
    const line = acceptanceLine("2027-03-31T23:59:59.999Z", "alice");
    expect(parseAcceptanceLine(`Reason: x.\n\n${line}\n\n— GitHub user @alice via diffward`)).toEqual({
      expiresAt: "2027-03-31T23:59:59.999Z",
      by: "alice",
    });
    expect(parseAcceptanceLine("Resolution set to Won't fix.")).toBeUndefined();
  });

  it("shows an end-of-day expiry as its date, another moment in full", () => {
    expect(expiryText("2027-03-31T23:59:59.999Z")).toBe("2027-03-31");
    expect(expiryText("2027-03-31T14:00:05.000Z")).toBe("2027-03-31 14:00:05 UTC");
  });
});
