import {
  withEffectiveDisclosure,
  type PolicySources,
  type RaisedValue,
  type RepoConfig,
} from "../config/repo-config.js";
import type { CheckRunUpdate } from "../github/check-runs.js";
import { createCheck, updateCheck, type GitHubWrite } from "../github/writes.js";
import type { Gate } from "../domain/gate.js";
import { decideGate, headIsFork, type GateFile } from "../policy/gates.js";
import { renderLaunchError, renderQueued, renderRerunInProgress } from "../render/check-run.js";
import {
  SCAN_ANYWAY_ACTION,
  renderDraftSkip,
  renderGateApproval,
  renderGateSkip,
} from "../render/gate-refusals.js";
import { CONFIG_PATH } from "../runtime/config-loader.js";
import { configLaunchKey, jobId } from "../runtime/names.js";
import { pullStateAt, type PullState } from "../stores/pull-state.js";
import { planStopWrites, type StopReason } from "./supersede.js";
import type { LaunchJobData, PullRequestJobData } from "../job-catalogue/index.js";
import { repoContextOf } from "../job-kit/types.js";
import type { TokenFact } from "../job-kit/token-fact.js";

/** What the pull-request job decided; returned as the job's result (visible in BullMQ and in tests). */
export type PullRequestOutcome =
  | "installation-removed"
  | "not-onboarded"
  | "invalid-config"
  | "draft-skipped"
  | "stale-event"
  | "duplicate-delivery"
  | "rerun-in-progress"
  | "no-token"
  | "skipped"
  | "awaiting-approval"
  | "launch-enqueued";

/** What to do with an event's head, given what diffward already follows for the pull request. */
export type HeadDecision =
  | { kind: "stale-event" }
  | { kind: "duplicate-delivery" }
  | {
      kind: "follow";
      /** a retry of this same job after a failure past the check run's creation: that check run */
      resumeCheckRunId?: number;
      /** the head followed so far stops; its check run is concluded (when not completed yet) */
      stop?: { reason: StopReason; concludeCheckRun: boolean };
      /** the pull request's generation for this head ({@link PullState.generation}) */
      generation: number;
    };

/**
 * Decides, without I/O, whether an event's head is followed: an older delivery
 * (`updated_at` before the followed head's) of another head is stale; the same head and the same explicit
 * request already followed is a duplicate delivery; another head, or an explicit request for the same
 * head, stops the current one (its check run concluded `cancelled` when the head changed).
 */
export function decideHead(d: PullRequestJobData, prev: PullState | undefined): HeadDecision {
  if (!d.explicit && prev && prev.updatedAt && d.updatedAt < prev.updatedAt && prev.headSha !== d.headSha)
    return { kind: "stale-event" };
  // An event older than the close that ended the pull request (delivered or processed after it) is stale too.
  if (!d.explicit && prev?.closed && prev.updatedAt && d.updatedAt < prev.updatedAt)
    return { kind: "stale-event" };
  // An automatic event (push, reopen) for the head already followed is the same request, even when an
  // explicit request (a rescan that read the new head before its push event was processed) follows it.
  const sameRequest =
    prev !== undefined &&
    !prev.closed &&
    prev.headSha === d.headSha &&
    (d.explicit === undefined || (prev.explicitNonce ?? null) === d.explicit.nonce);
  if (sameRequest && prev.checkRunId && prev.launchKey) return { kind: "duplicate-delivery" };
  const reason: StopReason = { kind: "superseded", bySha: d.headSha };
  // An explicit request of the same head (a rescan while the scan runs) replaces the scan too: its check run
  // is concluded, or it would stay `in_progress` for ever (the job concludes only a run not yet completed).
  const stop =
    !sameRequest && prev && !prev.closed && prev.headSha !== d.headSha
      ? { reason, concludeCheckRun: true }
      : !sameRequest && prev && d.explicit
        ? { reason: { ...reason, sameHead: true }, concludeCheckRun: true }
        : undefined;
  const generation = sameRequest ? (prev.generation ?? 1) : (prev?.generation ?? 0) + 1;
  // Reconciliation's request carries the check run it resumes: the decision is made on that one.
  const resumeCheckRunId =
    d.resume?.checkRunId ?? (sameRequest && prev.checkRunId !== undefined ? prev.checkRunId : undefined);
  return {
    kind: "follow",
    generation,
    ...(resumeCheckRunId !== undefined ? { resumeCheckRunId } : {}),
    ...(stop ? { stop } : {}),
  };
}

