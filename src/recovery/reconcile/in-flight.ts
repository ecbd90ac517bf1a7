/**
 * Reconciliation with diffward's Redis state intact ({@link reconcileInFlight}): the scans the state counts in
 * flight and the launches that failed for good, each followed by its job or its repository swept.
 */
import { getCheckRun } from "../../github/check-runs.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import { jobId } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { ScanLink } from "../../stores/scan-state.js";
import { followExisting } from "./find-scan.js";
import type { ReconcileSummary } from "./summary.js";
import { reconcileRepository } from "./sweep.js";

/**
 * Reconciliation with diffward's Redis state intact (its marker present): BullMQ's jobs are there too, so
 * what the state says is in flight is followed by a job unless that job ended. Looks at:
 * - each installation's scans in flight (`{prefix}:inflight:<installationId>`, pull requests' and merge
 *   groups'): a scan whose `poll-<scanId>` job is waiting, delayed or running is followed (no GitHub request);
 *   a failed poll or report job is retried; a completed poll whose report ended while GitHub shows the check
 *   run unfinished, or a scan with no poll job at all, is resumed by sweeping its repository
 *   ({@link reconcileRepository}); a scan whose check run GitHub shows completed is no longer counted in flight;
 * - pull request and merge group states with a check run, no scan, and a launch job that failed for good:
 *   when GitHub shows the check run unfinished, their repository is swept (which decides its launch again).
 * Every repository is swept at most once; GitHub is asked only about these.
 */
export async function reconcileInFlight(
  rt: Runtime,
  summary: ReconcileSummary,
  log: Runtime["log"],
): Promise<void> {
  const octokits = new Map<number, Promise<InstallationOctokit>>();
  const octokitOf = (id: number) => {
    if (!octokits.has(id)) octokits.set(id, rt.octokit(id));
    return octokits.get(id)!;
  };
  const swept = new Set<string>();
  const sweepRepo = async (installationId: number, owner: string, repo: string, accountLogin?: string) => {
    const name = `${owner}/${repo}`;
    if (swept.has(name)) return;
    swept.add(name);
    const octokit = await octokitOf(installationId);
    const { data } = await octokit.rest.repos.get({ owner, repo });
    summary.repositories += 1;
    await reconcileRepository(rt, octokit, summary, {
      installationId,
      accountLogin: accountLogin ?? owner,
      owner,
      repo,
      repoPrivate: data.private,
      defaultBranch: data.default_branch,
    });
  };

  for (const installationId of await rt.stores.scans.inflightInstallations()) {
    const scans = await rt.stores.scans.inflightScans(installationId);
    if (scans.length > 0) summary.installations += 1;
    for (const scanId of scans) {
      const slog = log.child({ installation: installationId, scanId });
      try {
        const link = await rt.stores.scans.getScanLink(scanId);
        if (!link) {
          await rt.stores.scans.finishScan(installationId, scanId);
          slog.warn("reconcile: scan in flight without its link, no longer counted");
          continue;
        }
        const outcome = await followInFlight(rt, octokitOf, summary, link, slog);
        if (outcome === "sweep") await sweepRepo(installationId, link.owner, link.repo, link.accountLogin);
      } catch (error) {
        summary.errors += 1;
        slog.warn({ err: error as Error }, "reconcile: in-flight scan not checked");
      }
    }
  }

  for (const kind of ["pr", "mg"] as const) {
    for await (const [key, st] of rt.stores.pulls.allStates(kind)) {
      const waiting =
        st.checkRunId !== undefined &&
        st.scanId === undefined &&
        st.launchJobId !== undefined &&
        !("closed" in st && st.closed) &&
        !("destroyed" in st && st.destroyed) &&
        !("concluded" in st && st.concluded);
      if (!waiting) continue;
      const launch = await rt.queues.launch.getJob(st.launchJobId!);
      if (!launch || (await launch.getState()) !== "failed") continue;
      const klog = log.child({ installation: st.installationId, [kind === "pr" ? "pull" : "group"]: key });
      try {
        const octokit = await octokitOf(st.installationId);
        const run = await getCheckRun(octokit, st, st.checkRunId!);
        if (run.status === "completed") continue;
        klog.warn({ checkRunId: run.id }, "reconcile: launch failed, check run unfinished: repository swept");
        await sweepRepo(st.installationId, st.owner, st.repo);
      } catch (error) {
        summary.errors += 1;
        klog.warn({ err: error as Error }, "reconcile: waiting launch not checked");
      }
    }
  }
}

/**
 * One scan diffward's state counts in flight, with its link: `followed` when its poll job is waiting,
 * delayed or running, or a failed poll or report job was retried ({@link followExisting}); `finished` when
 * GitHub shows its check run completed (it leaves the installation's scans in flight); `sweep` when nothing
 * follows it and its check run is unfinished (its repository is to be swept).
 */
async function followInFlight(
  rt: Runtime,
  octokitOf: (installationId: number) => Promise<InstallationOctokit>,
  summary: ReconcileSummary,
  link: ScanLink,
  log: Runtime["log"],
): Promise<"followed" | "finished" | "sweep"> {
  const repo = { owner: link.owner, repo: link.repo };
  const poll = await rt.queues.scans.getJob(jobId("poll", link.scanId));
  const octokit = () => octokitOf(link.installationId);
  if (poll) {
    const state = await poll.getState();
    if (state !== "completed" && state !== "failed") {
      summary.alreadyFollowed.push(link.scanId);
      return "followed";
    }
    const at = { octokit: await octokit(), repo, checkRunId: link.checkRunId, scanId: link.scanId };
    return (await followExisting(poll, rt, at, summary, log)) ? "followed" : "sweep";
  }
  const run = await getCheckRun(await octokit(), repo, link.checkRunId);
  if (run.status === "completed") {
    await rt.stores.scans.finishScan(link.installationId, link.scanId);
    summary.finished.push(link.scanId);
    log.info({ checkRunId: run.id }, "reconcile: check run completed, scan no longer counted in flight");
    return "finished";
  }
  return "sweep";
}
