import type { Job } from "bullmq";
import type { RepoConfig } from "../../config/repo-config.js";
import { decideReuse, parseMergeGroupRef, type ReuseDecision } from "../../domain/merge-group.js";
import {
  createCheckRun,
  getCheckRun,
  listCheckRunsForRef,
  updateCheckRun,
  type CheckRunUpdate,
} from "../../github/checks.js";
import { getPull } from "../../github/pulls.js";
import type { InstallationOctokit } from "../../github/types.js";
import { renderLaunchError } from "../../render/check-run.js";
import {
  renderGroupCancelled,
  renderGroupQueued,
  renderGroupReused,
  renderGroupSkipped,
} from "../../render/merge-group.js";
import { isTerminalScanStatus } from "../../scanner/catalog.js";
import { CONFIG_PATH, loadRepoConfig, type LoadedConfig } from "../config-loader.js";
import { groupKey, jobId, pullKey } from "../names.js";
import type { Runtime } from "../runtime.js";
import type { GroupState } from "../state.js";
import type { ReportState } from "./report.js";
import type { RepoContext } from "./types.js";

/** A `merge_group` event to act on (jobs `merge-group` and `merge-group-destroyed`, queue `diffward-events`). */
export interface MergeGroupJobData extends RepoContext {
  deliveryId: string;
  /** `merge_group.head_sha`: the commit GitHub wants checks on */
  headSha: string;
  /** `merge_group.head_ref`, e.g. `refs/heads/gh-readonly-queue/main/pr-104-<sha>` */
  headRef: string;
  /** `merge_group.base_sha`: the group's parent commit, the `baseCommit` of its diff scan */
  baseSha: string;
  /** `merge_group.base_ref`, e.g. `refs/heads/main` */
  baseRef: string;
  /** `merge_group.head_commit.message` */
  headCommitMessage?: string;
  /** `destroyed` only: `merged`, `dequeued` or `invalidated` */
  reason?: string;
}

/** What the merge-group job decided; returned as the job's result (visible in BullMQ and in tests). */
export type MergeGroupOutcome =
  | "not-onboarded"
  | "destroyed"
  | "duplicate-delivery"
  | "invalid-config"
  | "skipped"
  | "reused"
  | "scan-enqueued"
  | "scan-unavailable";

/** What the merge-group job read before deciding. */
interface GroupRead {
  config: LoadedConfig;
  /** the pull request named by `head_ref` as GitHub returns it now, its report and check runs (reuse only) */
  reuse?: { decision: ReuseDecision };
}

/** The one write the job applies to the group's check run, and the state to keep. */
type GroupPlan =
  | { kind: "conclude"; outcome: MergeGroupOutcome; update: CheckRunUpdate; log: string }
  | { kind: "scan"; why: string };

/**
 * Acts on `merge_group` `checks_requested` (issue 13): creates the `diffward` check run on
 * `merge_group.head_sha` at once, then by `.github/diffward.yml` `mergeQueue`:
 * - `skip`: concludes `neutral` ("merge-queue checks are off");
 * - `reuse` (default): reads the pull request named in `head_ref` from GitHub (never a cached head) and,
 *   when diffward's completed report on that head stands ({@link decideReuse}), concludes with its
 *   conclusion and no launch; otherwise scans;
 * - `scan`: one diff scan of the group (`commitHash` = `head_sha`, `baseCommit` = `base_sha`).
 * Holds the group's lock; a redelivery or a retried job finds the check run in the group's state and does
 * not create or launch again. A group already destroyed is left alone.
 */
