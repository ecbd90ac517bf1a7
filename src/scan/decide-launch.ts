import { concludeCheck, updateCheck, type GitHubWrite } from "../github/writes.js";
import {
  renderLaunchError,
  renderQueued,
  renderRerunInProgress,
  type LaunchErrorKind,
} from "../render/check-run.js";
import { baselineServiceError } from "../checks/baseline-service-error.js";
import type { LaunchErrorAction } from "./launch-errors.js";
import type { LaunchJobData } from "../job-catalogue/index.js";
import type { LaunchRefusal } from "../policy/preflight.js";
import { unknownOutcomeSince, type EndedScanStatus, type LaunchRecord } from "../stores/scan-state.js";

/**
 * What the launch job reads first, in this order; reading stops at the first fact that ends the launch, so
 * a field is absent when an earlier one decided, except that a launch that ends still has its record read
 * and, when an attempt's outcome is unknown, its token.
 */
export interface LaunchStartFacts {
  /** the target still follows this launch (`launchWanted` in `../job-kit/target.ts`) */
  wanted: boolean;
  /** the installation was removed while the launch waited */
  removed?: boolean;
  /** the account has a scanner token */
  tokenFound?: boolean;
  /** the launch key's record: an earlier attempt's start, or the scan it launched */
  record?: LaunchRecord;
  /** the terminal status diffward recorded for the record's scan, when it has ended (read only with a scan id) */
  ended?: EndedScanStatus;
}

/** How a launch starts, decided by {@link decideLaunchStart}. */
export type LaunchStart =
  | { kind: "superseded"; why: "unwanted" | "removed" }
  /**
   * no longer wanted, but an earlier attempt's outcome is unknown: look its scan up in the service's list (created
   * since `since`, ms since epoch) and cancel it, before the launch ends
   */
  | { kind: "withdraw"; why: "unwanted" | "removed"; since: number }
  | { kind: "no-token" }
  | { kind: "already-launched"; scanId: string; creditBudget: number | undefined }
  /**
   * the launch key's scan completed before (a head that comes back: reopened with no new commit, a
   * force-push back): its report is posted again in this launch's check run, nothing launched
   */
  | { kind: "report-again"; scanId: string; creditBudget: number | undefined }
  /** look the scan up in the service's list before sending again: `since` in ms since epoch */
  | { kind: "look-up"; since: number; anyOfHead: boolean }
  | { kind: "launch" };

/**
 * Decides, without I/O, how a launch starts, at most once per launch key: nothing is spent for a launch its
 * target no longer follows (a newer head, closed, destroyed or replaced) or whose installation was removed,
 * and one of them whose earlier attempt's outcome is unknown is withdrawn (its scan looked up and cancelled:
 * a scan nobody follows must not run on); no token concludes `neutral`; a key that already has a scan id is done,
 * and one whose scan completed is reported again (the same head, merge base, preset and audit areas give the
 * same findings: a second scan would be paid for nothing); an earlier attempt of unknown
 * outcome (crash, timeout, 5xx) is first looked up among the service's scans of the same merge base and
 * preset, and a check run resumed after a state loss (`lookupSince`) among any scan of its head (an
 * explicit request's preset or budget were lost with the state); otherwise the scan is launched.
 */
export function decideLaunchStart(d: Pick<LaunchJobData, "lookupSince">, f: LaunchStartFacts): LaunchStart {
  if (!f.wanted || f.removed) {
    const why = f.wanted ? "removed" : "unwanted";
    const since = unknownOutcomeSince(f.record ?? {});
    return since !== undefined && f.tokenFound
      ? { kind: "withdraw", why, since }
      : { kind: "superseded", why };
  }
  if (!f.tokenFound) return { kind: "no-token" };
  const record = f.record ?? {};
  if (record.scanId)
    return {
      kind: f.ended === "COMPLETED" ? "report-again" : "already-launched",
      scanId: record.scanId,
      creditBudget: record.creditBudget,
    };
  if (record.attemptStartedAt !== undefined)
    return { kind: "look-up", since: record.attemptStartedAt, anyOfHead: false };
  if (d.lookupSince !== undefined) return { kind: "look-up", since: d.lookupSince, anyOfHead: true };
  return { kind: "launch" };
}

/** The check-run write of a launch refused before anything was spent (preflight, `creditCap.monthly`). Pure. */
export function planLaunchRefused(
  d: Pick<LaunchJobData, "owner" | "repo" | "checkRunId">,
  refusal: LaunchRefusal,
): GitHubWrite[] {
  return concludeCheck(d, refusal.conclusion, { title: refusal.title, summary: refusal.summary });
}

