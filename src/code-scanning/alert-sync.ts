/**
 * Service → GitHub (README "GitHub code scanning"): a resolution set from the pull request dismisses the
 * finding's code scanning alert, or reopens it on `/reopen`.
 */
import type { Logger } from "pino";
import { listCodeScanningAlerts, type AlertChange, type CodeScanningAlert } from "../github/code-scanning.js";
import type { InstallationOctokit, PullRef } from "../github/octokit-types.js";
import type { ApplyWrites } from "../github/writes.js";
import { LABEL_LENGTH } from "../scanner/labels.js";
import { planAlertUpdate } from "./alert-mapping.js";
import { findingIdFromMessage, TOOL_NAME } from "./sarif-log.js";

/** What {@link syncAlertWithResolution} did. */
export type AlertSyncOutcome = "dismissed" | "reopened" | "unchanged" | "no-alert" | "unavailable";

/** True when an alert's message ({@link alertMessage}) names the finding `findingId`. */
export function alertNamesFinding(alert: Pick<CodeScanningAlert, "messageText">, findingId: string): boolean {
  const named = findingIdFromMessage(alert.messageText);
  if (!named) return false;
  if ("id" in named) return named.id === findingId;
  return (
    findingId.length >= LABEL_LENGTH && named.label.slice(-LABEL_LENGTH) === findingId.slice(-LABEL_LENGTH)
  );
}

/**
 * Brings the finding's alert on the pull request's ref (`refs/pull/<n>/head`, tool `diffward`) in step
 * with a resolution set from the pull request, by {@link planAlertUpdate}: a closing resolution dismisses
 * an open alert with the mapped reason and a `diffward:` comment (whose webhook echo is ignored), `NOT_STARTED`
 * reopens a dismissed one, anything else changes nothing (so a repeated command writes once).
 * GitHub calls: "List code scanning alerts for a repository" (`tool_name`, `ref`), then at most one
 * "Update a code scanning alert" (a planned write applied with `apply`). Never throws: code scanning missing or the permission absent (403/404),
 * or any other failure, is logged and returned as `unavailable`, since the resolution itself is set.
 */
export async function syncAlertWithResolution(
  octokit: InstallationOctokit,
  apply: ApplyWrites,
  pull: PullRef,
  decision: { findingId: string; resolutionStatus: string; reason?: string; by: string; approvedBy?: string },
  log: Logger,
): Promise<AlertSyncOutcome> {
  const update = (alertNumber: number, change: AlertChange) =>
    apply([{ kind: "update-code-scanning-alert", repo: pull, alertNumber, change, purpose: "answer" }]);
  try {
    const alerts = await listCodeScanningAlerts(octokit, pull, {
      toolName: TOOL_NAME,
      ref: `refs/pull/${pull.pullNumber}/head`,
    });
    const alert = alerts.find((a) => alertNamesFinding(a, decision.findingId));
    if (!alert) return "no-alert";
    const plan = planAlertUpdate(alert, decision);
    if (plan.kind === "none") {
      log.info({ alert: alert.number, why: plan.why }, "code scanning alert left as it is");
      return "unchanged";
    }
    if (plan.kind === "reopen") {
      await update(alert.number, { state: "open" });
      log.info({ alert: alert.number, finding: decision.findingId }, "code scanning alert reopened");
      return "reopened";
    }
    await update(alert.number, { state: "dismissed", reason: plan.reason, comment: plan.comment });
    log.info(
      { alert: alert.number, finding: decision.findingId, reason: plan.reason },
      "code scanning alert dismissed",
    );
    return "dismissed";
  } catch (error) {
    log.warn(
      { status: (error as { status?: number }).status, err: error },
      "code scanning alert not updated",
    );
    return "unavailable";
  }
}