export async function processMergeGroup(
  rt: Runtime,
  job: Job<MergeGroupJobData>,
): Promise<MergeGroupOutcome> {
  const d = job.data;
  const key = groupKey(d.owner, d.repo, d.headSha);
  const log = rt.log.child({ delivery: d.deliveryId, group: key, installation: d.installationId });
  const octokit = await rt.octokit(d.installationId);
  const config = await loadRepoConfig(octokit, d.owner, d.repo);
  if (config.kind === "absent") {
    log.info("repository has no .github/diffward.yml: not onboarded, nothing done");
    return "not-onboarded";
  }
  const ref = parseMergeGroupRef(d.headRef);
  return rt.state.withPullLock(key, async () => {
    const prev = await rt.state.getGroup(key);
    if (prev?.destroyed) {
      log.info("merge group already destroyed: nothing done");
      return "destroyed";
    }
    if (prev?.checkRunId && (prev.concluded || prev.launchKey)) {
      log.info("merge group already handled: duplicate delivery ignored");
      return "duplicate-delivery";
    }
    const checkRunId = prev?.checkRunId ?? (await adoptOrCreate(octokit, d, job.attemptsStarted));
    const state: GroupState = {
      installationId: d.installationId,
      owner: d.owner,
      repo: d.repo,
      headSha: d.headSha,
      ...(ref ? { pullNumber: ref.pullNumber } : {}),
      checkRunId,
    };
    await rt.state.setGroup(key, state);

    // read
    const read: GroupRead = { config };
    if (config.kind === "ok" && config.config.mergeQueue === "reuse" && ref) {
      read.reuse = { decision: await readReuse(rt, octokit, d, ref.pullNumber) };
    }
    // decide
    const plan = decideGroup(d, read, ref?.pullNumber);
    // write
    if (plan.kind === "conclude") {
      await updateCheckRun(octokit, d, checkRunId, plan.update);
      await rt.state.setGroup(key, { ...state, concluded: true });
      log.info({ outcome: plan.outcome }, plan.log);
      return plan.outcome;
    }
    log.info({ why: plan.why }, "merge group needs a scan");
    await updateCheckRun(octokit, d, checkRunId, {
      conclusion: "action_required",
      output: {
        title: "Merge group scan not available yet",
        summary: `diffward would scan this merge group (${plan.why}), but merge-group scans are not enabled in this version.`,
      },
    });
    await rt.state.setGroup(key, { ...state, concluded: true });
    return "scan-unavailable";
  });
}

/**
 * Decides what the group's check run becomes (pure): an invalid config fails it, `skip` concludes
 * `neutral`, a standing pull request report is reused, anything else is scanned.
 */
export function decideGroup(
  d: MergeGroupJobData,
  read: GroupRead,
  pullNumber: number | undefined,
): GroupPlan {
  if (read.config.kind === "invalid") {
    return {
      kind: "conclude",
      outcome: "invalid-config",
      update: {
        conclusion: "failure",
        output: renderLaunchError("config_invalid", { path: CONFIG_PATH, problems: read.config.problems }),
      },
      log: "invalid repository config",
    };
  }
  const config = read.config.kind === "ok" ? read.config.config : undefined;
  const mode: RepoConfig["mergeQueue"] = config?.mergeQueue ?? "reuse";
  if (mode === "skip") {
    return {
      kind: "conclude",
      outcome: "skipped",
      update: { conclusion: "neutral", output: renderGroupSkipped(pullNumber) },
      log: "mergeQueue: skip: concluded neutral",
    };
  }
  const decision = read.reuse?.decision;
  if (mode === "reuse" && decision?.kind === "reuse") {
    return {
      kind: "conclude",
      outcome: "reused",
      update: {
        conclusion: decision.conclusion,
        output: renderGroupReused({
          pullNumber: decision.pullNumber,
          headSha: decision.headSha,
          scanId: decision.scanId,
          conclusion: decision.conclusion,
          ...(d.repoHtmlUrl ? { checkRunUrl: `${d.repoHtmlUrl}/runs/${decision.checkRunId}` } : {}),
        }),
        ...(d.repoHtmlUrl ? { detailsUrl: `${d.repoHtmlUrl}/pull/${decision.pullNumber}` } : {}),
      },
      log: "pull request report reused: no launch",
    };
  }
  const why =
    mode === "scan"
      ? "`mergeQueue: scan`"
      : pullNumber === undefined
        ? "the merge group's ref names no pull request"
        : `no reusable report of pull request #${pullNumber} (${decision?.kind === "scan" ? decision.why : "unknown"})`;
  return { kind: "scan", why };
}

/**
 * Reads what {@link decideReuse} needs: the pull request from GitHub now (its current head), diffward's
 * report record of it, and diffward's latest check run on that head. A pull request GitHub does not know
 * (404) is "no report".
 */
async function readReuse(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: MergeGroupJobData,
  pullNumber: number,
): Promise<ReuseDecision> {
  let pull;
  try {
    pull = await getPull(octokit, { owner: d.owner, repo: d.repo, pullNumber });
  } catch (error) {
    if ((error as { status?: number }).status === 404) return { kind: "scan", why: "no-report" };
    throw error;
  }
  const report = await rt.state.getJson<ReportState>("report", pullKey(d.owner, d.repo, pullNumber));
  const runs =
    report && report.headSha === pull.headSha ? await listCheckRunsForRef(octokit, d, pull.headSha) : [];
  return decideReuse({
    pull: { number: pull.number, headSha: pull.headSha },
    ...(report
      ? { report: { scanId: report.scanId, headSha: report.headSha, checkRunId: report.checkRunId } }
      : {}),
    checkRuns: [...runs].sort((a, b) => b.id - a.id),
  });
}

