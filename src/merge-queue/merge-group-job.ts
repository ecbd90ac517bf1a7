import type { Job } from "bullmq";
import {
  withEffectiveDisclosure,
  type PolicySources,
  type RaisedValue,
  type RepoConfig,
} from "../config/repo-config.js";
import {
  decideReuse,
  parseMergeGroupRef,
  type MergeGroupRef,
  type ReuseDecision,
} from "../domain/merge-queue.js";
import { decideGate } from "../policy/gates.js";
import type { Gate } from "../domain/gate.js";
import { renderGateSkip } from "../render/gate-refusals.js";
import { getCheckRun, listCheckRunsForRef, type CheckRunUpdate } from "../github/check-runs.js";
import { getPull, listCompareFiles } from "../github/pulls.js";
import { createCheck, updateCheck } from "../github/writes.js";
import { applyWrites, createdCheckRunId } from "../runtime/apply-writes.js";
import { unlessStatus, type InstallationOctokit } from "../github/octokit-types.js";
import { renderLaunchError } from "../render/check-run.js";
import {
  renderGroupCancelled,
  renderGroupQueued,
  renderGroupReused,
  renderGroupScanQueued,
  renderGroupSkipped,
} from "./render-merge-group.js";
import { enqueueLaunch, cancelFollowedScan, stopLaunch } from "../scan/index.js";
import { readAccountToken } from "../job-kit/service-outage.js";
import { CONFIG_PATH, loadRepoConfig, type LoadedConfig } from "../runtime/config-loader.js";
import { configLaunchKey, groupKey, jobId, pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import type { GroupState } from "../stores/pull-state.js";
import type { LaunchJobData, MergeGroupJobData } from "../job-catalogue/index.js";
import { repoContextOf } from "../job-kit/types.js";

/** What the merge-group job decided; returned as the job's result (visible in BullMQ and in tests). */
export type MergeGroupOutcome =
  | "not-onboarded"
  | "destroyed"
  | "duplicate-delivery"
  | "invalid-config"
  | "skipped"
  | "reused"
  | "no-token"
  | "scan-enqueued";

/** What the merge-group job read before deciding. */
interface GroupRead {
  config: LoadedConfig;
  /** the pull request named by `head_ref` as GitHub returns it now, its report and check runs (reuse only) */
  reuse?: {
    decision: ReuseDecision;
    /** the pull request's author ("" when GitHub does not know it), for `authors.skip` when it is scanned */
    authorLogin: string;
  };
}

/** The one write the job applies to the group's check run, and the state to keep. */
type GroupPlan =
  | { kind: "conclude"; outcome: MergeGroupOutcome; update: CheckRunUpdate; log: string }
  | { kind: "scan"; why: string };

/**
 * Acts on `merge_group` `checks_requested`: creates the `diffward` check run on
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
  const { d, key, log } = groupJob(rt, job);
  const octokit = await rt.octokit(d.installationId);
  const config = await loadRepoConfig(octokit, d.owner, d.repo);
  if (config.kind === "absent") {
    log.info("repository has no .github/diffward.yml: not onboarded, nothing done");
    return "not-onboarded";
  }
  const ref = parseMergeGroupRef(d.headRef);
  return rt.stores.pulls.withPullLock(key, async () => {
    const prev = await rt.stores.pulls.getGroup(key);
    if (prev?.destroyed) {
      log.info("merge group already destroyed: nothing done");
      return "destroyed";
    }
    // a scan id without a launch key: the state was rebuilt by reconciliation (src/recovery/reconcile/)
    if (prev?.checkRunId && (prev.concluded || prev.launchKey || prev.scanId)) {
      log.info("merge group already handled: duplicate delivery ignored");
      return "duplicate-delivery";
    }
    const checkRunId = prev?.checkRunId ?? (await adoptOrCreate(rt, octokit, d, job.attemptsStarted));
    const state: GroupState = {
      installationId: d.installationId,
      owner: d.owner,
      repo: d.repo,
      headSha: d.headSha,
      ...(ref ? { pullNumber: ref.pullNumber } : {}),
      checkRunId,
    };
    await rt.stores.pulls.setGroup(key, state);

    // read
    const read: GroupRead = { config };
    if (config.kind === "ok" && config.config.mergeQueue === "reuse" && ref) {
      read.reuse = await readReuse(rt, octokit, d, ref.pullNumber);
    }
    // decide
    const plan = decideGroup(d, read, ref?.pullNumber);
    // write
    if (plan.kind === "conclude") {
      await applyWrites(rt, d.installationId, [updateCheck(d, checkRunId, plan.update)]);
      await rt.stores.pulls.setGroup(key, { ...state, concluded: true });
      log.info({ outcome: plan.outcome }, plan.log);
      return plan.outcome;
    }
    if (config.kind !== "ok") throw new Error("unreachable: a scan plan needs a valid config");
    const s = {
      state,
      config: config.config,
      policy: { sources: config.sources, raised: config.raised },
      why: plan.why,
      ref,
      authorLogin: read.reuse?.authorLogin,
    };
    return startGroupScan(rt, octokit, d, s, log);
  });
}

/**
 * Starts the group's diff scan (`mergeQueue: scan`): a token for the account (none → `neutral`, refused →
 * `failure`, like a pull request), the spend gates on the group's changes (`authors.skip` for the named
 * pull request's author, `paths.ignore` on the files between `base_sha` and `head_sha`; the fork and
 * guidance approvals count as given, since only users allowed to merge can queue), then one `launch` job
 * with `commitHash` = `head_sha` and `baseCommit` = `base_sha`, keyed like every launch (the same repository,
 * head, base and preset launch once). The launch job applies the preflight and `creditCap.monthly`, and
 * dedupes, waits out `Retry-After` and recovers after a crash as for pull requests.
 */
async function startGroupScan(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: MergeGroupJobData,
  s: {
    state: GroupState;
    config: RepoConfig;
    /** where each policy value came from, and what the organization floor raised (shown by the report) */
    policy: GroupPolicy;
    why: string;
    ref: MergeGroupRef | undefined;
    /** the named pull request's author when `reuse` read the pull request already */
    authorLogin: string | undefined;
  },
  log: Runtime["log"],
): Promise<MergeGroupOutcome> {
  const { state, config, ref } = s;
  const key = groupKey(d.owner, d.repo, d.headSha);
  const checkRunId = state.checkRunId!;
  const conclude = async (outcome: MergeGroupOutcome, update: CheckRunUpdate): Promise<MergeGroupOutcome> => {
    await applyWrites(rt, d.installationId, [updateCheck(d, checkRunId, update)]);
    await rt.stores.pulls.setGroup(key, { ...state, concluded: true });
    return outcome;
  };
  const token = await readAccountToken(rt, d.accountLogin, log, { outages: true });
  if (token.kind === "refused") {
    return conclude("no-token", {
      conclusion: "failure",
      output: renderLaunchError("unauthorized", { message: token.message }),
    });
  }
  if (token.kind === "absent")
    return conclude("no-token", { conclusion: "neutral", output: renderLaunchError("no_token") });

  const [files, author] = await Promise.all([
    listCompareFiles(octokit, d, d.baseSha, d.headSha),
    s.authorLogin ?? (ref ? pullAuthor(octokit, d, ref.pullNumber) : ""),
  ]);
  const gate = decideGate({
    config,
    files,
    authorLogin: author,
    fromFork: false,
    authorPermitted: true,
    guidanceFile: rt.settings.guidanceFile,
    approved: true,
  });
  if (gate.kind === "skip") {
    log.info({ reason: gate.reason }, "merge group not scanned: nothing spent");
    return conclude("skipped", {
      conclusion: gate.reason === "authors-skip" ? "skipped" : "neutral",
      output: renderGateSkip(gate),
    });
  }

  const presetRef = config.preset ?? rt.settings.defaultPreset;
  const lk = configLaunchKey(config, { headSha: d.headSha, mergeBase: d.baseSha, presetRef });
  const launchJobId = jobId("launch", lk);
  const data = groupLaunchData(d, {
    config,
    gate,
    ref,
    checkRunId,
    presetRef,
    launchKey: lk,
    policy: s.policy,
  });
  await applyWrites(rt, d.installationId, [
    updateCheck(d, checkRunId, {
      status: "queued",
      output: renderGroupScanQueued({ baseSha: d.baseSha, why: s.why }),
    }),
  ]);
  // The launch job waits for the group's lock (held here) and runs only for the key the state names. A crash
  // between these two writes re-runs this job, which adds the same job id again (BullMQ keeps one).
  await enqueueLaunch(rt, { data, jobId: launchJobId }, checkRunId);
  await rt.stores.pulls.setGroup(key, { ...state, launchKey: lk, launchJobId });
  log.info({ baseSha: d.baseSha, presetRef, checkRunId }, "merge group scan enqueued");
  return "scan-enqueued";
}

/** The launch job's data for a merge group's scan: `commitHash` = the group's head, `baseCommit` = its base. Pure. */
function groupLaunchData(
  d: MergeGroupJobData,
  l: {
    config: RepoConfig;
    gate: Exclude<Gate, { kind: "skip" }>;
    ref: MergeGroupRef | undefined;
    checkRunId: number;
    presetRef: string;
    launchKey: string;
    policy: GroupPolicy;
  },
): LaunchJobData {
  const { config, gate, policy } = l;
  return {
    ...repoContextOf(d),
    pullNumber: l.ref?.pullNumber ?? 0,
    target: { kind: "merge-group", headRef: d.headRef, baseSha: d.baseSha },
    headSha: d.headSha,
    headRef: d.headRef.replace(/^refs\/heads\//, ""),
    mergeBase: d.baseSha,
    ...(d.headCommitMessage ? { commitMessage: d.headCommitMessage } : {}),
    repositoryId: config.repositoryId,
    presetRef: l.presetRef,
    ...(config.creditBudget !== undefined ? { creditBudget: config.creditBudget } : {}),
    ...(config.auditAreas?.length ? { auditAreaKeys: config.auditAreas } : {}),
    checkRunId: l.checkRunId,
    launchKey: l.launchKey,
    explicit: false,
    config: withEffectiveDisclosure(config, { private: d.repoPrivate }),
    ...(gate.guidanceChange ? { guidanceChange: gate.guidanceChange } : {}),
    ...(policy.raised?.length ? { floorRaised: policy.raised } : {}),
    ...(policy.sources ? { policySources: policy.sources } : {}),
  };
}

/** The policy's sources as the configuration was loaded ({@link LoadedConfig}), carried to the report. */
interface GroupPolicy {
  sources?: PolicySources | undefined;
  raised?: RaisedValue[] | undefined;
}

/** The login of the pull request's author, or "" when GitHub does not know the pull request. */
async function pullAuthor(
  octokit: InstallationOctokit,
  d: MergeGroupJobData,
  pullNumber: number,
): Promise<string> {
  const pull = await unlessStatus(404, getPull(octokit, { owner: d.owner, repo: d.repo, pullNumber }));
  return pull?.authorLogin ?? "";
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
 * (404) is "no report". The pull request's author is kept for the spend gates should the group be scanned.
 */
async function readReuse(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: MergeGroupJobData,
  pullNumber: number,
): Promise<NonNullable<GroupRead["reuse"]>> {
  const pull = await unlessStatus(404, getPull(octokit, { owner: d.owner, repo: d.repo, pullNumber }));
  if (!pull) return { decision: { kind: "scan", why: "no-report" }, authorLogin: "" };
  const report = await rt.stores.reports.get(pullKey(d.owner, d.repo, pullNumber));
  const runs =
    report && report.headSha === pull.headSha ? await listCheckRunsForRef(octokit, d, pull.headSha) : [];
  const decision = decideReuse({
    pull: { number: pull.number, headSha: pull.headSha },
    ...(report
      ? { report: { scanId: report.scanId, headSha: report.headSha, checkRunId: report.checkRunId } }
      : {}),
    checkRuns: [...runs].sort((a, b) => b.id - a.id),
  });
  return { decision, authorLogin: pull.authorLogin };
}

/**
 * The group's check run: on a retry of a job whose worker died between creating it and saving the state
 * (`attemptsStarted > 1`), the unfinished `diffward` run without a scan on the head is adopted; otherwise a
 * new `queued` one is created.
 */
async function adoptOrCreate(
  rt: Runtime,
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
  const created = createdCheckRunId(
    await applyWrites(rt, d.installationId, [
      createCheck(d, d.headSha, {
        status: "queued",
        output: renderGroupQueued({ baseSha: d.baseSha, ...(ref ? { pullNumber: ref.pullNumber } : {}) }),
      }),
    ]),
  );
  if (created === undefined) throw new Error("GitHub returned no check run id");
  return created;
}

/**
 * What a merge group job works with: its data, the group's state key and its logger, bound to the delivery,
 * the group and the installation.
 */
function groupJob(
  rt: Runtime,
  job: Job<MergeGroupJobData>,
): { d: MergeGroupJobData; key: string; log: Runtime["log"] } {
  const d = job.data;
  const key = groupKey(d.owner, d.repo, d.headSha);
  const log = rt.log.child({ delivery: d.deliveryId, group: key, installation: d.installationId });
  return { d, key, log };
}

/** What the destroyed job did. */
export type GroupDestroyedOutcome = "cancelled" | "already-completed" | "idle" | "installation-removed";

/**
 * Acts on `merge_group` `destroyed` (merged, dequeued or invalidated; GitHub "Webhook events and payloads",
 * `merge_group.reason`): marks the group destroyed (a `checks_requested` delivered late then does nothing;
 * after an uninstall also `uninstalled`, writing nothing: the reinstall completes its check run),
 * removes a launch still waiting, cancels the group's scan unless it has ended ({@link cancelFollowedScan};
 * spec `POST …/scans/{scanId}/cancel`: a completed scan is never cancelled), and concludes the group's
 * check run `cancelled` unless GitHub shows it completed. When diffward has no state of the group (lost with
 * Redis), the check run and scan are read from GitHub ({@link unfinishedFromGitHub}), so the group's check
 * run never stays unfinished and its scan does not run on for a group that is gone. Holds the group's lock.
 */
export async function processMergeGroupDestroyed(
  rt: Runtime,
  job: Job<MergeGroupJobData>,
): Promise<GroupDestroyedOutcome> {
  const { d, key, log } = groupJob(rt, job);
  return rt.stores.pulls.withPullLock(key, async () => {
    const prev = await rt.stores.pulls.getGroup(key);
    const base: GroupState = prev ?? {
      installationId: d.installationId,
      owner: d.owner,
      repo: d.repo,
      headSha: d.headSha,
    };
    if (prev?.destroyed) return "idle";
    // The App was uninstalled after the event was delivered: GitHub refuses the removed installation's token,
    // so the check run cannot be written; marked so, the reinstall completes it (src/scan/reinstall.ts).
    if (await rt.stores.pulls.isInstallationRemoved(d.installationId)) {
      await rt.stores.pulls.setGroup(key, { ...base, destroyed: true, uninstalled: true });
      log.info({ reason: d.reason }, "merge group destroyed after the uninstall: left to the reinstall");
      return "installation-removed";
    }
    await rt.stores.pulls.setGroup(key, { ...base, destroyed: true });
    const octokit = await rt.octokit(d.installationId);
    const g = prev?.checkRunId ? prev : await unfinishedFromGitHub(octokit, d, base);
    if (!g?.checkRunId) {
      log.info({ reason: d.reason }, "merge group destroyed before diffward checked it");
      return "idle";
    }
    if (!prev?.checkRunId)
      log.warn({ checkRunId: g.checkRunId, scanId: g.scanId }, "merge group destroyed: its state was lost");
    const stopped = await stopGroupScan(rt, g, d.accountLogin, log);
    const run = await getCheckRun(octokit, d, g.checkRunId);
    if (run.status === "completed") {
      log.info(
        { reason: d.reason, conclusion: run.conclusion },
        "merge group destroyed; its check had completed",
      );
      return "already-completed";
    }
    await applyWrites(rt, d.installationId, [
      updateCheck(d, g.checkRunId, {
        conclusion: "cancelled",
        output: renderGroupCancelled({
          ...(d.reason ? { reason: d.reason } : {}),
          ...(stopped ? { scanId: stopped } : {}),
        }),
      }),
    ]);
    log.info({ reason: d.reason, scanId: stopped }, "merge group destroyed: check cancelled");
    return "cancelled";
  });
}

/**
 * The group as GitHub shows it when diffward has no state of it (lost with Redis, or a worker died between
 * creating the check run and saving the state): diffward's unfinished check run on the group's head (GitHub
 * "List check runs for a Git reference", `check_name=diffward`) and the scan id in its `external_id`.
 * @returns `undefined` when there is no such check run.
 */
async function unfinishedFromGitHub(
  octokit: InstallationOctokit,
  d: MergeGroupJobData,
  base: GroupState,
): Promise<GroupState | undefined> {
  const run = (await listCheckRunsForRef(octokit, d, d.headSha)).find(
    (c) => c.status !== "completed" && c.headSha === d.headSha,
  );
  if (!run) return undefined;
  return { ...base, checkRunId: run.id, ...(run.externalId ? { scanId: run.externalId } : {}) };
}

/**
 * Stops the group's work (or a superseded baseline's, `src/baseline/baseline-job.ts`: the same fields): stops its launch
 * ({@link stopLaunch}: removed while it waits, nothing spent, its launch key forgotten with `forgetLaunch`; one
 * whose attempt's outcome is unknown left to its job, which withdraws the scan it may have created), removes
 * its poll job, cancels its scan unless it has ended ({@link cancelFollowedScan}: once the scanner token is back when it is
 * missing for the moment), and takes the scan out of the installation's
 * scans in flight in every case. Errors of the service are logged, never thrown.
 * @returns the id of the scan cancelled, if one was.
 */
export async function stopGroupScan(
  rt: Runtime,
  g: Pick<GroupState, "installationId" | "launchJobId" | "launchKey" | "scanId" | "projectId">,
  accountLogin: string,
  log: Runtime["log"],
  { forgetLaunch = false }: { forgetLaunch?: boolean } = {},
): Promise<string | undefined> {
  if ((await stopLaunch(rt, g, { forget: forgetLaunch })) === "resolving")
    log.warn("launch of unknown outcome stopped: its job looks its scan up to withdraw it");
  if (!g.scanId) return undefined;
  const poll = await rt.queues.scans.getJob(jobId("poll", g.scanId));
  if (poll && (await poll.isDelayed().catch(() => false))) await poll.remove().catch(() => undefined);
  try {
    const done = await cancelFollowedScan(rt, g.scanId, accountLogin, g);
    return done === "cancelled" ? g.scanId : undefined;
  } catch (error) {
    log.warn({ err: error, scanId: g.scanId }, "could not cancel the merge group's scan");
    return undefined;
  } finally {
    // The group is gone: nothing reports its scan any more, whether it was cancelled, had ended or could not
    // be cancelled, so it is no longer in flight.
    await rt.stores.scans.finishScan(g.installationId, g.scanId);
  }
}
