import type { CheckRunOutput } from "../github/check-runs.js";
import type { ReusableConclusion } from "../domain/merge-queue.js";
import { inlineCode } from "../render/escape.js";
import { sections } from "../render/markdown.js";

/**
 * Output of a merge group whose check reuses its pull request's report (`mergeQueue: reuse`): names the pull
 * request, the head SHA that was scanned and the scan, and links the pull request's check run.
 */
export function renderGroupReused(r: {
  pullNumber: number;
  headSha: string;
  scanId: string;
  conclusion: ReusableConclusion;
  /** the pull request's check run on GitHub, when its URL is known */
  checkRunUrl?: string;
}): CheckRunOutput {
  const verdict = { success: "passed", neutral: "was neutral", failure: "failed" }[r.conclusion];
  const scan = inlineCode(r.scanId);
  return {
    // a check run title is plain text (no Markdown): the short SHA without code marks
    title: `Reused #${r.pullNumber}'s scan of ${r.headSha.slice(0, 7)}: ${verdict}`,
    summary: sections(
      `**What happened:** this merge group's check reuses the report of pull request #${r.pullNumber} on its current head ${inlineCode(r.headSha)} (scan ${scan}), which ${verdict}. No new scan was launched and no credits were spent.`,
      "**Why:** `.github/diffward.yml` sets `mergeQueue: reuse` (the default), and diffward had a completed report on the pull request's current head.",
      r.checkRunUrl
        ? `**Details:** the findings are in [the pull request's check run](${r.checkRunUrl}).`
        : `**Details:** the findings are in the pull request's \`diffward\` check run on ${inlineCode(r.headSha)}.`,
    ),
  };
}

/** Output of a merge group that is not checked (`mergeQueue: skip`). */
export function renderGroupSkipped(pullNumber?: number): CheckRunOutput {
  return {
    title: "Merge-queue checks are off",
    summary: sections(
      `**What happened:** diffward did not scan this merge group${pullNumber ? ` (pull request #${pullNumber})` : ""}. No credits were spent.`,
      "**Why:** `.github/diffward.yml` sets `mergeQueue: skip`, which turns merge-queue checks off; pull requests are still scanned.",
      "**What next:** nothing, unless merge groups should be checked: set `mergeQueue: reuse` or `scan`.",
    ),
  };
}

/** Output of a merge group's check that was stopped because GitHub destroyed the group. */
export function renderGroupCancelled(r: { reason?: string; scanId?: string }): CheckRunOutput {
  const why =
    r.reason === "merged"
      ? "the merge group was merged"
      : r.reason === "dequeued"
        ? "the pull request was removed from the merge queue"
        : r.reason === "invalidated"
          ? "an earlier entry left the merge queue, which invalidated this group"
          : "GitHub destroyed the merge group";
  return {
    title: "Merge group gone: check cancelled",
    summary: sections(
      `**What happened:** ${why}, so diffward stopped its check${r.scanId ? ` and cancelled scan ${inlineCode(r.scanId)} (unused credits return to the balance)` : ""}.`,
      "**What next:** nothing; the merge queue asks again when it builds a new group.",
    ),
  };
}

/** Output of a merge group's check while diffward decides (shown until it concludes or a scan starts). */
export function renderGroupQueued(r: { baseSha: string; pullNumber?: number }): CheckRunOutput {
  return {
    title: "Merge group check queued",
    summary: `**What happened:** diffward is checking this merge group${r.pullNumber ? ` (pull request #${r.pullNumber})` : ""}, whose base is ${inlineCode(r.baseSha)}.`,
  };
}

/** Output of a merge group whose diff scan is queued for launch (`mergeQueue: scan`, or reuse without a report). */
export function renderGroupScanQueued(r: { baseSha: string; why: string }): CheckRunOutput {
  return {
    title: "Merge group scan queued",
    summary: sections(
      `**What happened:** diffward is launching a diff scan of this merge group against its base ${inlineCode(r.baseSha)}.`,
      `**Why:** ${r.why}.`,
    ),
  };
}