/** GitHub's `action` of a **Re-run** button's event (`check_run` and `check_suite` `rerequested`). */
export const RERUN_ACTION = "rerequested";

/**
 * The re-run a **Re-run** event may collapse into, or `undefined`: the state follows the same head of the
 * open pull request, launched by another Re-run's request (a retry or redelivery of this very request is a
 * duplicate delivery instead, {@link decideHead}). The caller then asks whether that scan is still queued
 * or running: only then the event launches nothing ({@link planRerunInProgress}); a Re-run after that scan
 * ended launches anew. Pure.
 */
export function rerunToCollapseInto(
  d: PullRequestJobData,
  prev: PullState | undefined,
): (PullState & { checkRunId: number }) | undefined {
  if (d.action !== RERUN_ACTION || !d.explicit || !prev?.rerun || prev.closed) return undefined;
  if (prev.headSha !== d.headSha || prev.explicitNonce === d.explicit.nonce) return undefined;
  if (prev.checkRunId === undefined || prev.launchKey === undefined) return undefined;
  return { ...prev, checkRunId: prev.checkRunId };
}

/**
 * The answer to a Re-run collapsed into the one in progress: its check run says that no second scan was
 * launched (`output` only: the status stays; a coalescible update, so the report's completion takes its
 * place when both wait), and the state keeps who asked, so the launch's scan-id write, when it comes later,
 * says it too (`planLaunched` in ./decide-launch.ts). The check-run write is best effort: the answer is a
 * courtesy, the collapse is what matters. Pure.
 */
export function planRerunInProgress(
  d: PullRequestJobData,
  run: PullState & { checkRunId: number },
): { writes: GitHubWrite[]; state: PullState } {
  const by = d.explicit?.requestedBy;
  const output = renderRerunInProgress({
    ...(by ? { requestedBy: by } : {}),
    ...(run.scanId ? { scanId: run.scanId } : {}),
  });
  return {
    writes: [{ ...updateCheck(run, run.checkRunId, { output }, "update"), bestEffort: true }],
    state: { ...run, rerunAgain: by ? { by } : {} },
  };
}

/**
 * The writes that end a check run reconciliation resumed ({@link PullRequestJobData.resume}) when the state
 * follows something else: `cancelled` as closed (the pull request was closed meanwhile), or as superseded by
 * the head followed (another check run of the same head, when it is the same head). Nothing when the state
 * follows that very check run. Best effort, like every stop write. Pure.
 */
export function planResumedStop(d: PullRequestJobData, prev: PullState | undefined): GitHubWrite[] {
  if (!d.resume || !prev || prev.checkRunId === d.resume.checkRunId) return [];
  // the resumed check run shows no scan: the stop names none
  const run: PullState = { ...prev, checkRunId: d.resume.checkRunId };
  delete run.scanId;
  return planStopWrites(
    run,
    prev.closed
      ? { kind: "closed" }
      : {
          kind: "superseded",
          bySha: prev.headSha,
          ...(prev.headSha === d.headSha ? { sameHead: true } : {}),
        },
  );
}

/** What the pull-request job read before deciding; a field is absent when the decision did not need it. */
export interface PullRequestFacts {
  event: PullRequestJobData;
  /** BullMQ's `attemptsStarted` of the job (> 1: an earlier attempt may have created the check run) */
  attemptsStarted: number;
  /** when the job was added (BullMQ `job.timestamp`, ms since the epoch): diffward received the request */
  receivedAt: number;
  /** `.github/diffward.yml` of the default branch (an absent one never gets here) */
  config:
    | { kind: "invalid"; problems: string[] }
    /** `raised`: the values the organization floor raised, named in the check run's summary */
    | { kind: "ok"; config: RepoConfig; raised?: RaisedValue[]; sources?: PolicySources };
  head: Extract<HeadDecision, { kind: "follow" }>;
  /** an unfinished check run of this head without a scan id, left by an earlier attempt of this job */
  adoption?: { checkRunId: number | undefined };
  token?: TokenFact;
  /** the pull request's changed files (GitHub "List pull requests files") */
  files?: readonly GateFile[];
  /** a fork's author meets `commands.minPermission` (true for a pull request from the same repository) */
  authorPermitted?: boolean;
  /** problems of the pull request's own `.github/diffward.yml`, when it edits the file (empty: none) */
  configProblemsInPull?: string[];
  /** GitHub's compare of base and head */
  mergeBase?: { mergeBase: string; headCommitMessage?: string | undefined };
  settings: { guidanceFile: string; defaultPreset: string };
}

