import type { Job } from "bullmq";
import type { RepoConfig } from "../config/repo-config.js";
import { cronPatternOf, scheduleProblem } from "../config/schedule.js";
import { getCheckRun, listCheckRunsForRef } from "../github/check-runs.js";
import { listMatchingRefs } from "../github/refs.js";
import { unlessStatus, type InstallationOctokit } from "../github/octokit-types.js";
import { createCheck, updateCheck } from "../github/writes.js";
import { renderBaselineSuperseded } from "./render-baseline.js";
import { presetsOf } from "../tenants/presets.js";
import { type BaselineState } from "../stores/baseline-state.js";
import { loadRepoConfig } from "../runtime/config-loader.js";
import { baselineKey, baselineSchedulerId } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { applyWrites, createdCheckRunId } from "../runtime/apply-writes.js";
import {
  decideBaseline,
  followsCommit,
  isStalePush,
  knownDiffPresets,
  type BaselineFacts,
  type BaselineOutcome,
} from "./decide-baseline.js";
import { enqueueLaunch } from "../scan/index.js";
import { readAccountToken } from "../job-kit/service-outage.js";
import { stopGroupScan } from "../merge-queue/index.js";
import { repoContextOf } from "../job-kit/types.js";
import { parseJobData, scheduleJob, type BaselineJobData, type RepoContext } from "../job-catalogue/index.js";

export type { BaselineOutcome } from "./decide-baseline.js";

/**
 * Starts a default-branch baseline (jobs `baseline-push` and `baseline-schedule`):
 * 1. read `.github/diffward.yml` (absent: nothing; invalid: nothing, pull requests show it) and, for a push,
 *    keep the repository's baseline job scheduler in step with it ({@link syncBaselineSchedule});
 * 2. stop unless `baseline.on` is this trigger (a schedule left behind removes itself);
 * 3. a scheduled run reads the default branch's head and stops when that commit already has a completed
 *    baseline or one in flight;
 * 4. under the baseline's lock: drop a push whose commit is no longer the branch's head (read from GitHub:
 *    {@link isStalePush}), and a start of the commit already followed; stop the baseline of an older commit
 *    (its waiting launch removed, its scan cancelled unless terminal, its check run concluded `cancelled`
 *    unless completed);
 * 5. read the token and the presets, decide ({@link decideBaseline}), write the check run on the commit, then
 *    enqueue the launch (the shared launch job: preflight, `creditCap.monthly`, never paying twice).
 */
export async function processBaseline(rt: Runtime, job: Job<BaselineJobData>): Promise<BaselineOutcome> {
  const d = job.data;
  const key = baselineKey(d.owner, d.repo);
  const log = rt.log.child({
    baseline: key,
    installation: d.installationId,
    trigger: d.trigger,
    job: job.id,
  });
  if (await rt.stores.pulls.isInstallationRemoved(d.installationId)) {
    // the app was uninstalled: a schedule left behind ends here
    await rt.queues.events.removeJobScheduler(baselineSchedulerId(d.owner, d.repo));
    log.info("installation removed: no baseline");
    return "off";
  }
  const octokit = await rt.octokit(d.installationId);
  const loaded = await loadRepoConfig(octokit, d.owner, d.repo);
  if (loaded.kind === "invalid") {
    log.info({ problems: loaded.problems }, "invalid repository config: no baseline");
    return "invalid-config";
  }
  const config = loaded.kind === "ok" ? loaded.config : undefined;
  if (d.trigger === "push" || config?.baseline.on !== "schedule") await syncBaselineSchedule(rt, d, config);
  if (!config) return "not-onboarded";
  if (config.baseline.on !== d.trigger) return "off";

  const headSha = d.headSha ?? (await defaultBranchHead(octokit, d));
  if (!headSha) {
    log.info({ branch: d.defaultBranch }, "the default branch has no commit: no baseline");
    return "no-branch";
  }
  if (d.trigger === "schedule") {
    const done = await rt.stores.baselines.getReport(d.owner, d.repo);
    const current = await rt.stores.baselines.get(key);
    if (done?.headSha === headSha || (current?.headSha === headSha && !current.concluded)) {
      log.info({ sha: headSha }, "the default branch's head already has a baseline: nothing launched");
      return "already-has-baseline";
    }
  }
  const event = { ...d, headSha };
  return rt.stores.pulls.withPullLock(key, () =>
    startUnderLock(rt, job, octokit, { event, config, key }, log),
  );
}

