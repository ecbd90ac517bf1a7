import type { CheckAction, CheckRunOutput } from "../github/check-runs.js";
import { inlineCode } from "./escape.js";
import { sections } from "./markdown.js";
import type { Gate } from "../domain/gate.js";

/** The identifier of the "Scan anyway" button (GitHub check run `actions[].identifier`, ≤ 20 characters). */
export const SCAN_ANYWAY = "scan-anyway";

/** The "Scan anyway" requested action (label ≤ 20, description ≤ 40 characters: GitHub REST "Create a check run"). */
export const SCAN_ANYWAY_ACTION: CheckAction = {
  label: "Scan anyway",
  description: "Spend credits on this scan now",
  identifier: SCAN_ANYWAY,
};

/** Output of a pull request that is not scanned (authors.skip, paths.ignore, forks: skip). */
export function renderGateSkip(gate: Extract<Gate, { kind: "skip" }>): CheckRunOutput {
  const titles = {
    "authors-skip": "Not scanned: author skipped",
    "paths-ignore": "Not scanned: only ignored paths changed",
    "fork-skip": "Not scanned: pull request from a fork",
  } as const;
  return {
    title: titles[gate.reason],
    summary: sections(
      `**What happened:** diffward did not scan this pull request: ${gate.detail}. No credits were spent.`,
      "**Why:** `.github/diffward.yml` on the default branch says so.",
      "**What next:** nothing, unless the setting should change; a repository admin edits `.github/diffward.yml`.",
    ),
  };
}

/**
 * Output of a check run left from before the pull request became a draft, when `drafts: skip` says drafts
 * are not scanned.
 */
export function renderDraftSkip(): CheckRunOutput {
  return {
    title: "Not scanned: draft pull request",
    summary: sections(
      "**What happened:** diffward did not scan this commit: the pull request is a draft. No credits were spent.",
      "**Why:** `.github/diffward.yml` on the default branch says `drafts: skip`.",
      "**What next:** mark the pull request ready for review to scan it, or comment `/diffward rescan`.",
    ),
  };
}

/** Output of a scan that waits for a permitted user's "Scan anyway" (forks: approve, guidance.onChange). */
export function renderGateApproval(
  gate: Extract<Gate, { kind: "approval" }>,
  minPermission: string,
  guidanceFile: string,
): CheckRunOutput {
  const change = gate.guidanceChange;
  return {
    title:
      gate.reason === "fork"
        ? "Waiting for approval: pull request from a fork"
        : "Waiting for approval: guidance file changed",
    summary: sections(
      gate.reason === "guidance-changed" || change
        ? `> [!WARNING]\n> This pull request changes the guidance file ${inlineCode(guidanceFile)}${change ? ` (+${change.additions} −${change.deletions} lines)` : ""}. The scan of a pull request runs with the pull request's own guidance, so it could tell the scanner to ignore what it adds. Review the change before approving.`
        : undefined,
      `**What happened:** the scan has not started and no credits were reserved: ${gate.detail}.`,
      `**What next:** a user with ${inlineCode(minPermission)} permission or higher on this repository clicks **Scan anyway** above to launch it. Clicks by other users change nothing.`,
    ),
  };
}

/** The summary block that flags a guidance change in a scanned pull request (guidance.onChange: warn). */
export function guidanceChangeWarning(
  guidanceFile: string,
  change: { additions: number; deletions: number },
): string {
  return (
    `This pull request changes the guidance file ${inlineCode(guidanceFile)} (+${change.additions} −${change.deletions} lines). ` +
    "Its scan ran with the pull request's own guidance, which can steer what the scanner reports: review that change with care."
  );
}
