import type { Job } from "bullmq";
import {
  parseRepoConfigYaml,
  permissionAtLeast,
  type RaisedValue,
  type RepoConfig,
} from "../config/repo-config.js";
import { listCheckRunsForRef } from "../github/check-runs.js";
import { getPermission } from "../github/issue-comments.js";
import { getFileText, getMergeBase, listPullFiles } from "../github/pulls.js";
import type { InstallationOctokit } from "../github/octokit-types.js";
import { CONFIG_PATH, loadRepoConfig } from "../runtime/config-loader.js";
import { pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import type { PullState } from "../stores/pull-state.js";
import { applyWrites, createdCheckRunId } from "../runtime/apply-writes.js";
import { updateCheck } from "../github/writes.js";
import { renderLaunchError } from "../render/check-run.js";
import {
  decideHead,
  decidePullRequest,
  isFromFork,
  nextFactNeeded,
  planRerunInProgress,
  planResumedStop,
  rerunToCollapseInto,
  type PullRequestFact,
  type PullRequestFacts,
  type HeadDecision,
  type PullRequestOutcome,
  type PullRequestPlan,
} from "./decide-pull-request.js";
import { enqueueLaunch } from "./enqueue-launch.js";
import { readAccountToken } from "../job-kit/service-outage.js";
import { checkRunCompleted, planStopWrites, stopCurrent } from "./supersede.js";
import { pullJobLog } from "../job-kit/target.js";
import { handOverToReinstall } from "./reinstall.js";
import type { PullRequestJobData } from "../job-catalogue/index.js";

export type { PullRequestOutcome } from "./decide-pull-request.js";

/**
 * Acts on a pull request event, holding the pull request's lock throughout (an event of an installation
 * removed since it was delivered ends at once, `installation-removed`: the reinstall decides its head):
 * 1. read the repository config (none: not onboarded) and the state of the head followed so far;
 * 2. decide the head ({@link decideHead}: stale, duplicate, or followed, stopping the previous head: its
 *    launch removed or its scan cancelled); a Re-run while an earlier Re-run's scan of the same head is
 *    queued or running launches nothing and says so on that check run ({@link rerunToCollapseInto});
 * 3. read, one at a time, only the facts the decision needs ({@link nextFactNeeded}: an adoptable check
 *    run, the scanner token, the changed files, a fork author's permission, the PR's own config, the merge
 *    base from GitHub's compare API);
 * 4. decide ({@link decidePullRequest}: config problems, draft, token, spend and safety gates, launch);
 * 5. write: the previous head's check run `cancelled`, this head's check run in one write (`queued`, or
 *    its conclusion), then the launch enqueued after `debounceSeconds` (a newer push inside the window
 *    removes the waiting launch: nothing is spent) and the state saved.
 */
export async function processPullRequest(
  rt: Runtime,
  job: Job<PullRequestJobData>,
): Promise<PullRequestOutcome> {
  const d = job.data;
  const { key, log } = pullJobLog(rt, d, { sha: d.headSha });
  // The App was uninstalled after the event was delivered: GitHub refuses the removed installation's token.
  // Nothing is read or written on GitHub; the reinstall decides the pull request's newest head, or, when it
  // has already walked the account's repositories, takes the event over.
  const removedAt = await rt.stores.pulls.removedAt(d.installationId);
  if (removedAt !== undefined) {
    await rt.stores.pulls.noteUndecided(key, d.installationId);
    const now = await rt.stores.pulls.installedAs(d.accountLogin);
    const handedTo =
      now && now.at >= removedAt && !(await rt.stores.pulls.isInstallationRemoved(now.installationId))
        ? now.installationId
        : undefined;
    if (handedTo !== undefined) await handOverToReinstall(rt, d, handedTo);
    log.info({ handedTo }, "installation removed since the event was delivered: left to the reinstall");
    return "installation-removed";
  }
  const octokit = await rt.octokit(d.installationId);

  const loaded = await loadRepoConfig(octokit, d.owner, d.repo);
  await rt.stores.orgRecords.recordConfig(
    d.installationId,
    `${d.owner}/${d.repo}`,
    loaded.kind === "invalid" ? (loaded.problems[0] ?? "invalid") : undefined,
    rt.now(),
  );
  if (loaded.kind === "absent") {
    log.info("repository has no .github/diffward.yml: not onboarded, nothing done");
    // a check run reconciliation resumed was created while the repository had the file: it ends here
    if (d.resume)
      await applyWrites(rt, d.installationId, [
        updateCheck(d, d.resume.checkRunId, {
          conclusion: "neutral",
          output: renderLaunchError("not_onboarded", {
            message: `${CONFIG_PATH} is no longer on the default branch.`,
          }),
        }),
      ]);
    return "not-onboarded";
  }
  await rt.stores.orgRecords.recordPolicy(
    d.installationId,
    `${d.owner}/${d.repo}`,
    loaded.kind === "ok" ? effectivePolicy(loaded.config, loaded.raised ?? []) : undefined,
    rt.now(),
  );
  if (loaded.kind === "ok" && loaded.raised?.length) await auditFloorRaised(rt, d, loaded.raised);
  const config: PullRequestFacts["config"] =
    loaded.kind === "ok"
      ? {
          kind: "ok",
          config: loaded.config,
          sources: loaded.sources,
          ...(loaded.raised?.length ? { raised: loaded.raised } : {}),
        }
      : { kind: "invalid", problems: loaded.problems };
  return rt.stores.pulls.withPullLock(key, () => decideUnderLock(rt, job, octokit, config, log));
}

/** What the organization's page shows of a repository's policy: its mode, `failOn`, the keys the floor raised. */
function effectivePolicy(config: RepoConfig, raised: readonly RaisedValue[]) {
  const f = typeof config.failOn === "string" ? { severity: config.failOn, only: "all" } : config.failOn;
  return {
    mode: config.mode,
    failOn: f.only === "new" ? `${f.severity} (only: new)` : f.severity,
    raised: raised.map((r) => r.key),
  };
}

/**
 * One audit entry per value the organization floor raised in the configuration this pull request event is
 * decided under (action `floor-raise`, source `org-floor`, by diffward's bot): the key, from, to and the file.
 */
async function auditFloorRaised(
  rt: Runtime,
  d: PullRequestJobData,
  raised: readonly RaisedValue[],
): Promise<void> {
  const actor = await rt.botLogin();
  for (const r of raised)
    await rt.stores.audit.append({
      installationId: d.installationId,
      repository: `${d.owner}/${d.repo}`,
      pullNumber: d.pullNumber,
      actor,
      action: "floor-raise",
      from: r.from.slice(0, 64),
      to: r.to.slice(0, 64),
      reason: `${r.key} raised to the organization floor of ${r.source}`,
      detail: r.key,
      source: "org-floor",
      outcome: "applied",
    });
}

/** Steps 1 to 4 under the pull request's lock: the head decided, the facts read, the plan decided; then written. */
async function decideUnderLock(
  rt: Runtime,
  job: Job<PullRequestJobData>,
  octokit: InstallationOctokit,
  config: PullRequestFacts["config"],
  log: Runtime["log"],
): Promise<PullRequestOutcome> {
  const d = job.data;
  const prev = await rt.stores.pulls.getPull(pullKey(d.owner, d.repo, d.pullNumber));
  const rerun = rerunToCollapseInto(d, prev);
  if (rerun && (await scanInFlight(rt, rerun))) {
    const answer = planRerunInProgress(d, rerun);
    await rt.stores.pulls.setPull(pullKey(d.owner, d.repo, d.pullNumber), answer.state);
    await applyWrites(rt, d.installationId, answer.writes);
    log.info(
      { checkRunId: rerun.checkRunId, scanId: rerun.scanId },
      "re-run already in progress: nothing launched",
    );
    return "rerun-in-progress";
  }
  const head = decideHead(d, prev);
  if (head.kind !== "follow") {
    // A check run reconciliation resumed that the state does not follow ends here.
    const stops = planResumedStop(d, prev);
    if (stops.length > 0 && !(await checkRunCompleted(rt, { ...d, checkRunId: d.resume!.checkRunId })))
      await applyWrites(rt, d.installationId, stops);
    if (head.kind === "stale-event")
      log.info({ current: prev?.headSha }, "older delivery than the head already followed: ignored");
    else log.info("head already followed: duplicate delivery ignored");
    return head.kind;
  }
  // Stopping the previous head releases its credits now; its check run is concluded with this head's writes.
  if (head.stop && prev) await stopCurrent(rt, prev, head.stop.reason, d.accountLogin);

  const facts: PullRequestFacts = {
    event: d,
    attemptsStarted: job.attemptsStarted,
    receivedAt: job.timestamp,
    config,
    head,
    settings: { guidanceFile: rt.settings.guidanceFile, defaultPreset: rt.settings.defaultPreset },
  };
  for (let fact = nextFactNeeded(facts); fact; fact = nextFactNeeded(facts))
    await readFact(rt, octokit, facts, fact, log, prev);
  const plan = decidePullRequest(facts);
  const checkRunId = await writePlan(rt, d, { prev, head, plan });
  logOutcome(log, plan.outcome, { ...plan.why, ...(checkRunId !== undefined ? { checkRunId } : {}) });
  return plan.outcome;
}

/**
 * Whether the scan of `run` is still queued or running: its launch pending or its scan not ended. Ended is
 * what diffward recorded (the poll read a terminal status, or diffward stopped following it), else the check
 * run completed on GitHub (every launch refusal, outage or report ends it). A failed read of the check run
 * counts as in flight: a press answered without a scan costs nothing, a second scan would.
 */
async function scanInFlight(rt: Runtime, run: PullState & { checkRunId: number }): Promise<boolean> {
  if (run.scanId) {
    const end = await rt.stores.scans.getScanEnd(run.scanId);
    if (end.status || end.stop) return false;
  }
  return !(await checkRunCompleted(rt, run));
}

/**
 * Step 5, the writes: the previous head's check run `cancelled` (unless GitHub shows it completed), this
 * head's check run, the check run's owner recorded, the launch enqueued after its delay, the state saved.
 * @returns this head's check run id (`undefined` for a skipped draft without one).
 */
async function writePlan(
  rt: Runtime,
  d: PullRequestJobData,
  decided: {
    prev: PullState | undefined;
    head: Extract<HeadDecision, { kind: "follow" }>;
    plan: PullRequestPlan;
  },
): Promise<number | undefined> {
  const { prev, head, plan } = decided;
  // read with the event's installation: after a reinstall the state still names the removed one
  const stopsRun = Boolean(
    head.stop?.concludeCheckRun &&
    prev &&
    !(await checkRunCompleted(rt, { ...prev, installationId: d.installationId })),
  );
  const writes = [
    ...(stopsRun && head.stop && prev ? planStopWrites(prev, head.stop.reason) : []),
    ...plan.writes,
  ];
  const results = await applyWrites(rt, d.installationId, writes);
  const checkRunId = plan.checkRunId ?? createdCheckRunId(results);
  // diffward records the pull request of its check run: GitHub leaves `check_run.pull_requests` empty for
  // heads in forks, so "Scan anyway" and re-runs find it here.
  if (checkRunId !== undefined)
    await rt.stores.pulls.recordCheckRunOwner(d.owner, d.repo, checkRunId, {
      pullNumber: d.pullNumber,
      headSha: d.headSha,
    });
  if (plan.launch && checkRunId !== undefined) await enqueueLaunch(rt, plan.launch, checkRunId);
  await rt.stores.pulls.setPull(pullKey(d.owner, d.repo, d.pullNumber), {
    ...plan.state,
    ...(plan.keepsCheckRun && checkRunId !== undefined ? { checkRunId } : {}),
  });
  return checkRunId;
}

/** Reads one fact the decision needs into `facts`. */
async function readFact(
  rt: Runtime,
  octokit: InstallationOctokit,
  facts: PullRequestFacts,
  fact: PullRequestFact,
  log: Runtime["log"],
  prev: PullState | undefined,
): Promise<void> {
  const d = facts.event;
  switch (fact) {
    case "adoption": {
      // A re-run of this job after its worker died between creating the check run and saving the state
      // adopts that check run instead of leaving it `queued` forever beside a new one. The check run of the
      // state saved before this job is never one this job created: it is the one this job stops (a rescan of
      // the same commit whose first attempt met a busy lock), never adopted.
      const found = (await listCheckRunsForRef(octokit, d, d.headSha)).find(
        (c) =>
          c.status !== "completed" && !c.externalId && c.headSha === d.headSha && c.id !== prev?.checkRunId,
      );
      facts.adoption = { checkRunId: found?.id };
      return;
    }
    case "token":
      // An unavailable service (its breaker open, or this request's 5xx, timeout, no answer) does not stop the
      // pull request: its check run is created and says so, and the launch waits on the tenant's breaker.
      facts.token = await readAccountToken(rt, d.accountLogin, log, { outages: true });
      return;
    case "files":
      facts.files = await listPullFiles(octokit, d);
      return;
    case "permission":
      // Fails closed: an unknown author (a deleted account, `user: null`) is never permitted.
      facts.authorPermitted =
        !isFromFork(d) ||
        (facts.config.kind === "ok" &&
          d.authorLogin !== "" &&
          permissionAtLeast(
            await getPermission(octokit, d, d.authorLogin),
            facts.config.config.commands.minPermission,
          ));
      return;
    case "config-in-pull":
      facts.configProblemsInPull = await validateConfigInPull(octokit, d, facts.files ?? []).catch(() => []);
      return;
    case "merge-base": {
      const { mergeBase, headCommitMessage } = await getMergeBase(octokit, d, d.baseRef, d.headSha);
      facts.mergeBase = { mergeBase, headCommitMessage };
      return;
    }
  }
}

function logOutcome(log: Runtime["log"], outcome: PullRequestOutcome, fields: Record<string, unknown>): void {
  switch (outcome) {
    case "invalid-config":
      return log.warn(fields, "invalid repository config");
    case "draft-skipped":
      return log.info("draft pull request and drafts: skip: nothing done");
    case "skipped":
      return log.info(fields, "not scanned: nothing spent");
    case "awaiting-approval":
      return log.info(fields, "scan waits for approval");
    case "launch-enqueued":
      return log.info(fields, "launch enqueued");
    default:
      return log.info(fields, `pull request: ${outcome}`);
  }
}

/** When the pull request changes `.github/diffward.yml`, the problems of its version (empty when valid). */
async function validateConfigInPull(
  octokit: InstallationOctokit,
  d: PullRequestJobData,
  files: readonly { filename: string; status: string }[],
): Promise<string[]> {
  const edited = files.find((f) => f.filename === CONFIG_PATH && f.status !== "removed");
  if (!edited) return [];
  const text = await getFileText(octokit, d, CONFIG_PATH, d.headSha);
  if (text === undefined) return [];
  const parsed = parseRepoConfigYaml(text);
  return parsed.ok ? [] : parsed.problems;
}
