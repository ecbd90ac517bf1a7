import type { ApproveJobData, PullRequestJobData } from "../job-catalogue/index.js";
import { jobId } from "../runtime/names.js";
import type { EventHandler } from "./deps.js";
import { enqueueEvent, repoContext } from "./deps.js";
import { SCAN_ANYWAY } from "../render/gate-refusals.js";

/** The "Re-run" buttons' events (GitHub "Webhook events and payloads", `check_run` and `check_suite`). */
type RerunEvent = "check_run.rerequested" | "check_suite.rerequested";

/** A click on one of a check run's buttons (GitHub "Webhook events and payloads", `check_run`). */
type ActionEvent = "check_run.requested_action";

interface PullRef {
  number: number;
  head: { sha: string; ref: string; repo?: { id: number } };
  base: { ref: string; repo?: { id: number } };
}

/**
 * `check_run.rerequested` and `check_suite.rerequested` (the "Re-run" buttons): an explicit request (one per
 * delivery), so a fresh scan is launched for that head even when one already ran (automatic triggers
 * collapse into one scan: `launchKey` in src/runtime/names.ts). Re-runs of one head collapse while an
 * earlier Re-run's scan of it is queued or running: the pull-request job answers on that check run instead
 * (`rerunToCollapseInto` in src/scan/decide-pull-request.ts).
 * GitHub sends these only to the app that created the check run or suite.
 */
export const onRerequested: EventHandler<RerunEvent> = async (deps, context, installationId) => {
  const { payload } = context;
  const pulls: PullRef[] =
    "check_run" in payload
      ? (payload.check_run.pull_requests as PullRef[])
      : (payload.check_suite.pull_requests as PullRef[]);
  for (const pr of pulls) {
    const data: PullRequestJobData = {
      deliveryId: context.id,
      action: "rerequested",
      ...repoContext(payload, installationId),
      pullNumber: pr.number,
      headSha: pr.head.sha,
      headRef: pr.head.ref,
      baseRef: pr.base.ref,
      draft: false,
      updatedAt: new Date().toISOString(),
      authorLogin: payload.sender.login,
      title: "",
      // Same repository only when GitHub says so (head and base repository ids); otherwise the fork gate
      // applies (it fails closed: `headIsFork`).
      ...(pr.head.repo && pr.base.repo && pr.head.repo.id === pr.base.repo.id
        ? { headRepoFullName: payload.repository.full_name }
        : {}),
      explicit: { nonce: context.id, requestedBy: payload.sender.login },
    };
    await enqueueEvent(deps, "rerequest", data, jobId("rerun", context.id, pr.number));
  }
};

/**
 * `check_run.requested_action` with identifier `scan-anyway`: enqueue the approval job, which checks the
 * clicking user's permission (the handler makes no GitHub call).
 */
export const onRequestedAction: EventHandler<ActionEvent> = async (deps, context, installationId) => {
  const { payload } = context;
  if (payload.requested_action?.identifier !== SCAN_ANYWAY) return;
  if (payload.sender.type === "Bot") return;
  const data: ApproveJobData = {
    deliveryId: context.id,
    ...repoContext(payload, installationId),
    checkRunId: payload.check_run.id,
    headSha: payload.check_run.head_sha,
    pullNumbers: (payload.check_run.pull_requests as PullRef[]).map((p) => p.number),
    sender: payload.sender.login,
    title: payload.check_run.output?.title ?? "Waiting for approval",
    summary: payload.check_run.output?.summary ?? "",
  };
  await enqueueEvent(deps, "approve", data, jobId("approve", context.id));
};
