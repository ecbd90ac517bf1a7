/**
 * How a scan's check run ends when there is no report to post: the scan ended `FAILED` or `CANCELLED`, the
 * service lost it, it ran past `scanTimeoutMinutes`, its result could not be read, the report itself failed,
 * or the account's scanner token stayed missing. Every job that follows a scan (poll, report, and the
 * service-error handling they share) concludes its check run with one of these, so no check run diffward
 * created stays `in_progress`. Each is pure: it plans the one concluding write (`concludeCheck`), and the job
 * applies it through the write path (`src/runtime/apply-writes.ts`). Messages say what happened, why and what next.
 */
import { concludeCheck, type GitHubWrite } from "../github/writes.js";
import { renderLaunchError } from "../render/check-run.js";
import { codeBlock, inlineCode } from "../render/escape.js";

/** The check run of a followed scan, as an ending names it (a part of every scan job's data). */
export interface ScanCheckRun {
  owner: string;
  repo: string;
  checkRunId: number;
  /** the service's scan id */
  scanId: string;
}

/**
 * The check-run write that ends a scan that did not complete (`FAILED` or `CANCELLED`); a cancel made with
 * `/diffward cancel` names who made it (`cancelledBy`, a GitHub login). Pure.
 */
export function planScanEnded(
  d: ScanCheckRun,
  status: "FAILED" | "CANCELLED",
  cancelledBy?: string,
): GitHubWrite[] {
  const output =
    status === "CANCELLED"
      ? renderLaunchError("scan_cancelled", {
          scanId: d.scanId,
          ...(cancelledBy ? { cause: { kind: "command" as const, login: cancelledBy } } : {}),
        })
      : renderLaunchError("scan_failed", { scanId: d.scanId });
  return concludeCheck(d, status === "CANCELLED" ? "cancelled" : "failure", output);
}

/** The check-run write for a scan the service no longer knows (404 on its read). Pure. */
export function planScanLost(d: ScanCheckRun, message: string): GitHubWrite[] {
  return concludeCheck(
    d,
    "failure",
    renderLaunchError("scan_failed", {
      scanId: d.scanId,
      message: `The service no longer knows this scan: ${message}`,
    }),
  );
}

/**
 * The check-run write for a scan still running after `scanTimeoutMinutes` (cancelled). Pure.
 * @param d.launchedAt ms since epoch when the scan was launched; `d.lastPercent` the last progress shown.
 * @param now ms since epoch.
 */
export function planScanTimedOut(
  d: ScanCheckRun & { launchedAt: number; lastPercent?: number },
  now: number,
): GitHubWrite[] {
  return concludeCheck(
    d,
    "timed_out",
    renderLaunchError("timed_out", {
      waitedSeconds: Math.round((now - d.launchedAt) / 1000),
      scanId: d.scanId,
      ...(d.lastPercent !== undefined ? { lastPercent: d.lastPercent } : {}),
    }),
  );
}

/**
 * The check-run write for a scan whose result cannot be read (an answer outside the spec's schema, a 4xx,
 * retryable errors past the job's attempts, or an answer over the client's caps: `ScannerLimitError`): `failure` with
 * what happened, why and what to do. Pure.
 */
export function planScanUnreadable(
  d: ScanCheckRun,
  error: { message: string; retryable: boolean; kind?: string },
  attempts: number,
): GitHubWrite[] {
  // a ScannerLimitError: the answer was bigger than diffward reads from the service
  const tooLarge = error.kind === "response-bytes" || error.kind === "pages" || error.kind === "items";
  return concludeCheck(d, "failure", {
    title: "Scan result could not be read",
    summary: [
      `**What happened:** diffward could not read the result of scan ${inlineCode(d.scanId)} from the scanning service.`,
      tooLarge
        ? "**Why:** the service's answer is larger than diffward accepts (a cap that keeps one oversized answer from exhausting the app's memory), so the report was not built."
        : error.retryable
          ? `**Why:** the service kept failing after ${attempts} attempts.`
          : "**Why:** the service's answer does not match its documented format, so diffward cannot trust it.",
      "**What next:** comment `/diffward rescan` or push again; if it persists, contact the service's support with the scan id.",
      `The error was:\n\n${codeBlock(error.message)}`,
    ].join("\n\n"),
  });
}

/**
 * The check-run write for a report that could not be built or posted on the job's last attempt, whatever
 * the error (a rendering bug, a GitHub refusal, a lost connection): `failure` with what happened and what
 * to do, so no check run stays `in_progress`. GitHub shows **Re-run** on every check run of an App that
 * handles `check_run.rerequested` ("Checks": https://docs.github.com/en/rest/guides/using-the-rest-api-to-interact-with-checks#check-runs-and-requested-actions),
 * which starts the scan again. The error's message is shown as code (inert). Pure.
 */
export function planReportFailed(d: ScanCheckRun, error: unknown, attempts: number): GitHubWrite[] {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return concludeCheck(d, "failure", {
    title: "Report could not be posted",
    summary: [
      `**What happened:** scan ${inlineCode(d.scanId)} finished, but diffward could not build or post its report.`,
      `**Why:** an error diffward did not expect, ${attempts} ${attempts === 1 ? "attempt" : "attempts"} in a row.`,
      "**What next:** use **Re-run** on this check or push again; if it persists, tell whoever runs diffward (the error is in its logs with this scan id).",
      `The error was:\n\n${codeBlock(message.slice(0, 2_000))}`,
    ].join("\n\n"),
  });
}

/**
 * The check-run write for a scan diffward could not follow to its end because the account's scanner token
 * stayed missing for `waitedMs` (ms): `failure`, with what happened, why and what to do. Pure.
 * @param d.accountLogin the installation's account, whose token is missing.
 */
export function planTokenMissing(
  d: ScanCheckRun & { accountLogin: string },
  waitedMs: number,
): GitHubWrite[] {
  const minutes = Math.max(1, Math.round(waitedMs / 60_000));
  return concludeCheck(d, "failure", {
    title: "Scanning service token missing",
    summary: [
      `**What happened:** scan ${inlineCode(d.scanId)} was launched, but diffward has had no scanning service token for ${inlineCode(d.accountLogin)} for ${minutes} minute${minutes === 1 ? "" : "s"} while following it, so it cannot read the result.`,
      "**Why:** the account's token is no longer in diffward's settings (`SCANNER_TOKEN` or the tokens file).",
      "**What next:** restore the token, then comment `/diffward rescan` or push again. The scan was not cancelled; its result stays in the scanning service.",
    ].join("\n\n"),
  });
}
