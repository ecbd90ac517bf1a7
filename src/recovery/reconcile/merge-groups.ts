/**
 * A repository's merge groups after a start ({@link reconcileMergeGroups}): the scan in flight of each group
 * whose merge-queue branch exists now resumed, with a `merge-group` target.
 */
import { listCheckRunsForRef } from "../../github/check-runs.js";
import { MERGE_QUEUE_REF_PREFIX, listMatchingRefs, type GitRef } from "../../github/refs.js";
import { unlessStatus } from "../../github/octokit-types.js";
import { parseMergeGroupRef } from "../../domain/merge-queue.js";
import { groupKey } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { findResumable, type Resumable } from "./find-scan.js";
import type { RepoPart, RepoPass } from "./repository-pass.js";
import { afterResume, resumeLocked, type ResumeTarget } from "./resume-scan.js";
import type { ReconcileSummary } from "./summary.js";

/**
 * Rebuilds the in-flight scans of the repository's merge groups after diffward's Redis state was
 * lost. The groups are the merge-queue branches that exist now (GitHub REST "List matching references",
 * `heads/gh-readonly-queue/`): GitHub deletes a group's branch when the group is destroyed, so a group that
 * is gone is never resumed, however long its check run stays unfinished. For each branch whose name parses
 * ({@link parseMergeGroupRef}: base branch and pull request number) and diffward's check run on the branch's
 * commit that is not `completed` and carries a scan id in `external_id`:
 * - when the `poll-<scanId>` job still exists, nothing is done (a failed one is retried, and so is a failed
 *   `report-<scanId>` job of a completed poll);
 * - when diffward's state marks the group destroyed (its `destroyed` event came after the loss) or following
 *   another scan, nothing is done;
 * - otherwise the group's state (check run, scan, the pull request named by the ref), the scan link
 *   (`mergeGroup`, so an uninstall cancels it) and the `poll-<scanId>` job, with a `merge-group` target, are
 *   recreated; the poll job reports on the group's check run (`reportGroupScan`, `src/report/group-report.ts`).
 * Assumptions, since GitHub's REST API does not give a merge group's `base_sha`: the poll job's `mergeBase`
 * is `null` and its target has no `baseSha` (neither polling nor the group's report reads them; the scan
 * itself keeps its `baseCommit`), and the group's state gets no launch key. A redelivered `checks_requested`
 * still launches nothing: a group whose state holds a scan is handled (`processMergeGroup`, `src/merge-queue/merge-group-job.ts`).
 * `head_ref` is the branch's full ref, as in the `merge_group` event.
 */
export async function reconcileMergeGroups(rt: Runtime, at: RepoPass): Promise<void> {
  const { octokit, summary, r, cache } = at;
  // the sweep's GraphQL walk counted the merge-queue branches: none, nothing to read
  if (at.heads?.mergeQueueRefs === 0) return;
  // "List matching references" answers 409 for an empty repository: no branch, no merge group.
  const refs = await unlessStatus(409, listMatchingRefs(octokit, r, MERGE_QUEUE_REF_PREFIX));
  if (!refs) return;
  for (const gitRef of refs) {
    const ref = parseMergeGroupRef(gitRef.ref);
    if (!ref || gitRef.type !== "commit") continue;
    summary.mergeGroups += 1;
    const headSha = gitRef.sha;
    const key = groupKey(r.owner, r.repo, headSha);
    const found = await findResumable(rt, octokit, summary, r, cache, {
      headSha,
      runs: await listCheckRunsForRef(octokit, r, headSha),
      bindings: { group: key },
      noTenantMessage: "reconcile: no scanner token for the account, merge group scan not resumed",
    });
    if (found === "stop-repository") return;
    if (found === "next") continue;
    await resumeGroupScan(rt, summary, r, { gitRef, ref, key }, found);
  }
}

/**
 * Resumes one merge group's scan found in flight: under the group's lock, the group's state and scan link
 * are rebuilt and the `poll-<scanId>` job recreated with a `merge-group` target (nothing for a destroyed
 * group, one whose state holds another scan, or one whose poll job exists already).
 */
async function resumeGroupScan(
  rt: Runtime,
  summary: ReconcileSummary,
  r: RepoPart,
  g: { gitRef: GitRef; ref: NonNullable<ReturnType<typeof parseMergeGroupRef>>; key: string },
  found: Resumable,
): Promise<void> {
  const { gitRef, ref, key } = g;
  const headSha = gitRef.sha;
  const { run, scanId, config, tenant } = found;
  const presetRef = config.preset ?? rt.settings.defaultPreset;
  const target: ResumeTarget = {
    pullNumber: ref.pullNumber,
    target: { kind: "merge-group", headRef: gitRef.ref },
    headSha,
    mergeBase: null,
    presetRef,
    creditBudget: config.creditBudget,
  };
  const outcome = await resumeLocked(rt, r, key, found, target, async () => {
    const prev = await rt.stores.pulls.getGroup(key);
    if (prev?.destroyed) return "destroyed" as const;
    if (prev?.scanId !== undefined && prev.scanId !== scanId) return "other-scan" as const;
    await rt.stores.pulls.setGroup(key, {
      ...prev,
      installationId: r.installationId,
      owner: r.owner,
      repo: r.repo,
      headSha,
      pullNumber: ref.pullNumber,
      checkRunId: run.id,
      scanId,
      projectId: tenant.projectId,
    });
    return undefined;
  });
  await afterResume(
    rt,
    summary,
    r,
    { ...found, presetRef },
    outcome,
    "reconcile: in-flight merge group scan resumed",
    "reconcile: merge group scan not resumed",
  );
}
