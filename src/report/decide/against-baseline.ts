/**
 * What a report shows of its base branch's baseline (pure): the comparison of its findings with the branch's
 * last completed baseline, or, with `failOn: {only: new}` and no such baseline, that it has none (so the
 * summary says every finding counts). Shared by a pull request's report and a merge group's.
 */
import { compareWithBaseline } from "../../domain/baseline.js";
import { readsBaseline, type PolicySettings } from "../../domain/policy.js";
import type { ReportFinding } from "../../domain/finding-types.js";
import type { BaselineInfo } from "../../render/baseline-comparison.js";

/** A completed baseline as the report reads it (src/stores/baseline-state.ts `BaselineReport`). */
export interface CompletedBaseline {
  branch: string;
  headSha: string;
  openFingerprints: readonly string[];
}

/**
 * The report's {@link BaselineInfo}: the comparison when `baseline` is of `branch` (the pull request's or the
 * merge group's base branch), else `{ branch, missing: true }` when a part of the policy says `only: new`
 * (the top-level `failOn` or a path rule's own), else `undefined`.
 */
export function againstBaseline(
  baseline: CompletedBaseline | undefined,
  branch: string,
  findings: readonly ReportFinding[],
  policy: PolicySettings,
): BaselineInfo | undefined {
  if (baseline && baseline.branch === branch) return compareWithBaseline(findings, baseline);
  return readsBaseline(policy) ? { branch, missing: true } : undefined;
}