/** A fact {@link decidePullRequest} may need, in reading order. */
export type PullRequestFact = "adoption" | "token" | "files" | "permission" | "config-in-pull" | "merge-base";

/** A launch to enqueue once the check run's id is known. */
export interface PlannedLaunch {
  data: Omit<LaunchJobData, "checkRunId">;
  jobId: string;
  /** the debounce window, in ms (0 for an explicit request) */
  delayMs: number;
}

/** The pull-request job's plan: what to write to GitHub, what to remember and what to enqueue. */
export interface PullRequestPlan {
  outcome: PullRequestOutcome;
  /** GitHub writes in order: the stopped head's conclusion (when planned by the caller), this head's check run */
  writes: GitHubWrite[];
  /** the check run already on this head (resumed or adopted), when none is created */
  checkRunId?: number;
  /** whether the new state keeps the check run's id (a skipped draft has none) */
  keepsCheckRun: boolean;
  /** the pull request's new state, the check run's id aside */
  state: Omit<PullState, "checkRunId">;
  launch?: PlannedLaunch;
  /** what the job logs beside its outcome */
  why?: Record<string, unknown>;
}

/**
 * Whether the pull request comes from a fork; fails closed ({@link headIsFork}): an unknown or deleted
 * head repository counts as a fork.
 */
export function isFromFork(d: Pick<PullRequestJobData, "headRepoFullName" | "owner" | "repo">): boolean {
  return headIsFork(d.headRepoFullName, `${d.owner}/${d.repo}`);
}

/**
 * The next fact {@link decidePullRequest} needs, or `undefined` when it can decide (the job reads one fact
 * at a time, so a pull request that stops early, e.g. invalid config or no token, costs no further request).
 * Pure.
 */
export function nextFactNeeded(f: PullRequestFacts): PullRequestFact | undefined {
  if (f.config.kind === "invalid") return undefined;
  const d = f.event;
  if (d.draft && f.config.config.drafts === "skip" && !d.explicit) return undefined;
  if (f.head.resumeCheckRunId === undefined && f.attemptsStarted > 1 && !f.adoption) return "adoption";
  if (!f.token) return "token";
  if (f.token.kind !== "found" && f.token.kind !== "unavailable") return undefined;
  if (!f.files) return "files";
  if (f.authorPermitted === undefined) return "permission";
  if (gateOf(f, f.config.config).kind !== "scan") return undefined;
  if (!f.configProblemsInPull) return "config-in-pull";
  if (!f.mergeBase) return "merge-base";
  return undefined;
}

/** The spend and safety gate ({@link decideGate}) over the facts read. */
export function gateOf(f: PullRequestFacts, config: RepoConfig): Gate {
  return decideGate({
    config,
    files: f.files ?? [],
    authorLogin: f.event.authorLogin,
    fromFork: isFromFork(f.event),
    authorPermitted: f.authorPermitted ?? false,
    guidanceFile: f.settings.guidanceFile,
    approved: Boolean(f.event.explicit?.approvedBy),
  });
}

/**
 * Decides, without I/O, what a followed pull request event does once {@link nextFactNeeded} has nothing
 * left to read, in this order: an invalid repository config fails the check (with its exact problems); a
 * draft is skipped when `drafts: skip`; no scanner token concludes `neutral` (absent) or `failure`
 * (refused by the service); the spend and safety gates ({@link decideGate}) skip (`skipped` for
 * `authors.skip`, else `neutral`) or wait for approval (`action_required` with the "Scan anyway" button);
 * otherwise the check run is `queued` and a launch is planned with its launch key (the debounce window as
 * its delay, none for an explicit request). The check run is created with its final state in one write,
 * or the resumed/adopted one is updated (nothing written when it only stays queued).
 * @throws Error when a fact the decision needs was not read (a bug of the caller).
 */
