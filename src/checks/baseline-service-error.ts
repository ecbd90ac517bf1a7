/**
 * How a baseline's check run ends when the service refuses its launch, where a baseline says it differently
 * from a pull request. The launch job (`src/scan/decide-launch.ts`) follows every kind of scan and asks this
 * first; the baseline room's own decisions use the same outputs (`src/render/baseline-refusals.ts`).
 */
import type { CheckRunUpdate } from "../github/check-runs.js";
import type { LaunchJobData } from "../job-catalogue/index.js";
import {
  diffPresetProblem,
  renderBaselineConfigError,
  renderBaselineNoCredits,
} from "../render/baseline-refusals.js";

/**
 * The check run of a baseline launch the service refused, when a baseline says it differently from a pull
 * request (spec §Scans, launch rules 3 and 6): 402 `insufficient_credits` concludes `neutral` saying why,
 * never retried (a baseline blocks nobody); 400 `diff_base_required` is a configuration error
 * (`baseline.preset` is a diff preset). `undefined` for every other error: the pull request's handling
 * applies.
 */
export function baselineServiceError(
  code: string,
  message: string,
  d: Pick<LaunchJobData, "presetRef" | "creditBudget">,
  balance?: { balanceCredits: number; availableCredits: number },
): CheckRunUpdate | undefined {
  if (code === "insufficient_credits")
    return {
      conclusion: "neutral",
      output: renderBaselineNoCredits({
        message,
        ...(balance
          ? { availableCredits: balance.availableCredits, balanceCredits: balance.balanceCredits }
          : {}),
        ...(d.creditBudget !== undefined ? { requiredCredits: d.creditBudget } : {}),
      }),
    };
  if (code === "diff_base_required")
    return {
      conclusion: "failure",
      output: renderBaselineConfigError([
        diffPresetProblem(d.presetRef, "the service refused it without a base commit"),
      ]),
    };
  return undefined;
}
