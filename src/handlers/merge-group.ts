import type { MergeGroupJobData } from "../job-catalogue/index.js";
import { jobId } from "../runtime/names.js";
import type { EventHandler } from "./deps.js";
import { enqueueEvent, repoContext } from "./deps.js";

/** A merge group to check, or one that is gone (GitHub "Webhook events and payloads", `merge_group`). */
type MergeGroupEvent = "merge_group.checks_requested" | "merge_group.destroyed";

/**
 * `merge_group` `checks_requested` and `destroyed` (GitHub "Webhook events and payloads", `merge_group`):
 * enqueue one job (id from the delivery id, so a redelivery collapses into it). The job creates or stops the
 * group's `diffward` check run; nothing here calls GitHub or the service.
 */
export const onMergeGroup: EventHandler<MergeGroupEvent> = async (deps, context, installationId) => {
  const { payload } = context;
  if (!payload.repository) return;
  const g = payload.merge_group;
  const data: MergeGroupJobData = {
    deliveryId: context.id,
    ...repoContext(payload as Parameters<typeof repoContext>[0], installationId),
    headSha: g.head_sha,
    headRef: g.head_ref,
    baseSha: g.base_sha,
    baseRef: g.base_ref,
    ...(g.head_commit?.message ? { headCommitMessage: g.head_commit.message } : {}),
    ...(payload.action === "destroyed" && payload.reason ? { reason: payload.reason } : {}),
  };
  const destroyed = payload.action === "destroyed";
  await enqueueEvent(
    deps,
    destroyed ? "mergeGroupDestroyed" : "mergeGroup",
    data,
    jobId(destroyed ? "mg-destroyed" : "mg", context.id),
  );
};