/**
 * Steps 4 and 5 under the baseline's lock: a stale push or a duplicate start ends here; the baseline of an
 * older commit stops; then the token and presets are read, the start decided ({@link decideBaseline}), the
 * check run written, the state saved and the launch enqueued.
 */
async function startUnderLock(
  rt: Runtime,
  job: Job<BaselineJobData>,
  octokit: InstallationOctokit,
  b: { event: BaselineJobData & { headSha: string }; config: RepoConfig; key: string },
  log: Runtime["log"],
): Promise<BaselineOutcome> {
  const d = job.data;
  const { event, config, key } = b;
  const headSha = event.headSha;
  if (d.trigger === "push") {
    const branchHead = await defaultBranchHead(octokit, d);
    if (isStalePush(event, branchHead)) {
      log.info({ sha: headSha, branchHead }, "push no longer the default branch's head: ignored");
      return "stale-push";
    }
  }
  const prev = await rt.stores.baselines.get(key);
  if (followsCommit(prev, headSha)) {
    log.info({ sha: headSha }, "commit already followed: duplicate start ignored");
    return "duplicate";
  }
  if (prev) await stopBaseline(rt, prev, headSha, d.accountLogin, log);

  const facts: BaselineFacts = {
    event,
    config,
    diffPresets: knownDiffPresets(config, rt.settings.defaultPreset),
    token: await readAccountToken(rt, d.accountLogin, log, { outages: false }),
    nonce: d.deliveryId ?? String(job.id),
  };
  if (facts.token.kind === "found") {
    const tenant = await rt.scanner.forAccount(d.accountLogin);
    if (tenant) facts.presets = await presetsOf(tenant);
  }
  const plan = decideBaseline(facts);
  const checkRunId = await adoptOrCreate(rt, octokit, event, job.attemptsStarted, plan.check);
  const state: BaselineState = {
    installationId: d.installationId,
    owner: d.owner,
    repo: d.repo,
    branch: d.defaultBranch,
    headSha,
    checkRunId,
    ...(plan.launch ? { launchKey: plan.launch.data.launchKey, launchJobId: plan.launch.jobId } : {}),
    ...(plan.launch ? {} : { concluded: true }),
  };
  // The state names the launch before it is added: the launch job runs only for the key the state names.
  await rt.stores.baselines.set(key, state);
  if (plan.launch) await enqueueLaunch(rt, plan.launch, checkRunId);
  log.info(
    { sha: headSha, checkRunId, outcome: plan.outcome, preset: config.baseline.preset },
    "baseline started",
  );
  return plan.outcome;
}

/**
 * The head commit of the repository's default branch (GitHub REST "List matching references",
 * `heads/<branch>`, the exact ref kept), or `undefined` for a repository without it (409: empty).
 */
export async function defaultBranchHead(
  octokit: InstallationOctokit,
  d: RepoContext,
): Promise<string | undefined> {
  const refs = await unlessStatus(409, listMatchingRefs(octokit, d, `heads/${d.defaultBranch}`));
  return refs?.find((r) => r.ref === `refs/heads/${d.defaultBranch}`)?.sha;
}

/**
 * Stops the baseline of an older commit: its launch still waiting is removed (nothing spent; one of unknown
 * outcome is left to its job, which withdraws the scan it may have created) and its launch key forgotten, its scan
 * cancelled only while the service says it is not terminal (a finished scan is never cancelled), and its
 * check run concluded `cancelled` unless already completed (best effort: the newer commit never waits on it).
 */
