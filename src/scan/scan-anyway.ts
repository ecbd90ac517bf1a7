import type { Job } from "bullmq";
import { permissionAtLeast } from "../config/repo-config.js";
import { getPermission } from "../github/issue-comments.js";
import { getPull } from "../github/pulls.js";
import { updateCheck } from "../github/writes.js";
import { inlineCode } from "../render/escape.js";
import { loadRepoConfig } from "../runtime/config-loader.js";
import { pullHeadOf, repoOf } from "../job-kit/types.js";
import { addJob, type ApproveJobData, type PullRequestJobData } from "../job-catalogue/index.js";
import type { InstallationOctokit } from "../github/octokit-types.js";
import type { CheckRunUpdate } from "../github/check-runs.js";
import { jobId } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { applyWrites } from "../runtime/apply-writes.js";

/**
 * "Scan anyway" (GitHub `check_run.requested_action`, identifier `scan-anyway`): only a user at or above
 * `commands.minPermission` (collaborator permission API, checked on the click, never from the payload)
 * releases the waiting scan; it then runs through the pipeline as an explicit, approved request, in a new
 * check run (a completed one cannot return to in progress). A click below the floor changes nothing but a
 * note on the check run.
 */
export async function processApprove(
  rt: Runtime,
  job: Job<ApproveJobData>,
): Promise<"approved" | "refused" | "not-onboarded" | "duplicate" | "stale"> {
  const d = job.data;
  const log = rt.log.child({ delivery: d.deliveryId, repo: `${d.owner}/${d.repo}`, checkRun: d.checkRunId });
  const octokit = await rt.octokit(d.installationId);
  const loaded = await loadRepoConfig(octokit, d.owner, d.repo);
  if (loaded.kind !== "ok") return "not-onboarded";
  const floor = loaded.config.commands.minPermission;
  const permission = await getPermission(octokit, d, d.sender);
  if (!permissionAtLeast(permission, floor)) {
    await answerOnCheck(rt, d, {
      output: {
        title: d.title,
        summary: `${d.summary}\n\n> ${inlineCode(d.sender)} clicked **Scan anyway**, but it needs ${inlineCode(floor)} permission on this repository (they have ${inlineCode(permission)}). Nothing was launched.`,
      },
    });
    log.info({ sender: d.sender, permission }, "scan-anyway refused: below the permission floor");
    return "refused";
  }
  // One approval per check run and head, whatever the clicks and redeliveries.
  if (
    !(await rt.stores.pulls.claimOnce(
      "approve",
      `${d.owner}/${d.repo}/${d.checkRunId}/${d.headSha}`,
      d.deliveryId,
    ))
  ) {
    log.info({ sender: d.sender }, "scan-anyway already approved for this check run: nothing launched");
    return "duplicate";
  }
  // The pull request is the one diffward recorded for its check run; GitHub's `check_run.pull_requests`
  // is empty when the head is in a fork (GitHub REST "Check runs").
  const recorded = await rt.stores.pulls.getCheckRunOwner(d.owner, d.repo, d.checkRunId);
  const pullNumbers = [...new Set([...(recorded ? [recorded.pullNumber] : []), ...d.pullNumbers])];
  const launched = await enqueueApproved(rt, octokit, d, pullNumbers);
  if (launched === 0) {
    await answerOnCheck(rt, d, {
      output: {
        title: d.title,
        summary: `${d.summary}\n\n> ${inlineCode(d.sender)} clicked **Scan anyway**, but the pull request is closed or has a newer head: nothing was launched.`,
      },
      actions: [],
    });
    log.info({ sender: d.sender, pullNumbers }, "scan-anyway: no open pull request on this head");
    return "stale";
  }
  // A completed check run cannot go back to in progress: the scan runs in a new check run of the same
  // name (GitHub shows the newest), and this one says who approved it.
  await answerOnCheck(rt, d, {
    output: {
      title: `Approved by ${d.sender}: scanning in a new check run`,
      summary: `${d.summary}\n\n> ${inlineCode(d.sender)} clicked **Scan anyway**; the scan runs in a new \`diffward\` check run on this commit.`,
    },
    // The button goes once approved (GitHub REST "Update a check run": `actions` replaces the buttons).
    actions: [],
  });
  log.info({ sender: d.sender }, "scan-anyway approved");
  return "approved";
}

/** The check run's answer to the click: one planned update, applied through the installation's write path. */
async function answerOnCheck(rt: Runtime, d: ApproveJobData, check: CheckRunUpdate): Promise<void> {
  await applyWrites(rt, d.installationId, [updateCheck(d, d.checkRunId, check, "answer")]);
}

/**
 * Enqueues the approved scan of each pull request still open on the clicked head, as an explicit request
 * approved by the sender (one `pull-request` job per pull request and click).
 * @returns how many were enqueued (0: every pull request is closed or has a newer head).
 */
async function enqueueApproved(
  rt: Runtime,
  octokit: InstallationOctokit,
  d: ApproveJobData,
  pullNumbers: readonly number[],
): Promise<number> {
  let launched = 0;
  for (const pullNumber of pullNumbers) {
    const pr = await getPull(octokit, { owner: d.owner, repo: d.repo, pullNumber });
    if (pr.state !== "open" || pr.headSha !== d.headSha) continue;
    const data: PullRequestJobData = {
      deliveryId: d.deliveryId,
      action: "scan-anyway",
      ...repoOf(d),
      ...pullHeadOf(pr, rt.now()),
      pullNumber,
      explicit: { nonce: d.deliveryId, requestedBy: d.sender, approvedBy: d.sender },
    };
    await addJob(rt, "pullRequest", data, { jobId: jobId("approved", d.deliveryId, pullNumber) });
    launched += 1;
  }
  return launched;
}
