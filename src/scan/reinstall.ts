/**
 * The app installed again (`installation.created` after an `installation.deleted`): diffward's check runs
 * the uninstall left unfinished are ended, and the newest head of each open pull request they were on is
 * scanned again ({@link processReinstall}).
 */
import type { Job } from "bullmq";
import type { FoundCheckRun } from "../github/check-runs.js";
import { readOpenHeads, type RepoHeads } from "../github/open-heads.js";
import type { PullHead } from "../github/pulls.js";
import { RatePacer } from "../github/rate-pacer.js";
import { updateCheck } from "../github/writes.js";
import {
  addJob,
  type PullRequestJobData,
  type ReinstallJobData,
  type RepoContext,
} from "../job-catalogue/index.js";
import { pullHeadOf } from "../job-kit/types.js";
import { applyWrites } from "../runtime/apply-writes.js";
import { OwnerConfigs } from "../runtime/config-loader.js";
import { jobId } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";

/** What one reinstall found: check runs ended, heads enqueued for a new scan, finished scans not paid again. */
export interface ReinstallOutcome {
  /** diffward's unfinished check runs started before the installation was created, now completed */
  concluded: number;
  /** newest heads enqueued for a new scan (an explicit request, one per head and installation) */
  relaunched: number;
  /** heads whose scan had finished before the uninstall: concluded, not launched again (never paid twice) */
  finished: number;
}

/** A repository of the installation, as the jobs carry it. */
type RepoPart = Omit<RepoContext, "repoHtmlUrl">;

/** Repositories read by one GraphQL walk (GitHub's `nodes(ids:)` bound, as the reconciliation's). */
const WALK_CHUNK = 100;

/**
 * After a reinstall (GitHub gives a new installation id; the uninstall cancelled every scan in flight and
 * could no longer write its check runs, since GitHub refuses a removed installation's token): walks the
 * installation's repositories (REST "List repositories accessible to the app installation", then the
 * reconciliation's GraphQL walk, {@link readOpenHeads}, 100 repositories to a query) and, in each one with
 * a `.github/diffward.yml`, each open pull request whose newest head's latest `diffward` check run is not
 * completed and was started before the installation was created (`installation.created_at`: no event of the
 * new installation created it):
 * - the check run is completed (`cancelled`, saying why), so every check run diffward created ends;
 * - the head is scanned again as an explicit request (`pull-request` job, nonce `reinstall-<installationId>`,
 *   job id per head): a redelivered `installation.created` or a second worker adds nothing, and the state's
 *   nonce makes a replayed job a duplicate delivery. The launch passes the same gates, spend caps and
 *   credit budget as any other;
 * - unless the scan on it had finished (status `COMPLETED`, spec §Scan status, as diffward recorded it or the
 *   service answers `GET /projects/{projectId}/scans/{scanId}`): a finished scan is never paid for twice,
 *   so its check run is completed `neutral` naming the scan, and `/diffward rescan` reports the head anew.
 * Heads whose check runs completed before the uninstall, and pull requests without a diffward check run,
 * are left alone: nothing diffward owed them was lost.
 * @throws GitHub errors of the repository listing (the job is retried; the walk's steps are idempotent).
 */
