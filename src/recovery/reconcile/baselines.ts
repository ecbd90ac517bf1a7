/**
 * A repository's default-branch baseline after a start ({@link reconcileBaseline}): the head's baseline scan
 * in flight resumed or its start decided again, and after a state loss the baselines of older commits left
 * unfinished followed or superseded ({@link settleOlderBaselines}).
 */
import { WALK_PRIORITY } from "../../runtime/fairness.js";
import { listCheckRunsForRef, type FoundCheckRun } from "../../github/check-runs.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import { addJob, type BaselineJobData, type PollJobData } from "../../job-catalogue/index.js";
import { baselineKey, jobId, launchKey } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { ScannerTenant } from "../../tenants/index.js";
import { defaultBranchHead, stopBaseline } from "../../baseline/index.js";
import { repoContextOf } from "../../job-kit/types.js";
import { findInFlight, type Resumable } from "./find-scan.js";
import { DAY_MS, effectiveConfig, type RepoPart, type RepoPass } from "./repository-pass.js";
import { afterResume, resumeLocked, resumedLaunch, type ResumeTarget } from "./resume-scan.js";
import type { ReconcileSummary } from "./summary.js";

/**
 * Resumes the repository's default-branch baseline after diffward's Redis state was lost, from diffward's
 * check run on the default branch's head commit that is not `completed` (every check run diffward creates
 * must end):
 * - with a scan id (`external_id`): its `poll-<scanId>` job is recreated, once ({@link findResumable});
 * - without one, when diffward's state does not follow it: the service's scans of the commit since the check
 *   run's `started_at` are looked up ({@link findUnlinkedScan}) and a found one is followed the same way;
 *   otherwise a `baseline-push` start of the head on that check run is enqueued (job id
 *   `baseline-resume-<checkRunId>`, so racing reconciliations add one), which launches once. Never a second
 *   paid scan for a launch that reached the service.
 * In a full sweep (the state lost), the baselines of older commits left unfinished are settled too
 * ({@link settleOlderBaselines}): followed when the newest and the head has none, else superseded.
 * Nothing is done when the repository has no `baseline` on.
 */
export async function reconcileBaseline(rt: Runtime, at: RepoPass): Promise<void> {
  const { octokit, summary, r, cache } = at;
  cache.config ??= await effectiveConfig(octokit, r, rt.log.child({ installation: r.installationId }));
  if (!cache.config) return;
  if (cache.config.baseline.on === "off") return;
  // the sweep's GraphQL walk read the head and its check runs already
  const headSha = at.heads ? at.heads.defaultHead?.sha : await defaultBranchHead(octokit, r);
  if (!headSha) return;
  const key = baselineKey(r.owner, r.repo);
  const runs = at.heads?.defaultHead?.runs ?? (await listCheckRunsForRef(octokit, r, headSha));
  // the state lost (a full sweep): nothing stops or follows a baseline of an older commit any more
  if (summary.mode === "full-sweep")
    await settleOlderBaselines(rt, octokit, summary, r, key, {
      config: cache.config,
      headSha,
      headRuns: runs,
    });
  const trigger = cache.config.baseline.on;
  const found = await findInFlight(
    rt,
    at,
    {
      headSha,
      runs,
      bindings: { baseline: key },
      noTenantMessage: "reconcile: no scanner token for the account, baseline scan not resumed",
    },
    {
      follows: async (run) => {
        const prev = await rt.stores.baselines.get(key);
        return prev?.headSha === headSha && prev.checkRunId === run.id;
      },
      redecide: async (run) => {
        const data: BaselineJobData = { ...repoContextOf(r), trigger, headSha, resumeCheckRunId: run.id };
        await addJob(rt, "baselinePush", data, {
          jobId: jobId("baseline-resume", String(run.id)),
          priority: WALK_PRIORITY,
        });
        summary.redecided.push(run.id);
      },
    },
  );
  if (found === "stop-repository" || found === "none") return;
  await resumeBaselineScan(rt, summary, r, key, headSha, found);
}

/** How far back reconciliation looks for baselines of older commits left unfinished, in ms: a week of scans. */
const OLDER_BASELINES_WINDOW_MS = 7 * DAY_MS;

/** At most this many older commits' check runs are read (one GitHub request each). */
const OLDER_BASELINES_MAX = 5;

/**
 * Settles the baselines of older commits of the default branch left unfinished when diffward's Redis state
 * was lost (their poll jobs went with it, and the newer push's stop never ran), found by
 * {@link olderBaselineRuns}. The newest baseline scan of the branch is followed again when the head has no
 * diffward check run of its own: its scan is paid for and is the branch's newest baseline. Every other one is
 * superseded as a newer push supersedes it (`stopBaseline`): its scan cancelled when it still runs (never a
 * finished one: cancelling it saves nothing), its check run concluded `cancelled`, "Superseded by <head>".
 * Nothing is launched, so nothing is paid twice.
 */
