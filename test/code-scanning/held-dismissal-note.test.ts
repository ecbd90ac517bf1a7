import { describe, expect, it } from "vitest";
import { heldDismissalNote } from "../../src/code-scanning/held-dismissal-note.js";

describe("heldDismissalNote", () => {
  it("says who dismissed what, why it was not applied, and the two ways to dismiss it", () => {
    expect(
      heldDismissalNote({
        dismissed: 'Dismissed in GitHub code scanning as "false positive" by GitHub user `octo-writer`.',
        alertNumber: 12,
        ref: "refs/heads/gh-readonly-queue/main/pr-104-" + "a".repeat(40),
        label: "SC-1a2b3c4d",
        severity: "HIGH",
        status: "FALSE_POSITIVE",
        approvers: "maintain",
        pullNumber: 104,
      }),
    ).toMatchInlineSnapshot(`
      "Dismissed in GitHub code scanning as "false positive" by GitHub user \`octo-writer\`.

      **Not applied: approval required.** With \`triage.approval\`, dismissing a **High** finding as **False positive** needs a second person with the \`maintain\` role or above. Code scanning alert #12 on \`refs/heads/gh-readonly-queue/main/pr-104-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\` is not on a pull request's ref, so no approval request could be held for it: diffward reopened the alert and left \`SC-1a2b3c4d\` unchanged on the scanning service.

      To dismiss it: a user with the \`maintain\` role or above dismisses the alert in GitHub code scanning (no second person is needed then), or, in a pull request that reports this finding (such as pull request #104, which this merge group's ref names), reply \`/fp\` (or \`/wontfix\`) to diffward's comment on it to request approval there."
    `);
  });

  it("names the code owners an approval needs with triage.approval.codeowners", () => {
    const owners =
      "The approver must also be a code owner of `src/server.js` in `.github/CODEOWNERS` (`triage.approval.codeowners`): `@octo-dana`.";
    const note = heldDismissalNote({
      dismissed: "Dismissed.",
      alertNumber: 4,
      ref: "refs/heads/gh-readonly-queue/main/pr-9-" + "b".repeat(40),
      label: "SC-00000002",
      severity: "HIGH",
      status: "FALSE_POSITIVE",
      approvers: "maintain",
      pullNumber: 9,
      owners,
    });
    expect(note.endsWith(`to request approval there. ${owners}`)).toBe(true);
  });

  it("names no pull request when the ref names none", () => {
    const note = heldDismissalNote({
      dismissed: "Dismissed.",
      alertNumber: 3,
      ref: "refs/heads/main",
      label: "SC-00000001",
      severity: "CRITICAL",
      status: "WONT_FIX",
      approvers: "admin",
    });
    expect(note).toContain("`refs/heads/main`");
    expect(note).not.toContain("pull request #");
    expect(note).toContain("**Won't fix**");
  });
});
