import type { BaselineJobData } from "../job-catalogue/index.js";
import { jobId } from "../runtime/names.js";
import type { EventHandler } from "./deps.js";
import { enqueueEvent, repoContext } from "./deps.js";

/** An all-zero SHA: the `after` of a push that deleted its ref (GitHub "Webhook events and payloads", `push`). */
const ZERO_SHA = /^0+$/;

/**
 * `push`: a push to the repository's default branch enqueues one `baseline-push` job (id from the delivery
 * id, so a redelivery collapses into it); the job reads `.github/diffward.yml` and starts a baseline when
 * `baseline.on: push`. Pushes to other branches, tag pushes and branch deletions enqueue nothing
 * (https://docs.github.com/en/webhooks/webhook-events-and-payloads#push: `ref` is the full ref,
 * `deleted` marks a deletion, whose `after` is all zeros).
 */
export const onPush: EventHandler<"push"> = async (deps, context, installationId) => {
  const p = context.payload;
  if (p.deleted || ZERO_SHA.test(p.after)) return;
  if (p.ref !== `refs/heads/${p.repository.default_branch}`) return;
  // a push's `repository.owner` is typed nullable (the push schema's owner is a nullable user)
  const owner = p.repository.owner;
  if (!owner?.login) return;
  const message = p.head_commit?.message;
  const data: BaselineJobData = {
    deliveryId: context.id,
    trigger: "push",
    ...repoContext({ repository: { ...p.repository, owner: { login: owner.login } } }, installationId),
    headSha: p.after,
    ...(message ? { commitMessage: message } : {}),
  };
  await enqueueEvent(deps, "baselinePush", data, jobId("push", context.id));
};
