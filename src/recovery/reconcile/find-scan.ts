/**
 * Finding the scan in flight on one head commit (a pull request's, a merge group's, the baseline's) from
 * diffward's check runs there ({@link findResumable}), or from the service's scans for a check run without a
 * scan id ({@link findUnlinkedScan}); and what to do when its `poll-<scanId>` job still exists
 * ({@link followExisting}).
 */
import type { Job } from "bullmq";
import { getCheckRun, type FoundCheckRun } from "../../github/check-runs.js";
import type { InstallationOctokit, RepoRef } from "../../github/octokit-types.js";
import type { PollJobData } from "../../job-catalogue/index.js";
import { jobId } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { ScannerTenant } from "../../tenants/index.js";
import { findLaunchedScan } from "../../scan/index.js";
import {
  DAY_MS,
  effectiveConfig,
  type ConfigCache,
  type RepoPart,
  type RepoPass,
} from "./repository-pass.js";
import type { ReconcileSummary } from "./summary.js";

/** A scan {@link findResumable} found to resume: its check run, its logger, the repository's config, the tenant. */
export interface Resumable {
  run: FoundCheckRun;
  scanId: string;
  log: Runtime["log"];
  config: PollJobData["config"];
  tenant: ScannerTenant;
}

/**
 * The scan in flight on one head commit (a pull request's or the baseline's): the one of diffward's check
 * run with a scan id ({@link findResumable}); else, for an unfinished check run without one that diffward's
 * state does not follow (`unlinked.follows`), the scan the service shows for it ({@link findUnlinkedScan}),
 * or, when the service has none, the launch decided again on that check run (`unlinked.redecide`).
 * @returns the scan to resume; `none` (nothing to resume, already followed, or no scanner token); or
 *   `stop-repository` when the repository's config is absent or invalid.
 * @throws GitHub, service or Redis errors as they come (the repository counts as an error in the summary).
 */
export async function findInFlight(
  rt: Runtime,
  at: RepoPass,
  where: Parameters<typeof findResumable>[5],
  unlinked: {
    follows: (run: FoundCheckRun) => Promise<boolean>;
    redecide: (run: FoundCheckRun) => Promise<void>;
  },
): Promise<Resumable | "none" | "stop-repository"> {
  const { octokit, summary, r, cache } = at;
  const found = await findResumable(rt, octokit, summary, r, cache, where);
  if (found !== "next") return found;
  const { headSha } = where;
  const run = where.runs.find((c) => c.status !== "completed" && !c.externalId && c.headSha === headSha);
  if (!run || (await unlinked.follows(run))) return "none";
  const scan = await findUnlinkedScan(rt, octokit, r, cache, headSha, run);
  if (scan === "stop-repository" || (scan !== undefined && scan !== "no-tenant")) return scan;
  if (scan === undefined) await unlinked.redecide(run);
  return "none";
}

/**
 * The steps the pull request and merge-group paths of reconciliation share for one head commit: finds, among
 * diffward's check runs on `headSha` (GitHub REST `GET /repos/{owner}/{repo}/commits/{ref}/check-runs`), one
 * that is not `completed` and carries a scan id in `external_id`; when the `poll-<scanId>` job still exists, hands
 * it to {@link followExisting}; else (or when those jobs no longer follow the scan) loads the repository's config once into `cache` ({@link effectiveConfig})
 * and the account's scanner tenant.
 * @param where.bindings the child logger's target binding (`{ pull: key }` or `{ group: key }`), between
 *   `installation` and `scanId`.
 * @param where.noTenantMessage the warning logged when the account has no scanner token.
 * @returns `next` to go on with the next pull request or group (no such check run, the poll job exists, or
 *   no scanner token); `stop-repository` when the repository's config is absent or invalid (nothing of the
 *   repository is resumed); else the {@link Resumable} scan.
 * @throws GitHub or Redis errors as they come (the repository counts as an error in the summary).
 */
export async function findResumable(
  rt: Runtime,
  octokit: InstallationOctokit,
  summary: ReconcileSummary,
  r: RepoPart,
  cache: ConfigCache,
  where: {
    headSha: string;
    /** diffward's check runs on `headSha`, newest first ({@link listCheckRunsForRef}) */
    runs: readonly FoundCheckRun[];
    bindings: { pull: string } | { group: string } | { baseline: string };
    noTenantMessage: string;
  },
): Promise<"next" | "stop-repository" | Resumable> {
  const { headSha } = where;
  const run = where.runs.find((c) => c.status !== "completed" && c.externalId && c.headSha === headSha);
  if (!run?.externalId) return "next";
  const scanId = run.externalId;
  const log = rt.log.child({ installation: r.installationId, ...where.bindings, scanId });

  const existing = await rt.queues.scans.getJob(jobId("poll", scanId));
  if (
    existing &&
    (await followExisting(existing, rt, { octokit, repo: r, checkRunId: run.id, scanId }, summary, log))
  )
    return "next";

  if (!cache.config) {
    cache.config = await effectiveConfig(octokit, r, log);
    if (!cache.config) return "stop-repository";
  }
  const tenant = await rt.scanner.forAccount(r.accountLogin);
  if (!tenant) {
    log.warn(where.noTenantMessage);
    return "next";
  }
  return { run, scanId, log, config: cache.config, tenant };
}

