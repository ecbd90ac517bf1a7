import { listAll, readUnless404, type InstallationOctokit, type RepoRef } from "./octokit-types.js";

/**
 * Reasons GitHub accepts when an alert is dismissed (REST "Update a code scanning alert",
 * `dismissed_reason`; webhook `code_scanning_alert.closed_by_user`, `alert.dismissed_reason`).
 * The REST description (@octokit/openapi 23) also lists `mitigated`, which the webhook schema does not:
 * diffward never sends it.
 */
export type AlertDismissedReason = "false positive" | "won't fix" | "used in tests";

/** GitHub's limit on `dismissed_comment`, in characters (REST "Update a code scanning alert"). */
export const DISMISSED_COMMENT_MAX_CHARS = 280;

/** A code scanning alert, as far as diffward reads it. */
export interface CodeScanningAlert {
  number: number;
  state: "open" | "dismissed" | "fixed" | string;
  toolName: string | null;
  ruleId: string | null;
  dismissedReason: string | null;
  dismissedComment: string | null;
  dismissedBy: string | null;
  /** `most_recent_instance.message.text`: diffward writes the finding's label and id there */
  messageText: string;
  /** `most_recent_instance.ref`, e.g. `refs/pull/7/head` */
  ref: string | null;
  htmlUrl: string;
}

interface RawAlert {
  number: number;
  state?: string | null;
  html_url?: string;
  tool?: { name?: string | null } | null;
  rule?: { id?: string | null } | null;
  dismissed_reason?: string | null;
  dismissed_comment?: string | null;
  dismissed_by?: { login?: string } | null;
  most_recent_instance?: { ref?: string; message?: { text?: string } } | null;
}

/** Reads the fields diffward uses from a REST or webhook alert object; missing parts become `null`/"". */
export function toCodeScanningAlert(a: RawAlert): CodeScanningAlert {
  return {
    number: a.number,
    state: a.state ?? "open",
    toolName: a.tool?.name ?? null,
    ruleId: a.rule?.id ?? null,
    dismissedReason: a.dismissed_reason ?? null,
    dismissedComment: a.dismissed_comment ?? null,
    dismissedBy: a.dismissed_by?.login ?? null,
    messageText: a.most_recent_instance?.message?.text ?? "",
    ref: a.most_recent_instance?.ref ?? null,
    htmlUrl: a.html_url ?? "",
  };
}

/** What {@link uploadSarif} sends (GitHub REST "Upload an analysis as SARIF data"). */
export interface SarifUpload {
  /** the analysed commit (40 or 64 hex characters) */
  commitSha: string;
  /** `refs/pull/<number>/head` for a pull request, `refs/heads/<branch>` for a branch */
  ref: string;
  /** gzip-compressed SARIF, Base64-encoded */
  sarif: string;
  toolName: string;
  /** ISO 8601 time the analysis began */
  startedAt?: string;
}

/**
 * Uploads one analysis: `POST /repos/{owner}/{repo}/code-scanning/sarifs` (GitHub REST "Upload an analysis
 * as SARIF data": needs `security_events: write`; 202 with the upload's `id`; at most 1,000 calls per hour
 * per installation). Errors are Octokit's `RequestError` (403 when code scanning is unavailable on the
 * repository or the permission is missing, 413 when the file is too large, 422 for a bad body).
 * @returns the SARIF upload id.
 */
export async function uploadSarif(
  octokit: InstallationOctokit,
  repo: RepoRef,
  upload: SarifUpload,
): Promise<string> {
  const { data } = await octokit.rest.codeScanning.uploadSarif({
    owner: repo.owner,
    repo: repo.repo,
    commit_sha: upload.commitSha,
    ref: upload.ref,
    sarif: upload.sarif,
    tool_name: upload.toolName,
    ...(upload.startedAt ? { started_at: upload.startedAt } : {}),
  });
  return data.id ?? "";
}

/**
 * The alerts of one tool on one ref, every state (GitHub REST "List code scanning alerts for a
 * repository", `tool_name` and `ref` filters, paginated by 100).
 */
export const listCodeScanningAlerts = listAll(
  (octokit, repo, filter: { toolName: string; ref?: string; state?: "open" | "dismissed" | "fixed" }) =>
    octokit.paginate(octokit.rest.codeScanning.listAlertsForRepo, {
      ...repo,
      tool_name: filter.toolName,
      ...(filter.ref ? { ref: filter.ref } : {}),
      ...(filter.state ? { state: filter.state } : {}),
      per_page: 100,
    }),
  (a) => toCodeScanningAlert(a as RawAlert),
);

/** One alert by its number (GitHub REST "Get a code scanning alert"). A 404 is `undefined`. */
export const getCodeScanningAlert = readUnless404(
  (octokit, repo, alertNumber: number) =>
    octokit.rest.codeScanning.getAlert({ ...repo, alert_number: alertNumber }),
  (data) => toCodeScanningAlert(data as RawAlert),
);

/** A change of an alert's state: dismissed with a reason (and a comment), or reopened. */
export type AlertChange =
  { state: "dismissed"; reason: AlertDismissedReason; comment?: string } | { state: "open" };

/**
 * Dismisses (with a reason and a comment of at most {@link DISMISSED_COMMENT_MAX_CHARS} characters, cut
 * here) or reopens an alert: `PATCH /repos/{owner}/{repo}/code-scanning/alerts/{alert_number}` (GitHub REST
 * "Update a code scanning alert"; `dismissed_reason` is required when the state is `dismissed`).
 */
export async function updateCodeScanningAlert(
  octokit: InstallationOctokit,
  repo: RepoRef,
  alertNumber: number,
  change: AlertChange,
): Promise<CodeScanningAlert> {
  const { data } = await octokit.rest.codeScanning.updateAlert({
    owner: repo.owner,
    repo: repo.repo,
    alert_number: alertNumber,
    state: change.state,
    ...(change.state === "dismissed"
      ? {
          dismissed_reason: change.reason,
          ...(change.comment
            ? { dismissed_comment: [...change.comment].slice(0, DISMISSED_COMMENT_MAX_CHARS).join("") }
            : {}),
        }
      : {}),
  });
  return toCodeScanningAlert(data as RawAlert);
}
