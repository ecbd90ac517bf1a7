import { mergeGroupPayload, type CheckRun, type MergeGroup } from "../github-standin/index.js";
import type { Harness } from "./harness.js";

/** What {@link demoMergeQueue} shows. */
export interface MergeQueueShown {
  group: MergeGroup;
  /** the group's completed `diffward` check run */
  run: CheckRun;
  /** scans the service had received before the group, and after its check completed */
  launchesBefore: number;
  launchesAfter: number;
  /** from sending `merge_group.checks_requested` to the completed check run, in ms */
  tookMs: number;
}

/**
 * The demo's merge-queue step (README "Merge queues"): puts a reported pull request into the merge queue (a
 * merge group on `headSha` over `baseSha` in the GitHub stand-in), sends the real
 * `merge_group.checks_requested` payload, and waits for the group's completed `diffward` check run.
 * @throws Error when the check run does not complete within `timeoutMs`.
 */
export async function demoMergeQueue(
  h: Harness,
  pr: { owner: string; repo: string; pullNumber: number },
  shas: { headSha: string; baseSha: string },
  timeoutMs = 20_000,
): Promise<MergeQueueShown> {
  const launchesBefore = h.sandbox.state.scans.size;
  const group = h.github.state.addMergeGroup({
    owner: pr.owner,
    repo: pr.repo,
    pullNumber: pr.pullNumber,
    headSha: shas.headSha,
    baseSha: shas.baseSha,
  });
  const started = Date.now();
  await h.send("merge_group", mergeGroupPayload(h.github.state, group, "checks_requested"));
  const run = await h.waitFor(
    () =>
      h.github.state
        .checkRuns(pr.owner, pr.repo)
        .find((c) => c.headSha === group.headSha && c.status === "completed"),
    timeoutMs,
    "the merge group's check run",
  );
  return {
    group,
    run,
    launchesBefore,
    launchesAfter: h.sandbox.state.scans.size,
    tookMs: Date.now() - started,
  };
}