async function settleOlderBaselines(
  rt: Runtime,
  octokit: InstallationOctokit,
  summary: ReconcileSummary,
  r: RepoPart,
  key: string,
  at: { config: PollJobData["config"]; headSha: string; headRuns: readonly FoundCheckRun[] },
): Promise<void> {
  const tenant = await rt.scanner.forAccount(r.accountLogin);
  if (!tenant) return;
  const followed = (await rt.stores.baselines.get(key))?.checkRunId;
  const found = await olderBaselineRuns(rt, octokit, r, tenant, at);
  for (const { run, scanId, newest } of found) {
    if (run.id === followed) continue; // a push since the loss follows it again
    const log = rt.log.child({ installation: r.installationId, baseline: key, scanId });
    if (newest && at.headRuns.length === 0) {
      const resumable = { run, scanId, log, config: at.config, tenant };
      await resumeBaselineScan(rt, summary, r, key, run.headSha, resumable);
      continue;
    }
    const older = { ...r, branch: r.defaultBranch, headSha: run.headSha, checkRunId: run.id };
    await stopBaseline(
      rt,
      { ...older, scanId, projectId: tenant.projectId },
      at.headSha,
      r.accountLogin,
      log,
    );
    summary.superseded.push(run.id);
  }
}

/**
 * diffward's unfinished baseline check runs on older commits of the default branch, from the service's scans
 * (spec §Scans, `GET /projects/{projectId}/scans`, newest first; the first page, the last
 * {@link OLDER_BASELINES_WINDOW_MS}): whole-repository scans of the repository (no `baseCommit`) on a commit
 * other than the head, at most {@link OLDER_BASELINES_MAX} of them. Each commit's check runs are read (GitHub
 * REST "List check runs for a Git reference"; a commit GitHub does not know is passed over) for diffward's
 * unfinished one carrying the scan's id, and only then the scan's detail, which must name the default branch
 * as `branch` (a baseline's launch does; a pull request's names its head branch). A detail the service asks
 * to wait for (429: it is polled elsewhere) is passed over until the next sweep. `newest` marks a scan no
 * whole-repository scan of the repository came after.
 */
async function olderBaselineRuns(
  rt: Runtime,
  octokit: InstallationOctokit,
  r: RepoPart,
  tenant: ScannerTenant,
  at: { config: PollJobData["config"]; headSha: string },
): Promise<Array<{ run: FoundCheckRun; scanId: string; newest: boolean }>> {
  const since = rt.now() - OLDER_BASELINES_WINDOW_MS;
  const out: Array<{ run: FoundCheckRun; scanId: string; newest: boolean }> = [];
  let read = 0;
  let whole = 0;
  for await (const scan of tenant.client.iterateScans(tenant.projectId, { limit: 100 })) {
    if ((read += 1) > 100 || Date.parse(scan.createdAt) < since || whole >= OLDER_BASELINES_MAX) break;
    if (scan.repositoryId !== at.config.repositoryId || scan.baseCommit || !scan.commitHash) continue;
    whole += 1;
    if (at.headSha.startsWith(scan.commitHash)) continue;
    const runs = await listCheckRunsForRef(octokit, r, scan.commitHash).catch(passOver([404, 422]));
    const run = runs?.find((c) => c.status !== "completed" && c.externalId === scan.id);
    if (!run) continue;
    const got = await tenant.client.getScan(tenant.projectId, scan.id).catch(passOver([429]));
    if (got?.scan.branch === r.defaultBranch) out.push({ run, scanId: scan.id, newest: whole === 1 });
  }
  return out;
}

/** A catch handler giving `undefined` for an error of one of these HTTP statuses, rethrowing any other. */
function passOver(statuses: readonly number[]): (error: unknown) => undefined {
  return (error) => {
    if (statuses.includes((error as { status?: number }).status ?? 0)) return undefined;
    throw error;
  };
}

/** Follows a baseline scan again: the baseline state, the scan link and the `poll-<scanId>` job, once. */
async function resumeBaselineScan(
  rt: Runtime,
  summary: ReconcileSummary,
  r: RepoPart,
  key: string,
  headSha: string,
  found: Resumable,
): Promise<void> {
  const { config } = found;
  const presetRef = config.baseline.preset ?? "";
  // Never compared with a start's key (each has its own nonce): the state's headSha stops a repeat launch.
  const lk = launchKey({ repositoryId: config.repositoryId, headSha, mergeBase: null, presetRef });
  const target: ResumeTarget = {
    pullNumber: 0,
    target: { kind: "baseline", branch: r.defaultBranch },
    headSha,
    mergeBase: null,
    presetRef,
    creditBudget: config.baseline.creditBudget,
  };
  const outcome = await resumeLocked(rt, r, key, found, target, async () => {
    await rt.stores.baselines.set(key, {
      ...(await resumedLaunch(rt, r, found, { headSha, launchKey: lk })),
      branch: r.defaultBranch,
    });
    return undefined;
  });
  await afterResume(rt, summary, r, { ...found, presetRef }, outcome, "reconcile: baseline scan resumed");
}