export async function processReinstall(rt: Runtime, job: Job<ReinstallJobData>): Promise<ReinstallOutcome> {
  const d = job.data;
  const log = rt.log.child({ job: "reinstall", installation: d.installationId });
  const out: ReinstallOutcome = { concluded: 0, relaunched: 0, finished: 0 };
  await rt.stores.pulls.setInstallationRemoved(d.installationId, false);
  const octokit = await rt.octokit(d.installationId);
  const repos = await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, {
    per_page: 100,
  });
  const points = new RatePacer();
  const configs = new Map<string, OwnerConfigs>();
  for (let i = 0; i < repos.length; i += WALK_CHUNK) {
    const chunk = repos.slice(i, i + WALK_CHUNK);
    const heads = await readOpenHeads(
      octokit,
      chunk.map((r) => ({ nodeId: r.node_id })),
      {
        appId: d.appId,
        spent: async (s) => {
          points.observe({
            "x-ratelimit-limit": s.limit,
            "x-ratelimit-remaining": s.remaining,
            "x-ratelimit-reset": Math.ceil(Date.parse(s.resetAt) / 1000),
          });
          await points.before();
        },
      },
    );
    for (const repo of chunk) {
      const h = heads.get(repo.node_id);
      if (!h || !h.pulls.some((p) => staleRun(p.runs, d.installedAt))) continue;
      const owner = repo.owner.login;
      if (!configs.has(owner)) configs.set(owner, new OwnerConfigs(octokit, owner));
      const loaded =
        h.config !== "unread"
          ? await configs.get(owner)!.loadText(repo.name, h.config)
          : await configs.get(owner)!.load(repo.name);
      if (loaded.kind === "absent") continue;
      const r: RepoPart = {
        installationId: d.installationId,
        accountLogin: d.accountLogin || owner,
        owner,
        repo: repo.name,
        repoPrivate: repo.private,
        defaultBranch: repo.default_branch ?? "main",
      };
      await resumeRepository(rt, r, h, d, out);
    }
  }
  log.info(out, "reinstalled: check runs left by the uninstall ended, heads scanned again");
  return out;
}

/** diffward's latest check run on a head when the uninstall left it unfinished (started before `installedAt`). */
function staleRun(runs: readonly FoundCheckRun[], installedAt: string): FoundCheckRun | undefined {
  const run = runs[0];
  if (!run || run.status === "completed") return undefined;
  return run.startedAt && Date.parse(run.startedAt) < Date.parse(installedAt) ? run : undefined;
}

/** One repository's open pull requests whose newest head has a check run the uninstall left unfinished. */
async function resumeRepository(
  rt: Runtime,
  r: RepoPart,
  h: RepoHeads,
  d: ReinstallJobData,
  out: ReinstallOutcome,
): Promise<void> {
  for (const pr of h.pulls) {
    const run = staleRun(pr.runs, d.installedAt);
    if (!run) continue;
    const finished = run.externalId ? await scanFinished(rt, r, run.externalId) : false;
    await applyWrites(rt, r.installationId, [
      updateCheck(r, run.id, finished ? finishedConclusion(run.externalId!) : cancelledConclusion()),
    ]);
    out.concluded += 1;
    if (finished) {
      out.finished += 1;
      continue;
    }
    await relaunch(rt, r, pr, d);
    out.relaunched += 1;
  }
}

/** Whether the scan had finished: diffward's record of its end, else the service's answer. */
async function scanFinished(rt: Runtime, r: RepoPart, scanId: string): Promise<boolean> {
  const end = await rt.stores.scans.getScanEnd(scanId);
  if (end.status) return end.status === "COMPLETED";
  const tenant = await rt.scanner.forAccount(r.accountLogin);
  if (!tenant) return false;
  const { scan } = await tenant.client.getScan(tenant.projectId, scanId);
  return scan.status === "COMPLETED";
}

function cancelledConclusion() {
  return {
    status: "completed" as const,
    conclusion: "cancelled" as const,
    output: {
      title: "Cancelled: diffward was uninstalled",
      summary:
        "diffward was uninstalled while this commit was being scanned, and its scan was cancelled. The app was " +
        "installed again: this commit is scanned anew in a new `diffward` check run.",
    },
  };
}

function finishedConclusion(scanId: string) {
  return {
    status: "completed" as const,
    conclusion: "neutral" as const,
    output: {
      title: "Not reported: diffward was uninstalled",
      summary:
        `Scan \`${scanId}\` of this commit finished while diffward was uninstalled, so its findings were not ` +
        "posted. It is not launched again (it would be paid twice): comment `/diffward rescan` to scan and " +
        "report this commit anew.",
    },
  };
}

/** The head's new scan: an explicit request, once per head and installation. */
async function relaunch(rt: Runtime, r: RepoPart, pr: PullHead, d: ReinstallJobData): Promise<void> {
  const data: PullRequestJobData = {
    deliveryId: d.deliveryId,
    action: "reinstall",
    ...r,
    ...pullHeadOf(pr, rt.now()),
    explicit: { nonce: `reinstall-${d.installationId}` },
  };
  await addJob(rt, "pullRequest", data, {
    jobId: jobId("reinstalled", d.installationId, r.owner, r.repo, pr.number, pr.headSha),
  });
}
