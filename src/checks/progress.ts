import { updateCheck, type GitHubWrite } from "../github/writes.js";
import { renderProgress } from "../render/check-run.js";

/**
 * The progress write of a running scan: percent (rounded, at least 0) and phases on the check run, status
 * `in_progress` (a `progress` write: last in the write lane's order, `WRITE_PRIORITY` of `src/github/writes.ts`,
 * and left out when the installation's write budget is kept for completions). Pure.
 * @param scan the scan as read (spec `GET /projects/{projectId}/scans/{scanId}`: `status`, `progress`).
 */
export function planProgress(
  d: { owner: string; repo: string; checkRunId: number },
  scan: {
    status: string;
    progress?: { percent?: number; phasesCompleted?: number; phasesTotal?: number } | null;
  },
): GitHubWrite[] {
  const percent = scan.progress?.percent ?? 0;
  return [
    updateCheck(d, d.checkRunId, {
      status: "in_progress",
      output: renderProgress(
        Math.max(0, Math.round(percent)),
        scan.progress?.phasesCompleted ?? 0,
        scan.progress?.phasesTotal ?? 0,
        scan.status,
      ),
    }),
  ];
}
