import { writeBudget } from "../runtime/apply-writes.js";
import { decidePullReport } from "./decide/decide-report.js";
import { readPullReport } from "./read/scan-facts.js";
import type { ReportRun } from "./report-run.js";
import { saveReport, writePullReport } from "./write/pull-writes.js";
import { uploadReport } from "./write/scan-writes.js";

/**
 * Reports a `COMPLETED` scan on its pull request, in the pull-request job's shape (`FAILED` and `CANCELLED`
 * are concluded by the report job with a clear message):
 * 1. read ({@link readPullReport}): every finding (pages of 100) with the pull request's decisions, the
 *    pending approvals, files and review comments, the plan (`planReport`), the details of the
 *    findings shown inline, the extras; then the one SARIF upload ({@link uploadReport}), whose outcome the
 *    check run links to, and the hourly write budget;
 * 2. decided ({@link decidePullReport}, pure): output, annotations, degrade, writes;
 * 3. written ({@link writePullReport}): the check run completed with the summary and the annotations in
 *    batches of 50 (GitHub "Update a check run": at most 50 annotations per request; they accumulate),
 *    then existing comments of the same finding identity refreshed and ONE review (event `COMMENT`) with
 *    the new inline comments (complete first, review after);
 * 4. remembered ({@link saveReport}): the report state, threads of findings no longer reported, the spend.
 * A crash in between is retried: a Redis marker per scan keeps the retry from completing twice, and the
 * comment markers already on the pull request from posting twice.
 */
export async function reportScan(run: ReportRun): Promise<void> {
  const { rt, octokit, d, scan, log } = run;
  const read = await readPullReport(run);
  const codeScanning = await uploadReport(rt, d, read.findings, log);
  const facts = { ...read, codeScanning, budget: await writeBudget(rt, d.installationId) };
  const decision = decidePullReport(facts, d, scan, rt.settings);
  const commentIds = await writePullReport(rt, octokit, d, facts, decision);
  await saveReport(rt, octokit, d, scan, { facts, decision, commentIds }, log);
  log.info(
    {
      conclusion: decision.writes.conclusion,
      findings: facts.findings.length,
      inline: decision.shownPlan.post.length,
      updated: decision.shownPlan.update.length,
      degrade: decision.degradeLevel,
      annotations: decision.annotations.length,
    },
    "scan reported",
  );
}