export function decidePullRequest(f: PullRequestFacts): PullRequestPlan {
  const missing = nextFactNeeded(f);
  if (missing) throw new Error(`decidePullRequest: fact ${missing} was not read`);
  const d = f.event;
  const base: Omit<PullState, "checkRunId"> = {
    ...pullStateAt(d, d.headSha, d.updatedAt),
    generation: f.head.generation,
    receivedAt: f.receivedAt,
  };
  const existing = f.head.resumeCheckRunId ?? f.adoption?.checkRunId;
  const held = decideNotLaunched(f, base, existing);
  return "plan" in held ? held.plan : planLaunch(f, held, base, existing);
}

/** A plan that concludes (or updates) this head's check run in one write, launching nothing. */
type Concluded = (
  outcome: PullRequestOutcome,
  check: CheckRunUpdate,
  state: Omit<PullState, "checkRunId">,
  why?: Record<string, unknown>,
) => PullRequestPlan;

/** {@link Concluded} for a head whose check run is `existing` (resumed or adopted), else a new one. */
function concludedOn(d: PullRequestJobData, existing: number | undefined): Concluded {
  const checkWrite = (check: CheckRunUpdate): GitHubWrite =>
    existing !== undefined ? updateCheck(d, existing, check) : createCheck(d, d.headSha, check);
  return (outcome, check, state, why) => ({
    outcome,
    writes: [checkWrite(check)],
    ...(existing !== undefined ? { checkRunId: existing } : {}),
    keepsCheckRun: true,
    state,
    ...(why ? { why } : {}),
  });
}

/**
 * The plans that launch nothing, in the order of {@link decidePullRequest}: an invalid config, a skipped
 * draft, no token, a gate that skips or waits for approval. Pure.
 * @returns the plan, or the config and gate a launch goes on with.
 */
function decideNotLaunched(
  f: PullRequestFacts,
  base: Omit<PullState, "checkRunId">,
  existing: number | undefined,
): { plan: PullRequestPlan } | { config: RepoConfig; gate: Extract<Gate, { kind: "scan" }> } {
  const d = f.event;
  const concluded = concludedOn(d, existing);
  const nonce = d.explicit ? { explicitNonce: d.explicit.nonce } : {};
  if (f.config.kind === "invalid") {
    const output = renderLaunchError("config_invalid", { path: CONFIG_PATH, problems: f.config.problems });
    const why = { problems: f.config.problems };
    return { plan: concluded("invalid-config", { conclusion: "failure", output }, base, why) };
  }
  const config = f.config.config;
  if (d.draft && config.drafts === "skip" && !d.explicit)
    return {
      plan:
        existing !== undefined
          ? concluded("draft-skipped", { conclusion: "skipped", output: renderDraftSkip() }, base)
          : { outcome: "draft-skipped", writes: [], keepsCheckRun: false, state: base },
    };
  const token = f.token!;
  if (token.kind === "refused") {
    const output = renderLaunchError("unauthorized", { message: token.message });
    const why = { serviceMessage: token.message };
    return { plan: concluded("no-token", { conclusion: "failure", output }, { ...base, ...nonce }, why) };
  }
  if (token.kind === "absent")
    return {
      plan: concluded("no-token", { conclusion: "neutral", output: renderLaunchError("no_token") }, base),
    };
  const gate = gateOf(f, config);
  if (gate.kind === "skip") {
    const why = { reason: gate.reason };
    const conclusion = gate.reason === "authors-skip" ? "skipped" : "neutral";
    const output = renderGateSkip(gate);
    return { plan: concluded("skipped", { conclusion, output }, { ...base, ...nonce }, why) };
  }
  if (gate.kind === "approval") {
    const why = { reason: gate.reason };
    const check: CheckRunUpdate = {
      conclusion: "action_required",
      output: renderGateApproval(gate, config.commands.minPermission, f.settings.guidanceFile),
      actions: [SCAN_ANYWAY_ACTION],
      ...(d.pullHtmlUrl ? { detailsUrl: d.pullHtmlUrl } : {}),
    };
    return { plan: concluded("awaiting-approval", check, { ...base, ...nonce }, why) };
  }
  return { config, gate };
}

/**
 * The launch plan: the check run `queued` (nothing written when one is already on this head), the launch
 * key, and the launch job with the debounce window as its delay (none for an explicit request or a resumed
 * check run). Pure.
 */
