import { Worker, type ConnectionOptions, type Queue } from "bullmq";
import { expect } from "vitest";
import { parseRepoConfig, type RepoConfig } from "../../src/config/repo-config.js";
import type { LaunchJobData, PullRequestJobData } from "../../src/job-catalogue/index.js";

/** A parsed repository config for repository `repo_1`, with `extra` fields over the defaults; throws if invalid. */
export function repoConfig(extra: Record<string, unknown> = {}): RepoConfig {
  const parsed = parseRepoConfig({ repositoryId: "repo_1", ...extra });
  if (!parsed.ok) throw new Error(parsed.problems.join("; "));
  return parsed.config;
}

/** A pull-request job for acme/web#3 (opened, head `b…b`, private repository, installation 7). */
export const pullRequestEvent: PullRequestJobData = {
  deliveryId: "d-1",
  action: "opened",
  installationId: 7,
  accountLogin: "acme",
  owner: "acme",
  repo: "web",
  repoPrivate: true,
  defaultBranch: "main",
  pullNumber: 3,
  headSha: "b".repeat(40),
  headRef: "feature",
  baseRef: "main",
  draft: false,
  updatedAt: "2026-01-02T00:00:00Z",
  authorLogin: "alice",
  title: "Add login",
  headRepoFullName: "acme/web",
};

/** A launch job for {@link pullRequestEvent}'s head with the default config (check run 21, launch key `lk`). */
export const launchJob: LaunchJobData = {
  ...pullRequestEvent,
  mergeBase: "c".repeat(40),
  repositoryId: "repo_1",
  presetRef: "diff-standard",
  checkRunId: 21,
  launchKey: "lk",
  explicit: false,
  config: repoConfig(),
};

/**
 * Adds a job of each id to `queue` that fails on its only attempt (a worker of this process throws `reason`),
 * and waits until all have failed.
 * @param opts the queue's connection and key prefix; `whileRunning` runs while the worker still fails each job
 *   it takes (a retried one fails again), before the worker closes.
 */
export async function addFailingJobs(
  queue: Queue,
  ids: readonly string[],
  opts: {
    connection: ConnectionOptions;
    prefix: string;
    reason?: string;
    whileRunning?: () => Promise<void>;
  },
): Promise<void> {
  await queue.addBulk(ids.map((jobId) => ({ name: "failing", data: {}, opts: { jobId, attempts: 1 } })));
  const worker = new Worker(
    queue.name,
    async () => {
      throw new Error(opts.reason ?? "GitHub 502 on every attempt");
    },
    { connection: opts.connection, prefix: opts.prefix, concurrency: 50 },
  );
  try {
    await expect
      .poll(async () => (await queue.getJobs(["failed"])).filter((j) => ids.includes(j.id ?? "")).length, {
        timeout: 15_000,
      })
      .toBe(ids.length);
    await opts.whileRunning?.();
  } finally {
    await worker.close();
  }
}
