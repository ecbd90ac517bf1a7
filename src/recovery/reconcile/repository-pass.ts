/**
 * What one repository's pass of a reconciliation works with: the repository, its installation's client, the
 * summary it adds to, its config read once ({@link effectiveConfig}); and the wait for a pull request's lock.
 */
import { withEffectiveDisclosure } from "../../config/repo-config.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import type { RepoHeads } from "../../github/open-heads.js";
import type { PollJobData } from "../../job-catalogue/index.js";
import { loadRepoConfig } from "../../runtime/config-loader.js";
import type { Runtime } from "../../runtime/runtime.js";
import { LockBusyError } from "../../stores/pull-state.js";
import type { ReconcileSummary } from "./summary.js";

/** A day in ms. */
export const DAY_MS = 24 * 3600_000;

/** The repository part of a poll job's data (what reconciliation knows before it looks at a scan). */
export type RepoPart = Omit<
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

/** One repository's reconciliation pass: its installation's client, the summary it adds to, its config cache. */
export interface RepoPass {
  octokit: InstallationOctokit;
  summary: ReconcileSummary;
  r: RepoPart;
  cache: ConfigCache;
  /** what the full sweep's GraphQL walk read of the repository (`readOpenHeads`); absent: read it by REST */
  heads?: RepoHeads;
}

/** The repository's effective config, loaded once per repository by {@link findResumable} (per loop). */
export interface ConfigCache {
  config?: PollJobData["config"];
}

/**
 * The repository's `.github/diffward.yml` with its effective disclosure, as a poll job carries it.
 * @returns `undefined` (logged) when the file is absent or invalid: nothing of the repository is resumed.
 */
export async function effectiveConfig(
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

/** How long reconciliation waits for a pull request's lock held by a job or another reconciliation, in ms. */
const LOCK_WAIT_MS = 5_000;

/** {@link PullStateStore.withPullLock}, waiting up to {@link LOCK_WAIT_MS} while another holder has the lock. */
export async function withLockWaiting<T>(rt: Runtime, key: string, fn: () => Promise<T>): Promise<T> {
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
