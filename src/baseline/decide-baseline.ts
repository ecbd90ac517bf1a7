import { withEffectiveDisclosure, type RepoConfig } from "../config/repo-config.js";
import type { CheckRunUpdate } from "../github/check-runs.js";
import { renderBaselineNoToken, renderBaselineQueued, unknownPresetProblem } from "./render-baseline.js";
import { diffPresetProblem, renderBaselineConfigError } from "../render/baseline-refusals.js";
import { renderLaunchError } from "../render/check-run.js";
import type { BaselineState } from "../stores/baseline-state.js";
import { configLaunchKey, jobId } from "../runtime/names.js";
import type { ScanPreset } from "../scanner/schemas.js";
import type { TokenFact } from "../job-kit/token-fact.js";
import type { BaselineJobData, LaunchJobData } from "../job-catalogue/index.js";
import { repoContextOf } from "../job-kit/types.js";

/** What a baseline start did; the job's result. */
export type BaselineOutcome =
  | "not-onboarded"
  | "invalid-config"
  | "off"
  | "stale-push"
  | "duplicate"
  | "already-has-baseline"
  | "no-branch"
  | "no-token"
  | "config-error"
  | "launch-enqueued";

/** What the start decides with once the baseline is on and the commit is followed. */
export interface BaselineFacts {
  event: BaselineJobData & { headSha: string };
  config: RepoConfig;
  /** the presets diffward knows are diff presets ({@link knownDiffPresets}) */
  diffPresets: readonly KnownDiffPreset[];
  token: TokenFact;
  /** the service's presets (spec §Scan presets), read once the token is found */
  presets?: readonly ScanPreset[];
  /** a name for this start, unique per push delivery or scheduled run (the launch key's nonce) */
  nonce: string;
}

/** The start's plan: the check run to create on the commit, and the launch to enqueue with its id. */
export interface BaselinePlan {
  outcome: Extract<BaselineOutcome, "no-token" | "config-error" | "launch-enqueued">;
  check: CheckRunUpdate;
  launch?: { data: Omit<LaunchJobData, "checkRunId">; jobId: string; delayMs: number };
}

/** A preset ref diffward knows is a diff preset, and how it knows. */
export interface KnownDiffPreset {
  ref: string;
  /** how diffward knows, as the configuration error says it */
  why: string;
}

/**
 * The presets diffward knows are diff presets without launching anything. The service's preset record has
 * no diff flag (spec §Scan preset (scan type): `ref`, `name`, `description`, `minCredits`, `modelTier`), and
 * a preset's name or description is free text, so diffward does not guess from them; it knows the presets
 * that pull request scans use, which send `baseCommit` and so are diff presets by definition (spec §Scans,
 * launch rule 6): the repository's `preset` and the app's default `SCANNER_DIFF_PRESET` (which every
 * repository without a `preset` uses, whatever this one's `preset` says).
 */
export function knownDiffPresets(
  config: Pick<RepoConfig, "preset">,
  appDiffPreset: string,
): KnownDiffPreset[] {
  const known: KnownDiffPreset[] = [];
  if (config.preset !== undefined)
    known.push({ ref: config.preset, why: "it is this repository's pull request preset, `preset`" });
  if (appDiffPreset !== config.preset)
    known.push({ ref: appDiffPreset, why: "it is the app's pull request preset, SCANNER_DIFF_PRESET" });
  return known;
}

/**
 * Why `presetRef` cannot scan a baseline, or `undefined` when it can: not in the service's presets list, or a
 * diff preset diffward knows ({@link knownDiffPresets}). A diff preset it cannot tell from these is refused by
 * the service at launch (400 `diff_base_required`, before any credit is reserved), which concludes the
 * same way (`baselineServiceError`, `src/checks/baseline-service-error.ts`).
 */
export function baselinePresetProblem(
  presetRef: string,
  presets: readonly ScanPreset[],
  diffPresets: readonly KnownDiffPreset[],
): string | undefined {
  if (!presets.some((p) => p.ref === presetRef)) return unknownPresetProblem(presetRef, presets);
  const diff = diffPresets.find((p) => p.ref === presetRef);
  return diff ? diffPresetProblem(presetRef, diff.why) : undefined;
}