function planLaunch(
  f: PullRequestFacts,
  go: { config: RepoConfig; gate: Extract<Gate, { kind: "scan" }> },
  base: Omit<PullState, "checkRunId">,
  existing: number | undefined,
): PullRequestPlan {
  const d = f.event;
  const { config } = go;
  const { mergeBase } = f.mergeBase!;
  const presetRef = d.explicit?.presetRef ?? config.preset ?? f.settings.defaultPreset;
  const lk = configLaunchKey(config, { headSha: d.headSha, mergeBase, presetRef, nonce: d.explicit?.nonce });
  // The generation makes a head that comes back (reopen, force-push back) a new BullMQ job: the completed
  // job of its first launch keeps its id, and an add with that id would be ignored (check stuck `queued`).
  // A resumed check run's launch gets its own job id too: a completed launch job of the lost state may remain.
  const launchJobId = jobId(
    "launch",
    lk,
    `g${f.head.generation}`,
    ...(d.resume ? [`r${d.resume.checkRunId}`] : []),
  );
  const nonce = d.explicit ? { explicitNonce: d.explicit.nonce } : {};
  return {
    outcome: "launch-enqueued",
    writes: launchCheckWrites(d, existing, f.token!),
    ...(existing !== undefined ? { checkRunId: existing } : {}),
    keepsCheckRun: true,
    state: {
      ...base,
      mergeBase,
      launchKey: lk,
      launchJobId,
      ...nonce,
      ...(d.action === RERUN_ACTION ? { rerun: true } : {}),
    },
    // A resumed check run waited out its debounce window before the state was lost.
    launch: {
      data: launchData(f, go, presetRef, lk),
      jobId: launchJobId,
      delayMs: d.explicit || d.resume ? 0 : config.debounceSeconds * 1000,
    },
    why: { mergeBase, presetRef, debounceSeconds: config.debounceSeconds },
  };
}

/**
 * The check-run write of a planned launch: a new check run `queued`, or `in_progress` saying the service is
 * unavailable while it is; a check run already on this head is already queued: nothing to write unless it
 * now waits for the service. Pure.
 */
function launchCheckWrites(
  d: PullRequestJobData,
  existing: number | undefined,
  token: TokenFact,
): GitHubWrite[] {
  // While the service is unavailable the check run says so at once, in progress, instead of queued.
  const waiting: CheckRunUpdate | undefined =
    token.kind === "unavailable"
      ? {
          status: "in_progress",
          output: renderLaunchError("service_unavailable", {
            maxWaitMinutes: Math.round(token.maxWaitMs / 60_000),
          }),
        }
      : undefined;
  if (existing !== undefined) return waiting ? [updateCheck(d, existing, waiting, "update")] : [];
  return [createCheck(d, d.headSha, waiting ?? { status: "queued", output: renderQueued() })];
}

/** The launch job's data (its check run's id aside): the head, merge base, preset and config it scans. */
function launchData(
  f: PullRequestFacts,
  go: { config: RepoConfig; gate: Extract<Gate, { kind: "scan" }> },
  presetRef: string,
  lk: string,
): Omit<LaunchJobData, "checkRunId"> {
  const d = f.event;
  const { config, gate } = go;
  const token = f.token!;
  const { mergeBase, headCommitMessage } = f.mergeBase!;
  const problemsInPr = f.configProblemsInPull ?? [];
  const creditBudget = d.explicit?.creditBudget ?? config.creditBudget;
  return {
    ...repoContextOf(d),
    pullNumber: d.pullNumber,
    headSha: d.headSha,
    headRef: d.headRef,
    mergeBase,
    commitMessage: headCommitMessage ?? d.title,
    repositoryId: config.repositoryId,
    presetRef,
    ...(creditBudget !== undefined ? { creditBudget } : {}),
    ...(config.auditAreas?.length ? { auditAreaKeys: config.auditAreas } : {}),
    launchKey: lk,
    explicit: Boolean(d.explicit),
    config: withEffectiveDisclosure(config, { private: d.repoPrivate }),
    ...(problemsInPr.length ? { configProblemsInPull: problemsInPr } : {}),
    ...(f.config.kind === "ok" && f.config.raised?.length ? { floorRaised: f.config.raised } : {}),
    ...(f.config.kind === "ok" && f.config.sources ? { policySources: f.config.sources } : {}),
    ...(gate.guidanceChange ? { guidanceChange: gate.guidanceChange } : {}),
    ...(d.resume ? { lookupSince: d.resume.since } : {}),
    ...(token.kind === "unavailable" ? { outageSince: token.since } : {}),
  };
}
