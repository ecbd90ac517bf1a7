/**
 * What a report reads of its base branch's last completed baseline (`baseline:` in `.github/diffward.yml`),
 * compared with its findings by {@link againstBaseline} (pure), so that `only: new` in the policy blocks on the
 * same findings for a pull request and for the merge group that carries it.
 */
import { readsBaseline } from "../../domain/policy.js";
import type { ReportFinding } from "../../domain/finding-types.js";
import { parseMergeGroupRef } from "../../domain/merge-queue.js";
import { getPull } from "../../github/pulls.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import type { PollJobData } from "../../job-catalogue/index.js";
import type { BaselineInfo } from "../../render/baseline-comparison.js";
import type { Runtime } from "../../runtime/runtime.js";
import { againstBaseline } from "../decide/against-baseline.js";

/**
 * The pull request's findings against its base branch's last completed baseline, when the repository has
 * one: the base branch is read from GitHub ("Get a pull request") only then, and must be the baseline's
 * branch. With `only: new` in the policy and no completed baseline of the base branch, that it has none (the
 * summary says every finding counts); otherwise `undefined`.
 */
export async function readBaselineComparison(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: PollJobData,
  findings: readonly ReportFinding[],
): Promise<BaselineInfo | undefined> {
  const baseline = await rt.stores.baselines.getReport(d.owner, d.repo);
  if (!baseline && !readsBaseline(d.config)) return undefined;
  const pull = await getPull(octokit, { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber });
  return againstBaseline(baseline, pull.baseRef, findings, d.config);
}

/**
 * The merge group's findings against its base branch's last completed baseline (the branch its `head_ref`
 * names, `gh-readonly-queue/<base>/pr-…`), as a pull request's report has them, so `failOn: {only: new}`
 * blocks the group on the same findings as the pull request.
 */
export async function readGroupBaseline(
  rt: Runtime,
  d: PollJobData,
  findings: readonly ReportFinding[],
): Promise<BaselineInfo | undefined> {
  const branch =
    d.target?.kind === "merge-group" ? parseMergeGroupRef(d.target.headRef)?.baseBranch : undefined;
  if (!branch) return undefined;
  return againstBaseline(await rt.stores.baselines.getReport(d.owner, d.repo), branch, findings, d.config);
}
