/** The severity verb's plan (src/commands/verbs/severity.ts). */
import { identityOf } from "../../../src/domain/identity.js";
import { describe, expect, it } from "vitest";
import { planSeverity, type SeverityCommand } from "../../../src/commands/verbs/severity.js";
import { DETAIL, input, parsed } from "../../support/verbs.js";

describe("severity plan", () => {
  it("severity: the level, a signed note naming the change, the answer", () => {
    const cmd = parsed("/diffward severity SC-01234567 low", "severity") as SeverityCommand;
    const plan = planSeverity(input(cmd));
    expect(plan).toEqual({
      findingId: DETAIL.id,
      severity: "LOW",
      remember: {
        findingId: DETAIL.id,
        ...identityOf(DETAIL),
        current: DETAIL.severity,
        severity: "LOW",
        by: "octo-writer",
        at: expect.any(String),
      },
      note: "Severity of `SC-01234567` set to Low.\n\n— GitHub user @octo-writer via diffward (octo/app#9)",
      summary: "Severity of `SC-01234567` set to **Low**.",
    });
    const reset = planSeverity(
      input(parsed("/diffward severity SC-01234567 reset", "severity") as SeverityCommand),
    );
    expect(reset.severity).toBeNull();
    expect(reset.summary).toBe("Severity override of `SC-01234567` cleared.");
  });
});
