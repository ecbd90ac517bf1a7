import { jobId } from "../runtime/names.js";
import type { AlertJobData } from "../job-catalogue/index.js";
import { TOOL_NAME } from "../code-scanning/index.js";
import type { EventHandler } from "./deps.js";
import { enqueueEvent, repoContext } from "./deps.js";
import { isBot } from "./comments.js";

/** A person's change of an alert's state (GitHub "Webhook events and payloads", `code_scanning_alert`). */
type AlertEvent = "code_scanning_alert.closed_by_user" | "code_scanning_alert.reopened_by_user";

/**
 * `code_scanning_alert.closed_by_user` and `.reopened_by_user` on an alert of tool `diffward`, by a person:
 * one `code-scanning-alert` job (README "GitHub code scanning"). Bots (diffward's own dismissals) and other
 * tools' alerts are dropped here; the job checks the sender's permission and finds the finding. The delivery
 * id makes the job id, so a redelivered webhook collapses into the same job.
 */
export const onCodeScanningAlert: EventHandler<AlertEvent> = async (deps, context, installationId) => {
  const { payload } = context;
  const alert = payload.alert;
  if (alert.tool?.name !== TOOL_NAME || isBot(payload.sender)) return;
  const instance = alert.most_recent_instance;
  const data: AlertJobData = {
    deliveryId: context.id,
    ...repoContext(payload, installationId),
    action: payload.action,
    alertNumber: alert.number,
    toolName: alert.tool?.name ?? null,
    senderLogin: payload.sender.login,
    senderType: payload.sender.type ?? null,
    dismissedReason: "dismissed_reason" in alert ? (alert.dismissed_reason ?? null) : null,
    dismissedComment: "dismissed_comment" in alert ? (alert.dismissed_comment ?? null) : null,
    messageText: instance?.message?.text ?? "",
    ref: instance?.ref || payload.ref || null,
  };
  await enqueueEvent(deps, "codeScanningAlert", data, jobId("alert", context.id));
};
