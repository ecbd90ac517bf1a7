import type { Logger } from "pino";
import { updateCheckRun } from "../github/checks.js";
import type { InstallationOctokit } from "../github/types.js";
import type { ReportFinding } from "../domain/types.js";
import type { Verdict } from "../domain/verdict.js";
import { toReportFinding } from "../report/findings.js";
import { REPORT_KIND, type ReportState } from "../report/state.js";
import { renderPullVerdict, withCurrentFindings } from "../report/verdict.js";
import type { ScannerTenant } from "../tenants/index.js";
import { pullKey } from "../queue/names.js";
import type { Runtime } from "../queue/runtime.js";

/**
 * The check run follows the decisions (issue 4, point 5): re-reads every finding of the pull request's
 * last reported scan from the service (`GET …/findings?scanId=…`, pages of 100), renders the current
 * verdict with `renderPullVerdict` (`src/report/verdict.ts`, the builders the report uses), updates the
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
  const report = await rt.state.getJson<ReportState>(REPORT_KIND, key);
  if (!report) return undefined;
  const findings: ReportFinding[] = [];
  for await (const f of tenant.client.iterateFindings(report.projectId, {
    scanId: report.scanId,
    limit: 100,
  }))
    findings.push(toReportFinding(f));
  const rendered = renderPullVerdict(report, findings, {
    labelPrefix: rt.settings.labelPrefix,
    ...(rt.settings.publicUrl ? { publicUrl: rt.settings.publicUrl } : {}),
  });
  await updateCheckRun(octokit, pull, report.checkRunId, {
    conclusion: rendered.conclusion,
    output: rendered.output,
  });

  // Keep the stored report in step, unless a newer report replaced it meanwhile.
  const latest = await rt.state.getJson<ReportState>(REPORT_KIND, key);
  if (latest && latest.scanId === report.scanId) {
    await rt.state.putJson(REPORT_KIND, key, withCurrentFindings(latest, findings));
  }
  const { verdict } = rendered;
  log.info({ conclusion: verdict.conclusion, blocking: verdict.blocking }, "check run recomputed");
  return verdict;
}