/**
 * The scan a check run without a scan id (`run`, on `headSha`) already has in the service: the newest scan
 * of the repository's service repository and this head created since the check run's `started_at` (spec
 * §Scans, `GET /projects/{projectId}/scans`, newest first; the service has no idempotency key, so the list
 * is how a launch whose outcome was lost is found). Loads the repository's config into `cache`.
 * @returns the scan to resume on `run`; `undefined` when the service has none (the launch is decided again);
 *   `no-tenant` when the account has no scanner token (nothing can be known: left for a later
 *   reconciliation); `stop-repository` when the repository's config is absent or invalid.
 * @throws the service's and GitHub's errors as they come (the repository counts as an error).
 */
export async function findUnlinkedScan(
  rt: Runtime,
  octokit: InstallationOctokit,
  r: RepoPart,
  cache: ConfigCache,
  headSha: string,
  run: FoundCheckRun,
): Promise<Resumable | "no-tenant" | "stop-repository" | undefined> {
  const log = rt.log.child({ installation: r.installationId, checkRunId: run.id });
  if (!cache.config) {
    cache.config = await effectiveConfig(octokit, r, log);
    if (!cache.config) return "stop-repository";
  }
  const tenant = await rt.scanner.forAccount(r.accountLogin);
  if (!tenant) {
    log.warn("reconcile: no scanner token for the account, check run without a scan id left as it is");
    return "no-tenant";
  }
  const scan = await findLaunchedScan(
    tenant,
    { repositoryId: cache.config.repositoryId, headSha, mergeBase: null, presetRef: "" },
    sinceOf(rt, run),
    true,
  );
  if (!scan) return undefined;
  log.warn({ scanId: scan.id }, "reconcile: check run without a scan id has a scan in the service");
  return { run, scanId: scan.id, log: log.child({ scanId: scan.id }), config: cache.config, tenant };
}

/** The check run's `started_at` in ms; GitHub sets it at creation (absent: the launch records' 30 days). */
export function sinceOf(rt: Runtime, run: FoundCheckRun): number {
  return run.startedAt ? Date.parse(run.startedAt) : rt.now() - 30 * DAY_MS;
}

/**
 * An in-flight scan whose `poll-<scanId>` job still exists: a failed poll job is retried; a completed one
 * handed its report to `report-<scanId>` (queue `diffward-reports`, added before the poll completed), and
 * a failed report job is retried. A completed poll whose report job is gone or completed while GitHub still
 * shows the check run unfinished (read again now, after the jobs: a report completes its check run before
 * its job completes) follows nothing: an earlier poll ended without concluding (a missing token did so).
 * Its finished jobs are removed, so the caller resumes the scan. Anything else is still followed.
 * @returns true when handled here (followed or retried); false when the caller is to resume the scan.
 */
export async function followExisting(
  poll: Job,
  rt: Runtime,
  at: { octokit: InstallationOctokit; repo: RepoRef; checkRunId: number; scanId: string },
  summary: ReconcileSummary,
  log: Runtime["log"],
): Promise<boolean> {
  const { scanId } = at;
  const state = await poll.getState();
  if (state === "failed") {
    await poll.retry("failed");
    summary.resumed.push(scanId);
    log.warn("reconcile: failed poll job retried");
    return true;
  }
  if (state === "completed") {
    const report = await rt.queues.reports.getJob(jobId("report", scanId));
    const reportState = report ? await report.getState() : undefined;
    if (report && reportState === "failed") {
      await report.retry("failed");
      summary.resumed.push(scanId);
      log.warn("reconcile: failed report job retried");
      return true;
    }
    if (
      (reportState === undefined || reportState === "completed") &&
      (await getCheckRun(at.octokit, at.repo, at.checkRunId)).status !== "completed"
    ) {
      log.warn({ poll: poll.returnvalue as unknown }, "reconcile: scan no longer followed by its jobs");
      await report?.remove();
      await poll.remove();
      return false;
    }
  }
  summary.alreadyFollowed.push(scanId);
  return true;
}