/** The check-run write of a launch whose account has no scanner token (`neutral`). Pure. */
export function planNoToken(d: Pick<LaunchJobData, "owner" | "repo" | "checkRunId">): GitHubWrite[] {
  return [updateCheck(d, d.checkRunId, { conclusion: "neutral", output: renderLaunchError("no_token") })];
}

/**
 * The body of `POST /projects/{projectId}/scans` (spec §Scans) for a launch: the head as `commitHash`, the
 * merge base as `baseCommit` (`null`: a whole-repository scan), the commit message cut to 1,000
 * characters, the audit areas when any, and the budget when one is set or reserved under the cap. Pure.
 */
export function launchRequest(d: LaunchJobData, creditBudget: number | undefined) {
  return {
    repositoryId: d.repositoryId,
    presetRef: d.presetRef,
    commitHash: d.headSha,
    baseCommit: d.mergeBase,
    branch: d.headRef,
    ...(d.commitMessage ? { commitMessage: d.commitMessage.slice(0, 1000) } : {}),
    ...(d.auditAreaKeys?.length ? { auditAreaKeys: d.auditAreaKeys } : {}),
    ...(creditBudget !== undefined ? { creditBudget } : {}),
  };
}

/**
 * The check-run write that tells GitHub a scan runs: `in_progress`, its scan id as `external_id` (how
 * reconciliation finds the scan of a check run again), preset and reserved credits in the output.
 * A `progress` write in the write lane's order: the report's completion carries the same `external_id`, so
 * when this one has not gone out yet the scan id still reaches GitHub with the first write that does. The
 * hourly budget never leaves it out (`src/runtime/apply-writes.ts`: a write carrying `external_id` is not
 * skippable). When a later Re-run of the head was answered meanwhile (`PullState.rerunAgain`), the output
 * keeps that answer instead, since this write may replace it or take its place in the lane. Pure.
 */
export function planLaunched(
  d: Pick<LaunchJobData, "owner" | "repo" | "checkRunId" | "presetRef">,
  scanId: string,
  creditBudget: number | undefined,
  rerunAgain?: { by?: string },
): GitHubWrite[] {
  const output = rerunAgain
    ? renderRerunInProgress({ scanId, ...(rerunAgain.by ? { requestedBy: rerunAgain.by } : {}) })
    : renderQueued({
        scanId,
        presetName: d.presetRef,
        ...(creditBudget !== undefined ? { creditBudget } : {}),
      });
  return [updateCheck(d, d.checkRunId, { status: "in_progress", externalId: scanId, output })];
}

/** What the launch job does after the service refused or failed a launch. */
export interface LaunchErrorPlan {
  writes: GitHubWrite[];
  next:
    | { kind: "concluded" }
    /** throw the error again: BullMQ retries the job with backoff (the scan is first looked up) */
    | { kind: "retry" }
    /** wait `delayMs` without counting an attempt, with the job's data updated */
    | { kind: "wait"; delayMs: number; data?: Partial<LaunchJobData> };
}

/** What {@link decideLaunchError} knows besides the classified error. */
export interface LaunchErrorFacts {
  d: LaunchJobData;
  /** this attempt's number (1-based) and the job's attempts in all */
  attempt: number;
  maxAttempts: number;
  /** ms since epoch */
  now: number;
  /** how long a launch keeps retrying `repository_initializing`, in ms */
  initializingWindowMs: number;
  /** the project's balance, read for `insufficient_credits` */
  balance?: { balanceCredits: number; availableCredits: number };
}

/**
 * Decides, without I/O, what a launch error leads to (spec "Launch rules" and "Errors"; the error sorted by
 * `classifyLaunchError`):
 * - ambiguous (5xx, network, timeout): retried with backoff (the next attempt looks the scan up first); the
 *   last attempt concludes `failure` (`internal`);
 * - `diff_base_not_allowed` with a merge base: relaunched at once as a whole-repository scan (presets carry
 *   no diff flag: one that refuses `baseCommit` scans the whole repository);
 * - `repository_initializing`: waits (the first wait says so on the check run) until
 *   `initializingWindowMs`, then `failure` (`timed_out`);
 * - `rate_limited`: waits its `Retry-After`, saying so on the check run past 60 s;
 * - anything else concludes with the service's message ({@link renderServiceError}); a baseline's 402 and
 *   `diff_base_required` conclude as {@link baselineServiceError} says (neutral; a configuration error).
 */
