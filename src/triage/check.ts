import type { Logger } from "pino";
import { updateCheckRun } from "../github/checks.js";
import type { InstallationOctokit } from "../github/types.js";
import type { ReportFinding } from "../domain/types.js";
import { decideConclusion, isRuledOut, type Verdict } from "../domain/verdict.js";
import { renderCheckRunOutput } from "../render/check-run.js";
import { toReportFinding } from "../report/findings.js";
import type { ScannerTenant } from "../tenants/index.js";
import type { ReportState } from "../queue/jobs/report.js";
import { pullKey } from "../queue/names.js";
import type { Runtime } from "../queue/runtime.js";

/**
 * The check run follows the decisions (issue 4, point 5): re-reads every finding of the pull request's
 * last reported scan from the service (`GET …/findings?scanId=…`, pages of 100), recomputes the conclusion
 * with `decideConclusion` and the summary with `renderCheckRunOutput` (as the report does), updates the
 * check run (GitHub REST "Update a check run"; earlier annotations stay) and the stored report state.
 * Triaging the last blocking finding turns the check `success`; reopening one turns it `failure`.
 * @returns the new verdict, or `undefined` when the pull request has no reported scan.
 */
export async function recomputeCheck(
  rt: Runtime,
  octokit: InstallationOctokit,
  tenant: ScannerTenant,
  pull: { owner: string; repo: string; pullNumber: number },
  log: Logger,
): Promise<Verdict | undefined> {
  const key = pullKey(pull.owner, pull.repo, pull.pullNumber);
  const report = await rt.state.getJson<ReportState>("report", key);
  if (!report) return undefined;
  const findings: ReportFinding[] = [];
  for await (const f of tenant.client.iterateFindings(report.projectId, {
    scanId: report.scanId,
    limit: 100,
  }))
    findings.push(toReportFinding(f));
  const cfg = report.config;
  const disclosure = cfg.disclosure ?? "full";
  const commented = new Set(report.findings.filter((f) => f.commentId !== undefined).map((f) => f.id));
  const output = renderCheckRunOutput({
    scan: {
      id: report.scanId,
      status: "COMPLETED",
      presetName: report.presetRef,
      ...(report.creditBudget !== undefined ? { creditBudget: report.creditBudget } : {}),
      commitHash: report.headSha,
    },
    findings,
    failOn: cfg.failOn,
    disclosure,
    labelPrefix: rt.settings.labelPrefix,
    ...(rt.settings.publicUrl ? { serviceUrl: rt.settings.publicUrl } : {}),
    inlineCount: commented.size,
    notInline: findings.filter((f) => !commented.has(f.id) && !isRuledOut(f)),
    ...(report.extras?.guidance ? { guidance: report.extras.guidance } : {}),
    ...(report.extras?.credits ? { credits: report.extras.credits } : {}),
    ...(report.extras?.warnings.length ? { warnings: report.extras.warnings } : {}),
  });
  const verdict = decideConclusion(findings, cfg.failOn);
  const conclusion = report.configInvalidInPull ? "failure" : verdict.conclusion;
  await updateCheckRun(octokit, pull, report.checkRunId, { conclusion, output });

  // Keep the stored report in step, unless a newer report replaced it meanwhile.
  const latest = await rt.state.getJson<ReportState>("report", key);
  if (latest && latest.scanId === report.scanId) {
    const byId = new Map(findings.map((f) => [f.id, f]));
    await rt.state.putJson("report", key, {
      ...latest,
      findings: latest.findings.map((f) => {
        const now = byId.get(f.id);
        return now ? { ...f, severity: now.severity, resolutionStatus: now.resolutionStatus } : f;
      }),
    } satisfies ReportState);
  }
  log.info({ conclusion: verdict.conclusion, blocking: verdict.blocking }, "check run recomputed");
  return verdict;
}
