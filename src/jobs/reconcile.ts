import type { Job } from "bullmq";
import { withEffectiveDisclosure } from "../config/repo-config.js";
import { getCheckRun, listCheckRunsForRef, type FoundCheckRun } from "../github/checks.js";
import { getMergeBase, listOpenPulls, type PullHead } from "../github/pulls.js";
import { MERGE_QUEUE_REF_PREFIX, listMatchingRefs, type GitRef } from "../github/refs.js";
import { unlessStatus, type InstallationOctokit, type RepoRef } from "../github/types.js";
import { OwnerConfigs, loadRepoConfig, type LoadedConfig } from "../runtime/config-loader.js";
import { RatePacer, type RatePacerOptions } from "../github/rate-pacer.js";
import { defaultBranchHead, stopBaseline, syncBaselineSchedule } from "./baseline.js";
import { repoContextOf } from "./types.js";
import {
  addJob,
  type BaselineJobData,
  type PollJobData,
  type PullRequestJobData,
} from "../job-catalogue/index.js";
import { parseMergeGroupRef } from "../domain/merge-group.js";
import { baselineKey, groupKey, jobId, configLaunchKey, launchKey, pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { LockBusyError, type ScanLink } from "../stores/pull-state.js";
import type { ScannerTenant } from "../tenants/index.js";
import { applyWrites } from "../runtime/writes.js";
import { planLaunched } from "./decide-launch.js";
import { findLaunchedScan } from "./unknown-launch.js";
import { rebuildExpiries, resumeExpiries } from "../triage/expiry.js";

/** How long reconciliation waits for a pull request's lock held by a job or another reconciliation, in ms. */
const LOCK_WAIT_MS = 5_000;

/** What one reconciliation found and did; the job's result. */
export interface ReconcileSummary {
  /**
   * `in-flight`: diffward's state was intact (its marker found) and only what it says is in flight was looked
   * at; `full-sweep`: the marker was gone and every installation's repositories were swept
   */
  mode: "in-flight" | "full-sweep";
  /** installations swept, or (in-flight) installations with scans in flight */
  installations: number;
  /** repositories swept (with a config), in either mode */
  repositories: number;
  /** repositories of the full sweep skipped: no `.github/diffward.yml` of their own nor their owner's */
  skippedWithoutConfig: number;
  pulls: number;
  /** merge groups found in a merge queue (GitHub's `gh-readonly-queue/…` branches that exist now) */
  mergeGroups: number;
  /** in-flight scans whose poll job was recreated (or a failed one retried) */
  resumed: string[];
  /** in-flight scans whose poll job was still there: nothing done */
  alreadyFollowed: string[];
  /**
   * diffward's unfinished check runs without a scan id that nothing followed, whose head's launch is decided
   * again (a `pull-request` job with `resume`): launched once, the scan found in the service followed, or
   * the check run concluded
   */
  redecided: number[];
  /**
   * diffward's unfinished baseline check runs on older commits of the default branch, concluded as superseded
   * by the head (their scan cancelled when it still ran): the state that would have stopped them was lost
   */
  superseded: number[];
  /** scans diffward's state counted in flight whose check run GitHub shows completed: no longer counted */
  finished: string[];
  /** waits of the full sweep for an installation's rate-limit reset, and their total in ms */
  rateWaits: number;
  rateWaitedMs: number;
  /** installations or repositories that could not be read (suspended, 5xx after Octokit's retries) */
  errors: number;
}

/** How a reconciliation runs beside the runtime (`Runtime.appOctokit` reads the App's installations). */
export interface ReconcileOptions {
  /** the full sweep's rate pacing per installation ({@link RatePacer}'s options; tests give a clock) */
  pacer?: RatePacerOptions;
}

const DAY_MS = 24 * 3600_000;

/** Requests of a reconciliation within one window of this many ms collapse into one job. */
export const RECONCILE_WINDOW_MS = 10_000;

/**
 * Enqueues a reconciliation on the events queue. The job id is `reconcile-<window>`: every request within
 * one {@link RECONCILE_WINDOW_MS} window (all processes starting at once, say) collapses into one job.
 * @returns the job id; its result is the {@link ReconcileSummary} (kept one hour).
 */
export async function enqueueReconcile(rt: Pick<Runtime, "queues">, now = Date.now()): Promise<string> {
  const id = jobId("reconcile", Math.floor(now / RECONCILE_WINDOW_MS));
  await addJob(rt, "reconcile", {}, { jobId: id });
  return id;
}

/**
 * Makes sure every scan diffward had in flight is followed again after a start. Which way depends on the
 * state marker (`{prefix}:swept`, {@link PullStateStore.sweptAt}), written when a full sweep ends without an
 * error and renewed by every reconciliation:
 * - marker present, diffward's Redis state (and BullMQ's jobs beside it) intact: {@link reconcileInFlight}
 *   looks only at what the state says is in flight and asks GitHub only about what its jobs no longer follow;
 * - marker gone (a flush, a new Redis, a first start): {@link sweepAll} rebuilds it from GitHub's side.
 * @throws GitHub errors of the installations listing, Redis errors (the job is retried).
 */
export async function reconcile(rt: Runtime, opts: ReconcileOptions = {}): Promise<ReconcileSummary> {
  const log = rt.log.child({ job: "reconcile" });
  const intact = (await rt.stores.pulls.sweptAt()) !== undefined;
  const summary: ReconcileSummary = {
    mode: intact ? "in-flight" : "full-sweep",
    installations: 0,
    repositories: 0,
    skippedWithoutConfig: 0,
    pulls: 0,
    mergeGroups: 0,
    resumed: [],
    alreadyFollowed: [],
    redecided: [],
    superseded: [],
    finished: [],
    rateWaits: 0,
    rateWaitedMs: 0,
    errors: 0,
  };
  if (intact) {
    await reconcileInFlight(rt, summary, log);
    await rt.stores.pulls.touchSwept();
  } else {
    await sweepAll(rt, opts, summary, log);
    // a sweep that could not read everything is done again at the next start
    if (summary.errors === 0) await rt.stores.pulls.markSwept(new Date(rt.now()).toISOString());
  }
  // every acceptance expiry still recorded has its job (one failed for good is retried)
  await resumeExpiries(rt, log).catch((error: Error) => {
    summary.errors += 1;
    log.warn({ err: error }, "reconcile: acceptance expiries not resumed");
  });
  log.info(
    {
      mode: summary.mode,
      installations: summary.installations,
      repositories: summary.repositories,
      skippedWithoutConfig: summary.skippedWithoutConfig,
      pulls: summary.pulls,
      mergeGroups: summary.mergeGroups,
      resumed: summary.resumed.length,
      alreadyFollowed: summary.alreadyFollowed.length,
      redecided: summary.redecided.length,
      finished: summary.finished.length,
      rateWaits: summary.rateWaits,
      rateWaitedMs: summary.rateWaitedMs,
      errors: summary.errors,
    },
    "reconciliation done",
  );
  return summary;
}

/**
 * Rebuilds what was in flight from GitHub's side after diffward's Redis state was lost (a flush, a new
 * Redis, an outage longer than the keys' lives), so every in-flight scan is still reported:
 * for each installation (GitHub REST "List installations for the authenticated app", app JWT; suspended ones
 * skipped), each of its repositories ("List repositories accessible to the app installation") to which
 * `.github/diffward.yml` applies (its own or its owner's `.github` repository's, {@link OwnerConfigs}, read once;
 * the others are skipped: diffward never ran there), each open pull request's head commit, diffward's latest
 * check run there ("List check runs for a Git reference", `check_name=diffward`) that is not `completed` and
 * carries a scan id in `external_id`:
 * - when the `poll-<scanId>` job still exists, nothing is done (a failed one is retried, and so is a failed
 *   `report-<scanId>` job of a completed poll);
 * - otherwise the pull request state, the launch record (so a redelivered webhook never launches the head
 *   again: "never pay twice"), the scan link and the `poll-<scanId>` job are recreated. The BullMQ job id
 *   dedupes, so two reconciliations racing add one job. Nothing is sent to the service here: the poll job
 *   reads the scan after `firstPollDelayMs` and honours its `Retry-After` from then on.
 * Merge groups the same way, from each of the repository's merge-queue branches that exist now
 * ({@link reconcileMergeGroups}).
 * A pull request's unfinished check run on its head without `external_id` (its launch waited out
 * `debounceSeconds`, or the scan-id write had not reached GitHub) that diffward's state does not follow: when
 * the service has a scan of the head created since the check run ({@link findUnlinkedScan}), that scan is
 * resumed as above and its id written on the check run; otherwise a `pull-request` job decides the head's
 * launch again ({@link redecideUnlinked}), launched once (its launch job reads the scan list first too), or
 * the check run concluded. Never a second paid scan for a launch that reached the service.
 * `launchedAt` restarts at reconciliation, so `scanTimeoutMinutes` counts from then.
 * Each installation's requests are paced within its primary rate limit ({@link RatePacer}): the sweep waits
 * for `x-ratelimit-reset` while `x-ratelimit-remaining` is within the share left to live traffic.
 */
async function sweepAll(
  rt: Runtime,
  opts: ReconcileOptions,
  summary: ReconcileSummary,
  log: Runtime["log"],
): Promise<void> {
  const app = await rt.appOctokit();
  const installations = await app.paginate(app.rest.apps.listInstallations, { per_page: 100 });
  for (const inst of installations) {
    const ilog = log.child({ installation: inst.id });
    if (inst.suspended_at) {
      ilog.info("reconcile: installation suspended, skipped");
      continue;
    }
    summary.installations += 1;
    const accountLogin = (inst.account && "login" in inst.account ? inst.account.login : undefined) ?? "";
    const pacer = new RatePacer(opts.pacer);
    try {
      const octokit = pacer.attach(await rt.octokit(inst.id));
      const repos = await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, {
        per_page: 100,
      });
      const configs = new Map<string, OwnerConfigs>();
      for (const repo of repos) {
        try {
          const owner = repo.owner.login;
          if (!configs.has(owner)) configs.set(owner, new OwnerConfigs(octokit, owner));
          const loaded = await configs.get(owner)!.load(repo.name);
          if (loaded.kind === "absent") {
            summary.skippedWithoutConfig += 1;
            continue;
          }
          summary.repositories += 1;
          await reconcileRepository(
            rt,
            octokit,
            summary,
            {
              installationId: inst.id,
              accountLogin: accountLogin || owner,
              owner,
              repo: repo.name,
              repoPrivate: repo.private,
              defaultBranch: repo.default_branch ?? "main",
            },
            loaded,
          );
        } catch (error) {
          summary.errors += 1;
          ilog.warn({ repository: repo.full_name, err: error as Error }, "reconcile: repository skipped");
        }
      }
    } catch (error) {
      summary.errors += 1;
      ilog.warn({ err: error as Error }, "reconcile: installation skipped");
    } finally {
      summary.rateWaits += pacer.waits;
      summary.rateWaitedMs += pacer.waitedMs;
    }
  }
}

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
async function reconcileInFlight(rt: Runtime, summary: ReconcileSummary, log: Runtime["log"]): Promise<void> {
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

  for (const installationId of await rt.stores.pulls.inflightInstallations()) {
    const scans = await rt.stores.pulls.inflightScans(installationId);
    if (scans.length > 0) summary.installations += 1;
    for (const scanId of scans) {
      const slog = log.child({ installation: installationId, scanId });
      try {
        const link = await rt.stores.pulls.getScanLink(scanId);
        if (!link) {
          await rt.stores.pulls.finishScan(installationId, scanId);
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
    await rt.stores.pulls.finishScan(link.installationId, link.scanId);
    summary.finished.push(link.scanId);
    log.info({ checkRunId: run.id }, "reconcile: check run completed, scan no longer counted in flight");
    return "finished";
  }
  return "sweep";
}

/** The repository part of a poll job's data (what reconciliation knows before it looks at a scan). */
type RepoPart = Omit<
  PollJobData,
  | "pullNumber"
  | "headSha"
  | "mergeBase"
  | "checkRunId"
  | "scanId"
  | "projectId"
  | "presetRef"
  | "config"
  | "launchedAt"
>;

/**
 * One repository's pull requests, merge groups and baseline schedule. `given` is its config when the caller
 * read it already (the full sweep, {@link OwnerConfigs}); otherwise it is read here, once for the three
 * passes and the schedule.
 */
async function reconcileRepository(
  rt: Runtime,
  octokit: InstallationOctokit,
  summary: ReconcileSummary,
  r: RepoPart,
  given?: LoadedConfig,
): Promise<void> {
  const loaded = given ?? (await loadRepoConfig(octokit, r.owner, r.repo));
  const cache: ConfigCache =
    loaded.kind === "ok"
      ? { config: withEffectiveDisclosure(loaded.config, { private: r.repoPrivate }) }
      : {};
  const at: RepoPass = { octokit, summary, r, cache };
  await reconcilePulls(rt, at);
  await reconcileMergeGroups(rt, at);
  await reconcileBaseline(rt, at);
  // the repository's baseline job scheduler, rebuilt from its config (lost with Redis, or never set); an
  // invalid config leaves it as it is, since pull requests already show its problems
  const baseline =
    loaded.kind === "ok" ? loaded.config : loaded.kind === "absent" ? undefined : ("keep" as const);
  await syncBaselineSchedule(rt, r, baseline);
}

async function reconcilePulls(rt: Runtime, at: RepoPass): Promise<void> {
  const { octokit, summary, r } = at;
  const pulls = await listOpenPulls(octokit, r);
  if (pulls.length === 0) return;
  for (const pr of pulls) {
    summary.pulls += 1;
    const key = pullKey(r.owner, r.repo, pr.number);
    const runs = await listCheckRunsForRef(octokit, r, pr.headSha);
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
 * The expiries of a pull request's acceptances, rebuilt from the service's notes on the findings of its last
 * reported scan (the newest completed `diffward` check run on its head, `external_id`; `rebuildExpiries` in
 * src/triage/expiry.ts): after a flush they are diffward's only record. A failure is counted and logged; the
 * pull request's scan is still looked at.
 */
async function rebuildPullExpiries(
  rt: Runtime,
  summary: ReconcileSummary,
  r: RepoPart,
  pr: PullHead,
  runs: readonly FoundCheckRun[],
): Promise<void> {
  const reported = runs
    .filter((c) => c.status === "completed" && c.externalId && c.headSha === pr.headSha)
    .sort((a, b) => b.id - a.id)[0];
  const tenant = reported?.externalId ? await rt.scanner.forAccount(r.accountLogin) : undefined;
  if (!reported?.externalId || !tenant) return;
  const log = rt.log.child({ job: "reconcile", pull: pullKey(r.owner, r.repo, pr.number) });
  try {
    const pull = {
      installationId: r.installationId,
      accountLogin: r.accountLogin,
      owner: r.owner,
      repo: r.repo,
    };
    await rebuildExpiries(rt, { ...pull, pullNumber: pr.number }, tenant, reported.externalId, log);
  } catch (error) {
    summary.errors += 1;
    log.warn({ err: error as Error }, "reconcile: acceptance expiries not rebuilt");
  }
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
async function findInFlight(
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

/** Where a resumed scan reports: the target fields of its `poll-<scanId>` job and of its scan link. */
interface ResumeTarget {
  pullNumber: number;
  /** absent for a pull request's scan */
  target?: NonNullable<PollJobData["target"]>;
  headSha: string;
  mergeBase: string | null;
  presetRef: string;
  creditBudget: number | undefined;
}

/**
 * Follows a found scan again under `key`'s lock: nothing when its `poll-<scanId>` job exists (added
 * meanwhile: `followed`); else `writeState` rebuilds the target's state, or answers why the scan is not
 * resumed, and the scan link (`PullStateStore.linkScan`, for cancel on uninstall and commands) and the poll job are
 * written (`resumed`).
 */
async function resumeLocked<Refusal extends string>(
  rt: Runtime,
  r: RepoPart,
  key: string,
  { run, scanId, config, tenant }: Resumable,
  t: ResumeTarget,
  writeState: () => Promise<Refusal | undefined>,
): Promise<"followed" | "resumed" | Refusal> {
  const { creditBudget, ...where } = t;
  const data: PollJobData = {
    ...r,
    ...where,
    checkRunId: run.id,
    scanId,
    projectId: tenant.projectId,
    ...(creditBudget !== undefined ? { creditBudget } : {}),
    config,
    launchedAt: rt.now(),
  };
  return withLockWaiting(rt, key, async () => {
    if (await rt.queues.scans.getJob(jobId("poll", scanId))) return "followed" as const;
    const refusal = await writeState();
    if (refusal !== undefined) return refusal;
    await rt.stores.pulls.linkScan({
      scanId,
      projectId: tenant.projectId,
      installationId: r.installationId,
      accountLogin: r.accountLogin,
      owner: r.owner,
      repo: r.repo,
      pullNumber: t.pullNumber,
      headSha: t.headSha,
      checkRunId: run.id,
      ...(t.target?.kind === "merge-group" ? { mergeGroup: true } : {}),
      ...(t.target?.kind === "baseline" ? { baseline: true } : {}),
    });
    await addJob(rt, "poll", data, { jobId: jobId("poll", scanId), delay: rt.settings.firstPollDelayMs });
    return "resumed" as const;
  });
}

/**
 * A resumed launch: records the launch key's scan when its launch record lost it (so the launch job never
 * starts it again), and returns the fields a pull request's or a baseline's state keeps of its launch.
 */
async function resumedLaunch(
  rt: Runtime,
  r: RepoPart,
  { run, scanId, tenant }: Resumable,
  at: { headSha: string; launchKey: string },
) {
  if (!(await rt.stores.pulls.getLaunch(at.launchKey)).scanId)
    await rt.stores.pulls.recordLaunch(at.launchKey, { scanId, projectId: tenant.projectId });
  return {
    installationId: r.installationId,
    owner: r.owner,
    repo: r.repo,
    headSha: at.headSha,
    checkRunId: run.id,
    launchKey: at.launchKey,
    launchJobId: jobId("launch", at.launchKey),
    scanId,
    projectId: tenant.projectId,
  };
}

/**
 * What a resume does once its lock is released ({@link resumeLocked}'s `outcome`): counts the scan as already
 * followed (a poll job existed) or as resumed, logs why it was not resumed otherwise, and writes the scan id on
 * a check run whose scan was found in the service, now that its poll job exists, so a later state loss finds
 * the scan by it.
 */
async function afterResume(
  rt: Runtime,
  summary: ReconcileSummary,
  r: RepoPart,
  { run, scanId, presetRef, log }: Pick<Resumable, "run" | "scanId" | "log"> & { presetRef: string },
  outcome: string,
  resumedMessage: string,
  notResumedMessage = "reconcile: scan not resumed",
): Promise<void> {
  if (outcome === "followed") {
    summary.alreadyFollowed.push(scanId);
    return;
  }
  if (outcome !== "resumed") {
    log.info({ why: outcome }, notResumedMessage);
    return;
  }
  summary.resumed.push(scanId);
  log.info({ checkRunId: run.id }, resumedMessage);
  if (!run.externalId)
    await applyWrites(
      rt,
      r.installationId,
      planLaunched({ ...r, checkRunId: run.id, presetRef }, scanId, undefined),
    );
}

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
async function reconcileBaseline(rt: Runtime, at: RepoPass): Promise<void> {
  const { octokit, summary, r, cache } = at;
  cache.config ??= await effectiveConfig(octokit, r, rt.log.child({ installation: r.installationId }));
  if (!cache.config) return;
  if (cache.config.baseline.on === "off") return;
  const headSha = await defaultBranchHead(octokit, r);
  if (!headSha) return;
  const key = baselineKey(r.owner, r.repo);
  const runs = await listCheckRunsForRef(octokit, r, headSha);
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
        await addJob(rt, "baselinePush", data, { jobId: jobId("baseline-resume", String(run.id)) });
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

/** One repository's reconciliation pass: its installation's client, the summary it adds to, its config cache. */
interface RepoPass {
  octokit: InstallationOctokit;
  summary: ReconcileSummary;
  r: RepoPart;
  cache: ConfigCache;
}

/** The repository's effective config, loaded once per repository by {@link findResumable} (per loop). */
interface ConfigCache {
  config?: PollJobData["config"];
}

/** A scan {@link findResumable} found to resume: its check run, its logger, the repository's config, the tenant. */
interface Resumable {
  run: FoundCheckRun;
  scanId: string;
  log: Runtime["log"];
  config: PollJobData["config"];
  tenant: ScannerTenant;
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
async function findResumable(
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
 * The repository's `.github/diffward.yml` with its effective disclosure, as a poll job carries it.
 * @returns `undefined` (logged) when the file is absent or invalid: nothing of the repository is resumed.
 */
async function effectiveConfig(
  octokit: InstallationOctokit,
  r: RepoPart,
  log: Runtime["log"],
): Promise<PollJobData["config"] | undefined> {
  const loaded = await loadRepoConfig(octokit, r.owner, r.repo);
  if (loaded.kind !== "ok") {
    log.warn({ config: loaded.kind }, "reconcile: repository config unusable, scan not resumed");
    return undefined;
  }
  return withEffectiveDisclosure(loaded.config, { private: r.repoPrivate });
}

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
 *   recreated; the poll job reports on the group's check run (`reportGroupScan`, `src/jobs/report/group.ts`).
 * Assumptions, since GitHub's REST API does not give a merge group's `base_sha`: the poll job's `mergeBase`
 * is `null` and its target has no `baseSha` (neither polling nor the group's report reads them; the scan
 * itself keeps its `baseCommit`), and the group's state gets no launch key. A redelivered `checks_requested`
 * still launches nothing: a group whose state holds a scan is handled (`processMergeGroup`, `src/jobs/merge-group.ts`).
 * `head_ref` is the branch's full ref, as in the `merge_group` event.
 */
async function reconcileMergeGroups(rt: Runtime, at: RepoPass): Promise<void> {
  const { octokit, summary, r, cache } = at;
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

/**
 * Whether diffward's state follows `checkRunId`: the pull request's state is open, on `headSha`, with this
 * check run (its launch, poll or report job carries it on).
 */
async function followsRun(rt: Runtime, key: string, headSha: string, checkRunId: number): Promise<boolean> {
  const prev = await rt.stores.pulls.getPull(key);
  return Boolean(prev && !prev.closed && prev.headSha === headSha && prev.checkRunId === checkRunId);
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
async function findUnlinkedScan(
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
function sinceOf(rt: Runtime, run: FoundCheckRun): number {
  return run.startedAt ? Date.parse(run.startedAt) : rt.now() - 30 * DAY_MS;
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
    await addJob(rt, "pullRequest", data, { jobId: id });
    return true;
  });
  if (!added) return;
  summary.redecided.push(run.id);
  log.info("reconcile: check run without a scan id, its launch decided again");
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
async function followExisting(
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

/** {@link PullStateStore.withPullLock}, waiting up to {@link LOCK_WAIT_MS} while another holder has the lock. */
async function withLockWaiting<T>(rt: Runtime, key: string, fn: () => Promise<T>): Promise<T> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return await rt.stores.pulls.withPullLock(key, fn);
    } catch (error) {
      if (!(error instanceof LockBusyError) || Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