export async function stopBaseline(
  rt: Runtime,
  prev: BaselineState,
  bySha: string,
  accountLogin: string,
  log: Runtime["log"],
): Promise<void> {
  const cancelled = await stopGroupScan(rt, prev, accountLogin, log, { forgetLaunch: true });
  if (!prev.checkRunId || prev.concluded || prev.reported) return;
  try {
    const octokit = await rt.octokit(prev.installationId);
    if ((await getCheckRun(octokit, prev, prev.checkRunId)).status === "completed") return;
    await applyWrites(rt, prev.installationId, [
      {
        ...updateCheck(prev, prev.checkRunId, {
          conclusion: "cancelled",
          output: renderBaselineSuperseded({ bySha, branch: prev.branch }),
        }),
        bestEffort: true,
      },
    ]);
    log.info({ superseded: prev.headSha, scanId: cancelled }, "older baseline superseded");
  } catch (error) {
    log.warn({ err: error, checkRun: prev.checkRunId }, "could not conclude the superseded baseline");
  }
}

/**
 * The baseline's check run on the commit, created with its first state: on a retry of a job whose worker
 * died between creating it and saving the state (`attemptsStarted > 1`), diffward's unfinished run on the
 * commit without a scan id is adopted and updated instead of a second one created.
 */
async function adoptOrCreate(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: RepoContext & { headSha: string; resumeCheckRunId?: number },
  attemptsStarted: number,
  check: Parameters<typeof createCheck>[2],
): Promise<number> {
  if (d.resumeCheckRunId !== undefined) {
    // reconciliation hands over diffward's unfinished check run of this commit that has no scan
    await applyWrites(rt, d.installationId, [updateCheck(d, d.resumeCheckRunId, check)]);
    return d.resumeCheckRunId;
  }
  if (attemptsStarted > 1) {
    const found = (await listCheckRunsForRef(octokit, d, d.headSha)).find(
      (c) => c.status !== "completed" && !c.externalId && c.headSha === d.headSha,
    );
    if (found) {
      await applyWrites(rt, d.installationId, [updateCheck(d, found.id, check)]);
      return found.id;
    }
  }
  const created = createdCheckRunId(
    await applyWrites(rt, d.installationId, [createCheck(d, d.headSha, check)]),
  );
  if (created === undefined) throw new Error("GitHub returned no check run id");
  return created;
}

/**
 * Keeps the repository's BullMQ job scheduler (id {@link baselineSchedulerId}, queue `diffward-events`) in
 * step with its config: with `baseline.on: schedule`, one scheduler whose cron pattern is
 * `cronPatternOf(baseline.schedule)` in UTC, adding a `baseline-schedule` job each period (BullMQ "Job
 * Schedulers": the scheduler and its next job live in Redis, so they survive restarts; an upsert replaces the
 * pattern); otherwise none (removed). Left untouched when already current, or when the config is `"keep"`
 * (it does not parse). A pattern BullMQ cannot run ({@link scheduleProblem}; a parsed config has none) sets
 * none and is logged, never thrown, so the baseline and reconcile jobs go on.
 * @returns whether the repository has a scheduler now.
 */
export async function syncBaselineSchedule(
  rt: Runtime,
  repo: RepoContext,
  config: RepoConfig | undefined | "keep",
): Promise<boolean> {
  const id = baselineSchedulerId(repo.owner, repo.repo);
  const queue = rt.queues.events;
  if (config === "keep") return (await queue.getJobScheduler(id)) !== undefined;
  if (config?.baseline.on !== "schedule") {
    await queue.removeJobScheduler(id);
    return false;
  }
  const pattern = cronPatternOf(config.baseline.schedule, config.repositoryId);
  // as the scheduler keeps it: parsed by the job's schema (its fields in the schema's order)
  const data = parseJobData("baselineSchedule", { ...repoContextOf(repo), trigger: "schedule" });
  const existing = await queue.getJobScheduler(id);
  if (existing?.pattern === pattern && JSON.stringify(existing.template?.data) === JSON.stringify(data))
    return true;
  const repository = `${repo.owner}/${repo.repo}`;
  // BullMQ throws on a pattern its parser refuses and silently creates nothing for one that never comes due
  const problem = scheduleProblem(pattern, rt.now());
  const set =
    problem === undefined &&
    (await scheduleJob(rt, "baselineSchedule", id, { pattern, tz: "UTC" }, data)) !== undefined;
  if (!set) {
    await queue.removeJobScheduler(id);
    rt.log.warn({ repository, pattern, problem }, "baseline schedule cannot run: none set");
    return false;
  }
  rt.log.info({ repository, pattern }, "baseline schedule set");
  return true;
}
