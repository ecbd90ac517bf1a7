/**
 * The two directions of "triage kept in step" (README "GitHub code scanning"), as pure decisions:
 * GitHub alert dismissal/reopening → the finding's resolution on the service, and a resolution set from
 * the pull request → the alert's state on GitHub.
 */
import type { AlertDismissedReason, CodeScanningAlert } from "../github/code-scanning.js";
import type { ResolutionStatus } from "../scanner/catalog.js";
import { neutralize } from "../render/escape.js";
import { statusName } from "../render/glossary.js";
import { TOOL_NAME } from "./sarif-log.js";

/** A resolution to set on the service: status and, where the mapping gives one, a reason code. */
export interface MappedResolution {
  resolutionStatus: ResolutionStatus;
  reason?: string;
}

/**
 * The resolution a GitHub dismissal reason maps to: `false positive` → `FALSE_POSITIVE`,
 * `won't fix` → `WONT_FIX`, `used in tests` → `WONT_FIX` with reason `out_of_scope` (a code of the
 * `WONT_FIX` catalog, spec §Findings). Any other value (none, or one GitHub adds later) maps to nothing.
 */
export function resolutionForDismissal(reason: string | null | undefined): MappedResolution | undefined {
  switch (reason) {
    case "false positive":
      return { resolutionStatus: "FALSE_POSITIVE" };
    case "won't fix":
      return { resolutionStatus: "WONT_FIX" };
    case "used in tests":
      return { resolutionStatus: "WONT_FIX", reason: "out_of_scope" };
    default:
      return undefined;
  }
}

/**
 * The GitHub dismissal reason of a closing resolution: `FALSE_POSITIVE` → `false positive`, `WONT_FIX`
 * → `won't fix`; `RESOLVED`, `MITIGATED` and `DUPLICATE` have no counterpart among the reasons the
 * webhook schema knows and are dismissed as `won't fix` (no action on this alert), with the exact
 * resolution in the comment. `undefined` for the open states.
 */
export function dismissalReasonFor(status: string): AlertDismissedReason | undefined {
  switch (status) {
    case "FALSE_POSITIVE":
      return "false positive";
    case "WONT_FIX":
    case "RESOLVED":
    case "MITIGATED":
    case "DUPLICATE":
      return "won't fix";
    default:
      return undefined;
  }
}

/** Marks the dismissal comments diffward writes, so their webhook echo is recognised. */
export const DIFFWARD_COMMENT_PREFIX = "diffward:";

/**
 * What to do with an alert when a resolution was set from the pull request (pure):
 * - a closing resolution dismisses an `open` alert with {@link dismissalReasonFor} and a comment naming
 *   the resolution, its reason and who set it, and who approved it for a two-person dismissal (no `@`:
 *   logins are written as text);
 * - `NOT_STARTED` (`/reopen`) reopens a `dismissed` alert;
 * - anything else (`IN_PROGRESS`, an alert already in the target state, a `fixed` alert) changes nothing,
 *   so a repeated command dismisses the alert once.
 */
export function planAlertUpdate(
  alert: Pick<CodeScanningAlert, "state">,
  decision: { resolutionStatus: string; reason?: string; by: string; approvedBy?: string },
):
  | { kind: "dismiss"; reason: AlertDismissedReason; comment: string }
  | { kind: "reopen" }
  | { kind: "none"; why: string } {
  if (decision.resolutionStatus === "NOT_STARTED") {
    return alert.state === "dismissed"
      ? { kind: "reopen" }
      : { kind: "none", why: `alert is ${alert.state}` };
  }
  const reason = dismissalReasonFor(decision.resolutionStatus);
  if (!reason) return { kind: "none", why: `${decision.resolutionStatus} keeps the alert open` };
  if (alert.state !== "open") return { kind: "none", why: `alert is ${alert.state}` };
  const code = decision.reason ? ` (${decision.reason})` : "";
  const login = (l: string) => l.replace(/[^A-Za-z0-9_[\]-]/g, "");
  const approved = decision.approvedBy ? `, approved by GitHub user ${login(decision.approvedBy)}` : "";
  return {
    kind: "dismiss",
    reason,
    comment: `${DIFFWARD_COMMENT_PREFIX} resolution ${statusName(decision.resolutionStatus)}${code} set from the pull request by GitHub user ${login(decision.by)}${approved}.`,
  };
}

/** A `code_scanning_alert` event as the alert job sees it. */
export interface AlertEvent {
  action: string;
  toolName: string | null;
  senderLogin: string;
  senderType: string | null;
  dismissedReason: string | null;
  dismissedComment: string | null;
}

/** The decision of {@link planAlertEvent}. */
export type AlertEventPlan =
  { kind: "ignore"; why: string } | { kind: "set"; target: MappedResolution; note: string };

/**
 * Which resolution a `code_scanning_alert` event asks for (pure), before the finding and the sender's
 * permission are looked up:
 * - only `closed_by_user` and `reopened_by_user` on an alert of tool {@link TOOL_NAME};
 * - events diffward caused (a bot sender, or a dismissal comment diffward wrote) are ignored, so the
 *   two directions never loop;
 * - `closed_by_user` maps the dismissal reason with {@link resolutionForDismissal}; the note holds the
 *   GitHub login and the dismissal comment (untrusted text, quoted);
 * - `reopened_by_user` → `NOT_STARTED`.
 */
export function planAlertEvent(e: AlertEvent): AlertEventPlan {
  if (e.action !== "closed_by_user" && e.action !== "reopened_by_user")
    return { kind: "ignore", why: `action ${e.action}` };
  if (e.toolName !== TOOL_NAME) return { kind: "ignore", why: "not a diffward alert" };
  if (e.senderType === "Bot" || /\[bot\]$/i.test(e.senderLogin))
    return { kind: "ignore", why: "caused by a bot (diffward's own change)" };
  if (e.dismissedComment?.startsWith(DIFFWARD_COMMENT_PREFIX) && e.action === "closed_by_user")
    return { kind: "ignore", why: "dismissed by diffward" };
  if (e.action === "reopened_by_user") {
    return {
      kind: "set",
      target: { resolutionStatus: "NOT_STARTED" },
      note: `Reopened in GitHub code scanning by GitHub user \`${e.senderLogin}\`.`,
    };
  }
  const target = resolutionForDismissal(e.dismissedReason);
  if (!target) return { kind: "ignore", why: `unknown dismissal reason ${String(e.dismissedReason)}` };
  const comment = e.dismissedComment?.trim();
  return {
    kind: "set",
    target,
    note:
      `Dismissed in GitHub code scanning as "${e.dismissedReason}" by GitHub user \`${e.senderLogin}\`` +
      (comment ? `: ${quote(comment)}` : "."),
  };
}

/** A one-line quote of untrusted text, neutralized like any text diffward shows (src/render/escape.ts). */
function quote(text: string): string {
  return `“${neutralize(text.replace(/\s+/g, " ").slice(0, 1_000))}”`;
}
