import type { Job } from "bullmq";
import { addFair } from "../fairness.js";
import { effectiveDisclosure, parseRepoConfigYaml } from "../../config/repo-config.js";
import { createCheckRun, listCheckRunsForRef, updateCheckRun } from "../../github/checks.js";
import { getFileText, getMergeBase, listPullFiles } from "../../github/pulls.js";
import { renderLaunchError, renderQueued } from "../../render/check-run.js";
import { ScannerApiError, isRetryable } from "../../scanner/errors.js";
import { CONFIG_PATH, loadRepoConfig } from "../config-loader.js";
import { getPermission } from "../../github/comments.js";
import { permissionAtLeast } from "../../config/repo-config.js";
import { decideGate, headIsFork } from "../../policy/gates.js";
import { SCAN_ANYWAY_ACTION, renderGateApproval, renderGateSkip } from "../../render/gates.js";
import { JOB, jobId, launchKey, pullKey } from "../names.js";
import type { InstallationOctokit } from "../../github/types.js";
import type { Runtime } from "../runtime.js";
import type { PullState } from "../state.js";
import { stopCurrent } from "./supersede.js";
import type { LaunchJobData, PullRequestJobData } from "./types.js";
import { repoContextOf } from "./types.js";

/** What the pull-request job decided; returned as the job's result (visible in BullMQ and in tests). */
export type PullRequestOutcome =
  | "not-onboarded"
  | "invalid-config"
  | "draft-skipped"
  | "stale-event"
  | "duplicate-delivery"
  | "no-token"
  | "skipped"
  | "awaiting-approval"
  | "launch-enqueued";

/**
 * Acts on a pull request event: reads the repository config, creates the `queued` check run on the head
 * SHA, supersedes the previous head (its scan cancelled, its check run `cancelled`), computes the merge
 * base with GitHub's compare API and enqueues the launch after `debounceSeconds` (a newer push inside the
 * window removes the waiting launch: nothing is spent). Holds the pull request's lock throughout.
 */
