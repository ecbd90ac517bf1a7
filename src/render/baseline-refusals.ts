/**
 * The check run outputs of a default-branch baseline that is refused before it scans: by its configuration
 * (`baseline` in `.github/diffward.yml`, a diff preset), or by the service for want of credits. The baseline
 * job concludes with them, and so does the launch job when the service refuses a baseline's launch
 * (`src/checks/baseline-service-error.ts`). Each says what happened, why and what to do next.
 */
import type { CheckRunOutput } from "../github/check-runs.js";
import { codeBlock } from "./escape.js";
import { creditFigures } from "./format.js";
import { bullets, sections } from "./markdown.js";

/** The path and key a baseline's configuration errors name. */
const WHERE = "`baseline` in `.github/diffward.yml`";

/**
 * Output of a baseline refused by its configuration, before anything is launched or reserved: `problems`
 * quoted exactly, then what to fix.
 */
export function renderBaselineConfigError(problems: readonly string[]): CheckRunOutput {
  return {
    title: "Invalid baseline configuration",
    summary: sections(
      `**What happened:** diffward did not scan this commit: ${WHERE} cannot be used. No scan was launched and no credits were reserved.`,
      `**Why:**\n\n${codeBlock(problems.join("\n"))}`,
      `**What next:** fix ${WHERE} on the default branch; the next push (or the next scheduled baseline) uses it.`,
    ),
  };
}

/** The problem of a baseline preset that is a diff preset (it needs `baseCommit`, which a baseline has not). */
export function diffPresetProblem(presetRef: string, why: string): string {
  return `baseline.preset: "${presetRef}" is a diff preset (${why}); a baseline scans the whole repository at a commit, with no base to compare with, so it needs a whole-repository preset`;
}

/**
 * Output of a baseline the service refused for want of credits (spec §Scans, launch rule 3: 402
 * `insufficient_credits`), concluded `neutral`: a baseline blocks nobody, and it is not retried.
 */
export function renderBaselineNoCredits(x: {
  message?: string;
  availableCredits?: number;
  balanceCredits?: number;
  requiredCredits?: number;
}): CheckRunOutput {
  const facts = creditFigures(x, "budget asked");
  return {
    title: "Baseline not scanned: not enough credits",
    summary: sections(
      "**What happened:** the scanning service refused this baseline scan: the organization's prepaid credits cannot cover its budget. Nothing was spent.",
      facts.length ? bullets(facts) : undefined,
      x.message ? `The service said:\n\n${codeBlock(x.message)}` : undefined,
      "**What next:** buy credits, or set a lower `baseline.creditBudget` or a cheaper `baseline.preset`. diffward does not retry this commit; the next push or scheduled baseline tries again.",
    ),
  };
}