/**
 * The group's check run: on a retry of a job whose worker died between creating it and saving the state
 * (`attemptsStarted > 1`), the unfinished `diffward` run without a scan on the head is adopted; otherwise a
 * new `queued` one is created.
 */
async function adoptOrCreate(
  octokit: InstallationOctokit,
  d: MergeGroupJobData,
  attemptsStarted: number,
): Promise<number> {
  if (attemptsStarted > 1) {
    const found = (await listCheckRunsForRef(octokit, d, d.headSha)).find(
      (c) => c.status !== "completed" && !c.externalId && c.headSha === d.headSha,
    );
    if (found) return found.id;
  }
  const ref = parseMergeGroupRef(d.headRef);
  return createCheckRun(octokit, d, d.headSha, {
    status: "queued",
    output: renderGroupQueued({ baseSha: d.baseSha, ...(ref ? { pullNumber: ref.pullNumber } : {}) }),
  });
}

/** What the destroyed job did. */
export type GroupDestroyedOutcome = "cancelled" | "already-completed" | "idle";

/**
 * Acts on `merge_group` `destroyed` (merged, dequeued or invalidated; GitHub "Webhook events and payloads",
 * `merge_group.reason`): marks the group destroyed (a `checks_requested` delivered late then does nothing),
 * removes a launch still waiting, cancels the group's scan only while the service says it is not terminal
 * (spec `POST …/scans/{scanId}/cancel`; a completed scan is never cancelled), and concludes the group's
 * check run `cancelled` unless GitHub shows it completed. Holds the group's lock.
 */
export async function processMergeGroupDestroyed(
  rt: Runtime,
  job: Job<MergeGroupJobData>,
): Promise<GroupDestroyedOutcome> {
  const d = job.data;
  const key = groupKey(d.owner, d.repo, d.headSha);
  const log = rt.log.child({ delivery: d.deliveryId, group: key, installation: d.installationId });
  return rt.state.withPullLock(key, async () => {
    const prev = await rt.state.getGroup(key);
    const base: GroupState = prev ?? {
      installationId: d.installationId,
      owner: d.owner,
      repo: d.repo,
      headSha: d.headSha,
    };
    if (prev?.destroyed) return "idle";
    await rt.state.setGroup(key, { ...base, destroyed: true });
    if (!prev?.checkRunId) {
      log.info({ reason: d.reason }, "merge group destroyed before diffward checked it");
      return "idle";
    }
    const stopped = await stopGroupScan(rt, prev, d.accountLogin, log);
    const octokit = await rt.octokit(d.installationId);
    const run = await getCheckRun(octokit, d, prev.checkRunId);
    if (run.status === "completed") {
      log.info(
        { reason: d.reason, conclusion: run.conclusion },
        "merge group destroyed; its check had completed",
      );
      return "already-completed";
    }
    await updateCheckRun(octokit, d, prev.checkRunId, {
      conclusion: "cancelled",
      output: renderGroupCancelled({
        ...(d.reason ? { reason: d.reason } : {}),
        ...(stopped ? { scanId: stopped } : {}),
      }),
    });
    log.info({ reason: d.reason, scanId: stopped }, "merge group destroyed: check cancelled");
    return "cancelled";
  });
}

/**
 * Stops the group's work: removes its launch job while it waits (nothing spent), removes its poll job, and
 * cancels its scan when the service reports it not terminal. Errors are logged, never thrown.
 * @returns the id of the scan cancelled, if one was.
 */
async function stopGroupScan(
  rt: Runtime,
  g: GroupState,
  accountLogin: string,
  log: Runtime["log"],
): Promise<string | undefined> {
  if (g.launchJobId) {
    const launch = await rt.queues.launch.getJob(g.launchJobId);
    if (
      launch &&
      ((await launch.isDelayed().catch(() => false)) || (await launch.isWaiting().catch(() => false)))
    )
      await launch.remove().catch(() => undefined);
  }
  if (!g.scanId) return undefined;
  const poll = await rt.queues.scans.getJob(jobId("poll", g.scanId));
  if (poll && (await poll.isDelayed().catch(() => false))) await poll.remove().catch(() => undefined);
  try {
    const tenant = await rt.scanner.forAccount(accountLogin);
    if (!tenant) return undefined;
    const projectId = g.projectId ?? tenant.projectId;
    const { scan } = await tenant.client.getScan(projectId, g.scanId);
    if (isTerminalScanStatus(scan.status)) return undefined;
    await tenant.client.cancelScan(projectId, g.scanId);
    await rt.state.finishScan(g.installationId, g.scanId);
    return g.scanId;
  } catch (error) {
    log.warn({ err: (error as Error).message, scanId: g.scanId }, "could not cancel the merge group's scan");
    return undefined;
  }
}
