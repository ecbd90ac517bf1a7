import type { ReportFinding } from "../domain/finding-types.js";
import { applyWrites } from "../runtime/apply-writes.js";
import { applyPullDecisions } from "../triage/index.js";
import { decideReviewlessReport } from "./decide/decide-report.js";
import { readGroupBaseline } from "./read/base-branch.js";
import { readExtras, readScanFindings } from "./read/scan-facts.js";
import type { ReportRun } from "./report-run.js";
import { settleAndUpload } from "./write/scan-writes.js";

/**
 * Reports a merge group's `COMPLETED` scan on the group's check run (`FAILED` and `CANCELLED` are concluded
 * by the report job, as a pull request's): pages through every finding (limit
 * 100), carries the triage decisions of the pull request the group names (the same findings, decided once),
 * and completes the check run with the conclusion (`planReport`'s verdict under `failOn`), the summary
 * (findings, guidance, credits reserved and spent, code scanning) and the annotations in batches of 50
 * (GitHub "Update a check run"). With `codeScanning.upload` and full disclosure, one SARIF upload with
 * `ref` = the group's `head_ref` and `commit_sha` = the group's head. No review and no
 * report state: a merge group has no pull request to comment on, and the pull request's own report must
 * stay the one its triage commands and reuse read. Credits not settled at report time get a `settle` job
 * that settles `creditCap.monthly`'s ledger once they land (`src/scan/settle.ts`; the group's check run keeps
 * "Spend not settled yet"). Read (`./read/`) → decide (`./decide/`, pure) → write (`./write/`).
 */
export async function reportGroupScan(run: ReportRun): Promise<void> {
  const { rt, tenant, d, scan, log } = run;
  const raw = await readScanFindings(tenant, d);
  const findings: ReportFinding[] =
    d.pullNumber > 0 ? await applyPullDecisions(rt, tenant, d, raw, log) : raw;
  const baseline = await readGroupBaseline(rt, d, findings);
  const extras = await readExtras(run, baseline ? { baseline } : {});
  // creditCap.monthly: a settled group scan counts what it spent, no longer its budget; one not settled yet
  // is looked at again later, for the ledger only (the group has no report state). One SARIF upload per
  // group report, on the group's ref and head.
  const codeScanning = await settleAndUpload(run, findings, extras.credits);
  // a merge group has no review comments: nothing is planned inline (no files, no posted comments)
  const { completion, conclusion, annotations } = decideReviewlessReport(rt.settings, d, scan, {
    findings,
    extras,
    codeScanning,
    note: `**Merge group** ${d.pullNumber > 0 ? `for pull request #${d.pullNumber}, ` : ""}scanned against its base: no review is posted (a merge group has no pull request); the findings are below and annotated on the files.`,
  });
  await applyWrites(rt, d.installationId, completion);
  await rt.stores.scans.finishScan(d.installationId, d.scanId);
  log.info(
    { conclusion, findings: findings.length, annotations: annotations.length },
    "merge group scan reported",
  );
}
