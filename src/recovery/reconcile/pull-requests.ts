/**
 * A repository's open pull requests after a start ({@link reconcilePulls}): each head's scan in flight
 * resumed, or its check run without a scan id decided again by a `pull-request` job, and its acceptance
 * expiries rebuilt.
 */
import { WALK_PRIORITY } from "../../runtime/fairness.js";
import { listCheckRunsForRef, type FoundCheckRun } from "../../github/check-runs.js";
import { getMergeBase, listOpenPulls, type PullHead } from "../../github/pulls.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import { addJob, type PullRequestJobData } from "../../job-catalogue/index.js";
import { configLaunchKey, jobId, pullKey } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { rebuildPullExpiries } from "./expiries.js";
import { findInFlight, sinceOf, type Resumable } from "./find-scan.js";
import { withLockWaiting, type RepoPart, type RepoPass } from "./repository-pass.js";
import { afterResume, resumeLocked, resumedLaunch, type ResumeTarget } from "./resume-scan.js";
import type { ReconcileSummary } from "./summary.js";

/**
 * A repository's open pull requests (the sweep's GraphQL walk's, else GitHub REST "List pull requests") and
 * diffward's check runs on each head (the walk's, else "List check runs for a Git reference"): each head's scan
 * in flight resumed, its check run without a scan id decided again, its acceptance expiries rebuilt.
 */
export async function reconcilePulls(rt: Runtime, at: RepoPass): Promise<void> {
  const { octokit, summary, r } = at;
  const pulls: Array<PullHead & { runs?: FoundCheckRun[] }> =
    at.heads?.pulls ?? (await listOpenPulls(octokit, r));
  if (pulls.length === 0) return;
  for (const pr of pulls) {
    summary.pulls += 1;
    const key = pullKey(r.owner, r.repo, pr.number);
    const runs = pr.runs ?? (await listCheckRunsForRef(octokit, r, pr.headSha));
    await rebuildPullExpiries(rt, summary, r, pr, runs);
    const found = await findInFlight(
      rt,
      at,
      {
        headSha: pr.headSha,
        runs,
        bindings: { pull: key },
        noTenantMessage: "reconcile: no scanner token for the account, scan not resumed",
      },
      {
        follows: (run) => followsRun(rt, key, pr.headSha, run.id),
        redecide: (run) => redecideUnlinked(rt, summary, r, pr, run),
      },
    );
    if (found === "stop-repository") return;
    if (found !== "none") await resumePullScan(rt, octokit, summary, r, pr, found);
  }
}

/**
 * Resumes one pull request's scan found in flight: the pull request's state, launch record and scan link
 * are rebuilt under its lock and the `poll-<scanId>` job recreated (nothing when a poll job exists
 * already); a check run whose scan was found in the service gets its scan id.
 */
async function resumePullScan(
  rt: Runtime,
  octokit: InstallationOctokit,
  summary: ReconcileSummary,
  r: RepoPart,
  pr: PullHead,
  resumable: Resumable,
): Promise<void> {
  const key = pullKey(r.owner, r.repo, pr.number);
  const { scanId, config } = resumable;
  const { mergeBase } = await getMergeBase(octokit, r, pr.baseRef, pr.headSha);
  const presetRef = config.preset ?? rt.settings.defaultPreset;
  const lk = configLaunchKey(config, { headSha: pr.headSha, mergeBase, presetRef });
  const target: ResumeTarget = {
    pullNumber: pr.number,
    headSha: pr.headSha,
    mergeBase,
    presetRef,
    creditBudget: config.creditBudget,
  };
  const outcome = await resumeLocked(rt, r, key, resumable, target, async () => {
    const launched = await resumedLaunch(rt, r, resumable, { headSha: pr.headSha, launchKey: lk });
    const prev = await rt.stores.pulls.getPull(key);
    if (!prev || prev.headSha !== pr.headSha || prev.scanId !== scanId)
      await rt.stores.pulls.setPull(key, { ...launched, pullNumber: pr.number, mergeBase });
    return undefined;
  });
  await afterResume(
    rt,
    summary,
    r,
    { ...resumable, presetRef },
    outcome,
    "reconcile: in-flight scan resumed",
  );
}

/**
 * Whether diffward's state follows `checkRunId`: the pull request's state is open, on `headSha`, with this
 * check run (its launch, poll or report job carries it on).
 */
async function followsRun(rt: Runtime, key: string, headSha: string, checkRunId: number): Promise<boolean> {
  const prev = await rt.stores.pulls.getPull(key);
  return Boolean(prev && !prev.closed && prev.headSha === headSha && prev.checkRunId === checkRunId);
}

/**
 * A pull request's unfinished check run on its head without a scan id (`run`). When diffward's state follows
 * it (the pull request's state is on this head with this check run: its launch, poll or report job carries
 * it on) nothing is done. Otherwise (the state was lost) a `pull-request` job is enqueued with
 * `resume` (job id `resume-<pull>-<checkRunId>`, so reconciliations racing add one; a failed one is retried,
 * a completed one whose check run is still unfinished is replaced): it decides the launch of the head again
 * on this check run, as the lost event did, with the pull request as GitHub shows it now (REST "List pull
 * requests"). Its launch looks the service's scan list up first (`lookupSince`, the check run's
 * `started_at`), so a scan that had been launched for it is followed and never launched again; a head that
 * is no longer the one followed when the job runs (a newer push, a close) has the check run concluded.
 */
async function redecideUnlinked(
  rt: Runtime,
  summary: ReconcileSummary,
  r: RepoPart,
  pr: PullHead,
  run: FoundCheckRun,
): Promise<void> {
  const key = pullKey(r.owner, r.repo, pr.number);
  const log = rt.log.child({ installation: r.installationId, pull: key, checkRunId: run.id });
  const id = jobId("resume", key, run.id);
  const data: PullRequestJobData = {
    deliveryId: id,
    action: "reconcile",
    ...r,
    pullNumber: pr.number,
    headSha: pr.headSha,
    headRef: pr.headRef,
    baseRef: pr.baseRef,
    draft: pr.draft,
    updatedAt: pr.updatedAt ?? new Date(rt.now()).toISOString(),
    authorLogin: pr.authorLogin,
    title: pr.title ?? "",
    ...(pr.headRepoFullName ? { headRepoFullName: pr.headRepoFullName } : {}),
    ...(pr.htmlUrl ? { pullHtmlUrl: pr.htmlUrl } : {}),
    resume: { checkRunId: run.id, since: sinceOf(rt, run) },
  };
  const added = await withLockWaiting(rt, key, async () => {
    if (await followsRun(rt, key, pr.headSha, run.id)) return false;
    const job = await rt.queues.events.getJob(id);
    const state = job ? await job.getState() : undefined;
    if (job && state === "failed") {
      await job.retry("failed");
      return true;
    }
    if (job && state !== "completed") return false; // on its way
    await job?.remove();
    await addJob(rt, "pullRequest", data, { jobId: id, priority: WALK_PRIORITY });
    return true;
  });
  if (!added) return;
  summary.redecided.push(run.id);
  log.info("reconcile: check run without a scan id, its launch decided again");
}