export function decideLaunchError(action: LaunchErrorAction, f: LaunchErrorFacts): LaunchErrorPlan {
  const { d } = f;
  if (action.kind === "ambiguous") {
    const last = f.attempt >= f.maxAttempts;
    return {
      writes: last
        ? [
            updateCheck(d, d.checkRunId, {
              conclusion: "failure",
              output: renderLaunchError("internal", {
                message: action.message,
                attempt: f.attempt,
                maxAttempts: f.maxAttempts,
              }),
            }),
          ]
        : [],
      next: { kind: "retry" },
    };
  }
  if (action.kind === "conclude" && action.code === "diff_base_not_allowed" && d.mergeBase !== null)
    return {
      writes: [],
      next: { kind: "wait", delayMs: 10, data: { mergeBase: null, wholeRepository: true } },
    };
  if (action.kind === "wait")
    return action.why === "repository_initializing"
      ? decideInitializing(action, f)
      : decideRateLimited(action, f);
  const baseline =
    d.target?.kind === "baseline"
      ? baselineServiceError(action.code, action.message, d, f.balance)
      : undefined;
  return {
    writes: [
      updateCheck(
        d,
        d.checkRunId,
        baseline ?? {
          conclusion: action.conclusion,
          output: renderServiceError(action.code, action.message, d, f.balance),
        },
      ),
    ],
    next: { kind: "concluded" },
  };
}

/**
 * `repository_initializing`: waits (the first wait says so on the check run, `in_progress`) until
 * `initializingWindowMs` after the first such answer, then concludes `failure` (`timed_out`). Pure.
 */
function decideInitializing(action: { delayMs: number }, f: LaunchErrorFacts): LaunchErrorPlan {
  const { d } = f;
  const since = d.initializingSince ?? f.now;
  if (f.now - since >= f.initializingWindowMs)
    return {
      writes: [
        updateCheck(d, d.checkRunId, {
          conclusion: "failure",
          output: renderLaunchError("timed_out", { waitedSeconds: Math.round((f.now - since) / 1000) }),
        }),
      ],
      next: { kind: "concluded" },
    };
  const output = renderLaunchError("repository_initializing", {
    retryInSeconds: Math.round(action.delayMs / 1000),
  });
  return {
    writes: d.initializingSince
      ? []
      : [updateCheck(d, d.checkRunId, { status: "in_progress", output }, "update")],
    next: {
      kind: "wait",
      delayMs: action.delayMs,
      data: { initializingSince: since, initializingTries: (d.initializingTries ?? 0) + 1 },
    },
  };
}

/** `rate_limited`: waits its `Retry-After`, saying so on the check run (`queued`) past 60 s. Pure. */
function decideRateLimited(
  action: { delayMs: number; retryAfterSeconds?: number | undefined },
  f: LaunchErrorFacts,
): LaunchErrorPlan {
  const { d } = f;
  const retryAt = new Date(f.now + action.delayMs);
  return {
    writes:
      (action.retryAfterSeconds ?? 0) > 60
        ? [
            updateCheck(d, d.checkRunId, {
              status: "queued",
              output: renderLaunchError("rate_limited", {
                retryAfterSeconds: action.retryAfterSeconds ?? 0,
                message: `Retrying at ${retryAt.toISOString()}.`,
              }),
            }),
          ]
        : [],
    next: { kind: "wait", delayMs: action.delayMs },
  };
}

/** The check run output for a launch the service refused (spec "Errors"), per error code. Pure. */
export function renderServiceError(
  code: string,
  message: string,
  d: Pick<LaunchJobData, "repositoryId" | "presetRef" | "creditBudget" | "mergeBase" | "headSha">,
  balance?: { balanceCredits: number; availableCredits: number },
) {
  switch (code as LaunchErrorKind) {
    case "insufficient_credits":
      return renderLaunchError("insufficient_credits", {
        message,
        ...(balance
          ? { availableCredits: balance.availableCredits, balanceCredits: balance.balanceCredits }
          : {}),
        ...(d.creditBudget !== undefined ? { requiredCredits: d.creditBudget } : {}),
      });
    case "diff_empty":
      return renderLaunchError("diff_empty", {
        ...(d.mergeBase ? { baseCommit: d.mergeBase } : {}),
        headSha: d.headSha,
      });
    case "diff_base_required":
    case "diff_base_not_allowed":
      return renderLaunchError(code as "diff_base_required", { message, presetName: d.presetRef });
    case "diff_base_invalid":
      return renderLaunchError("diff_base_invalid", {
        message,
        ...(d.mergeBase ? { baseCommit: d.mergeBase } : {}),
      });
    case "unauthorized":
      return renderLaunchError("unauthorized", { message });
    case "forbidden":
      return renderLaunchError("forbidden", { message, scope: "scans:launch" });
    case "not_found":
      return renderLaunchError("not_found", { message, repositoryId: d.repositoryId });
    default:
      return renderLaunchError("bad_request", { message });
  }
}