export async function processPullRequest(
  rt: Runtime,
  job: Job<PullRequestJobData>,
): Promise<PullRequestOutcome> {
  const d = job.data;
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  const log = rt.log.child({
    delivery: d.deliveryId,
    pull: key,
    installation: d.installationId,
    sha: d.headSha,
  });
  const octokit = await rt.octokit(d.installationId);

  const loaded = await loadRepoConfig(octokit, d.owner, d.repo);
  if (loaded.kind === "absent") {
    log.info("repository has no .github/diffward.yml: not onboarded, nothing done");
    return "not-onboarded";
  }

  return rt.state.withPullLock(key, async () => {
    const prev = await rt.state.getPull(key);
    if (!d.explicit && prev && prev.updatedAt && d.updatedAt < prev.updatedAt && prev.headSha !== d.headSha) {
      log.info({ current: prev.headSha }, "older delivery than the head already followed: ignored");
      return "stale-event";
    }
    const sameRequest =
      prev &&
      !prev.closed &&
      prev.headSha === d.headSha &&
      (prev.explicitNonce ?? null) === (d.explicit?.nonce ?? null);
    if (sameRequest && prev.checkRunId && prev.launchKey) {
      log.info("head already followed: duplicate delivery ignored");
      return "duplicate-delivery";
    }
    // A retry of this same job after a failure past the check run's creation: reuse that check run.
    const resumeCheckRunId = sameRequest ? prev.checkRunId : undefined;
    if (!sameRequest && prev && !prev.closed && prev.headSha !== d.headSha) {
      await stopCurrent(rt, octokit, prev, { kind: "superseded", bySha: d.headSha }, d.accountLogin);
    } else if (!sameRequest && prev && d.explicit) {
      await stopCurrent(rt, undefined, prev, { kind: "superseded", bySha: d.headSha }, d.accountLogin);
    }
    const nonce = d.explicit ? { explicitNonce: d.explicit.nonce } : {};

    if (loaded.kind === "invalid") {
      const checkRunId = await createCheckRun(octokit, d, d.headSha, {
        conclusion: "failure",
        output: renderLaunchError("config_invalid", { path: CONFIG_PATH, problems: loaded.problems }),
      });
      await rt.state.setPull(key, baseState(d, { checkRunId }));
      log.warn({ problems: loaded.problems }, "invalid repository config");
      return "invalid-config";
    }
    const config = loaded.config;
    if (d.draft && config.drafts === "skip" && !d.explicit) {
      log.info("draft pull request and drafts: skip: nothing done");
      await rt.state.setPull(key, baseState(d, {}));
      return "draft-skipped";
    }

    // A re-run of this job after its worker died between creating the check run and saving the state
    // (attemptsStarted > 1) adopts that check run instead of leaving it `queued` forever beside a new one.
    const adopted =
      resumeCheckRunId === undefined && job.attemptsStarted > 1
        ? (await listCheckRunsForRef(octokit, d, d.headSha)).find(
            (c) => c.status !== "completed" && !c.externalId && c.headSha === d.headSha,
          )?.id
        : undefined;
    const checkRunId =
      resumeCheckRunId ??
      adopted ??
      (await createCheckRun(octokit, d, d.headSha, { status: "queued", output: renderQueued() }));
    await rt.state.setPull(key, baseState(d, { checkRunId, ...nonce }));
    let tenant;
    try {
      tenant = await rt.scanner.forAccount(d.accountLogin);
    } catch (error) {
      // A 5xx, 429 or network error of `GET /token` is temporary: retry the job, never conclude "no token".
      if (isRetryable(error)) throw error;
      // GET /token refused: the configured token is wrong, expired or revoked (spec "Authentication" 4).
      log.warn({ err: (error as Error).message }, "scanner token refused by the service");
      await updateCheckRun(octokit, d, checkRunId, {
        conclusion: "failure",
        output: renderLaunchError("unauthorized", {
          message: error instanceof ScannerApiError ? error.message : String((error as Error).message),
        }),
      });
      await rt.state.setPull(key, baseState(d, { checkRunId, ...nonce }));
      return "no-token";
    }
    if (!tenant) {
      await updateCheckRun(octokit, d, checkRunId, {
        conclusion: "neutral",
        output: renderLaunchError("no_token"),
      });
      await rt.state.setPull(key, baseState(d, { checkRunId }));
      return "no-token";
    }

    const files = await listPullFiles(octokit, d);
    // Spend and safety gates, before any credit is reserved (issue 5: authors, paths, forks, guidance).
    const fromFork = headIsFork(d.headRepoFullName, `${d.owner}/${d.repo}`);
    // Fails closed: an unknown author (a deleted account, `user: null`) is never permitted.
    const authorPermitted =
      !fromFork ||
      (d.authorLogin !== "" &&
        permissionAtLeast(await getPermission(octokit, d, d.authorLogin), config.commands.minPermission));
    const gate = decideGate({
      config,
      files,
      authorLogin: d.authorLogin,
      fromFork,
      authorPermitted,
      guidanceFile: rt.settings.guidanceFile,
      approved: Boolean(d.explicit?.approvedBy),
    });
    if (gate.kind === "skip") {
      await updateCheckRun(octokit, d, checkRunId, {
        conclusion: gate.reason === "authors-skip" ? "skipped" : "neutral",
        output: renderGateSkip(gate),
      });
      await rt.state.setPull(key, baseState(d, { checkRunId, ...nonce }));
      log.info({ reason: gate.reason }, "not scanned: nothing spent");
      return "skipped";
    }
    if (gate.kind === "approval") {
      await updateCheckRun(octokit, d, checkRunId, {
        conclusion: "action_required",
        output: renderGateApproval(gate, config.commands.minPermission, rt.settings.guidanceFile),
        actions: [SCAN_ANYWAY_ACTION],
        ...(d.pullHtmlUrl ? { detailsUrl: d.pullHtmlUrl } : {}),
      });
      await rt.state.setPull(key, baseState(d, { checkRunId, ...nonce }));
      log.info({ reason: gate.reason }, "scan waits for approval");
      return "awaiting-approval";
    }

    // A PR that edits the config gets its version validated in its own check.
    const problemsInPr = await validateConfigInPull(octokit, d, files).catch(() => []);

    const { mergeBase, headCommitMessage } = await getMergeBase(octokit, d, d.baseRef, d.headSha);
    const presetRef = d.explicit?.presetRef ?? config.preset ?? rt.settings.defaultPreset;
    const creditBudget = d.explicit?.creditBudget ?? config.creditBudget;
    const lk = launchKey({
      repositoryId: config.repositoryId,
      headSha: d.headSha,
      mergeBase,
      presetRef,
      ...(config.auditAreas ? { auditAreaKeys: config.auditAreas } : {}),
      ...(d.explicit ? { nonce: d.explicit.nonce } : {}),
    });
    const launchJobId = jobId("launch", lk);
    const data: LaunchJobData = {
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
      checkRunId,
      launchKey: lk,
      explicit: Boolean(d.explicit),
      config: {
        ...config,
        disclosure: effectiveDisclosure(config, { private: d.repoPrivate }),
      },
      ...(problemsInPr.length ? { configProblemsInPull: problemsInPr } : {}),
      ...(gate.guidanceChange ? { guidanceChange: gate.guidanceChange } : {}),
    };
    await addFair(rt.redis, rt.queues.launch, JOB.launch, data, {
      jobId: launchJobId,
      delay: d.explicit ? 0 : config.debounceSeconds * 1000,
      attempts: 8,
      backoff: { type: "exponential", delay: 2_000, jitter: 0.5 },
      removeOnComplete: { age: 24 * 3600, count: 10_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
    await rt.state.setPull(
      key,
      baseState(d, { checkRunId, mergeBase, launchKey: lk, launchJobId, ...nonce }),
    );
    log.info(
      { mergeBase, presetRef, checkRunId, debounceSeconds: config.debounceSeconds },
      "launch enqueued",
    );
    return "launch-enqueued";
  });
}

function baseState(d: PullRequestJobData, extra: Partial<PullState>): PullState {
  return {
    installationId: d.installationId,
    owner: d.owner,
    repo: d.repo,
    pullNumber: d.pullNumber,
    headSha: d.headSha,
    updatedAt: d.updatedAt,
    ...extra,
  };
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