/**
 * Decides a baseline start without I/O: no token concludes `neutral` (absent) or `failure` (refused); a
 * preset that cannot scan a baseline ({@link baselinePresetProblem}) concludes `failure` as a configuration
 * error, launching nothing; otherwise a `queued` check run and one launch of the commit with the baseline
 * preset, no `baseCommit` and `branch` = the default branch, after `debounceSeconds` for a push (a newer push
 * in the window removes it: nothing spent) and at once for a schedule. The launch key carries this start's
 * nonce, so each start launches at most once whatever its retries.
 * @throws Error when the baseline is off or the presets were not read with a token found (a caller's bug).
 */
export function decideBaseline(f: BaselineFacts): BaselinePlan {
  const { event: d, config } = f;
  const b = config.baseline;
  if (b.on === "off" || b.preset === undefined) throw new Error("decideBaseline: the baseline is off");
  if (f.token.kind === "absent")
    return { outcome: "no-token", check: { conclusion: "neutral", output: renderBaselineNoToken() } };
  if (f.token.kind === "refused")
    return {
      outcome: "no-token",
      check: {
        conclusion: "failure",
        output: renderLaunchError("unauthorized", { message: f.token.message }),
      },
    };
  if (!f.presets) throw new Error("decideBaseline: the presets were not read");
  const problem = baselinePresetProblem(b.preset, f.presets, f.diffPresets);
  if (problem)
    return {
      outcome: "config-error",
      check: { conclusion: "failure", output: renderBaselineConfigError([problem]) },
    };
  const lk = configLaunchKey(config, {
    headSha: d.headSha,
    mergeBase: null,
    presetRef: b.preset,
    nonce: f.nonce,
  });
  const data: Omit<LaunchJobData, "checkRunId"> = {
    ...repoContextOf(d),
    pullNumber: 0,
    target: { kind: "baseline", branch: d.defaultBranch },
    headSha: d.headSha,
    headRef: d.defaultBranch,
    mergeBase: null,
    ...(d.commitMessage ? { commitMessage: d.commitMessage } : {}),
    repositoryId: config.repositoryId,
    presetRef: b.preset,
    ...(b.creditBudget !== undefined ? { creditBudget: b.creditBudget } : {}),
    ...(config.auditAreas?.length ? { auditAreaKeys: config.auditAreas } : {}),
    launchKey: lk,
    explicit: false,
    config: withEffectiveDisclosure(config, { private: d.repoPrivate }),
  };
  const delayMs = d.trigger === "push" ? config.debounceSeconds * 1000 : 0;
  return {
    outcome: "launch-enqueued",
    check: {
      status: "queued",
      output: renderBaselineQueued({
        branch: d.defaultBranch,
        headSha: d.headSha,
        presetRef: b.preset,
        trigger: d.trigger,
        debounceSeconds: d.trigger === "push" ? config.debounceSeconds : 0,
      }),
    },
    launch: { data, jobId: jobId("launch", lk), delayMs },
  };
}

/**
 * Whether a start for `headSha` is a repeat of the baseline followed now (same commit, still running or
 * reported, or concluded by a refusal): then nothing is created or launched again. A baseline of the commit
 * that was superseded and came back (a force-push back) is started anew.
 */
export function followsCommit(prev: BaselineState | undefined, headSha: string): boolean {
  return Boolean(prev && prev.headSha === headSha && prev.checkRunId !== undefined);
}

/**
 * A push start whose commit is no longer the head of the default branch: a newer push moved the branch, and
 * that push's own delivery starts its baseline, so this one must neither launch nor stop the baseline
 * followed. Decided from the branch as GitHub has it now (`branchHead`, read under the baseline's lock),
 * never from a timestamp: `repository.pushed_at` counts whole seconds, so two pushes in one second tie, and
 * deliveries are not ordered (GitHub "Webhook events and payloads", `push`: the ref is updated before the
 * event is sent). A scheduled start reads the head itself, and a start reconciliation hands a check run to
 * (`resumeCheckRunId`) must end that check run, so neither is ever stale.
 * @param branchHead the default branch's head commit now, `undefined` when the branch is gone.
 */
export function isStalePush(
  d: BaselineJobData & { headSha: string },
  branchHead: string | undefined,
): boolean {
  return d.trigger === "push" && d.resumeCheckRunId === undefined && branchHead !== d.headSha;
}
