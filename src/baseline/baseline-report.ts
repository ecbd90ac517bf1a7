import { renderBaselineNote } from "./render-baseline.js";
import { decideReviewlessReport } from "../report/decide/decide-report.js";
import { readExtras, readScanFindings } from "../report/read/scan-facts.js";
import type { ReportRun } from "../report/report-run.js";
import { saveBaselineReport } from "./baseline-writes.js";
import { completeOnce, settleAndUpload } from "../report/write/scan-writes.js";

/**
 * Reports a default-branch baseline's `COMPLETED` scan on the commit's check run (`FAILED` and `CANCELLED`
 * are concluded by the report job, as a pull request's, and mark the baseline reported): pages through every finding, and completes the check run
 * with the conclusion under `failOn` (`planReport`'s verdict), the summary (a baseline note, the
 * counts by severity, credits reserved and spent, code scanning) and the annotations in batches of 50. No
 * review and no comments: a commit on the default branch has no pull request. With `codeScanning.upload`
 * and full disclosure, one SARIF upload with `ref` = `refs/heads/<default branch>` and `commit_sha` = the
 * commit, with the tool name, category and fingerprints of pull request uploads, so GitHub compares pull
 * requests with this analysis and closes alerts that a later baseline no longer reports. The open findings'
 * fingerprints are kept as the branch's baseline, which pull request reports compare with. Credits not
 * settled yet get a `settle` job for `creditCap.monthly`'s ledger (as a merge group's).
 * Read (`./read/`) → decide (`./decide/`, pure) → write (`./write/`).
 */
export async function reportBaselineScan(run: ReportRun): Promise<void> {
  const { rt, tenant, d, scan, log } = run;
  const findings = await readScanFindings(tenant, d);
  const extras = await readExtras(run);
  const codeScanning = await settleAndUpload(run, findings, extras.credits);
  const branch = d.target?.kind === "baseline" ? d.target.branch : d.defaultBranch;
  const { completion, conclusion, annotations } = decideReviewlessReport(rt.settings, d, scan, {
    findings,
    extras,
    codeScanning,
    note: renderBaselineNote({ branch, headSha: d.headSha, presetName: scan.presetName ?? d.presetRef }),
    subject: "commit",
  });
  await completeOnce(rt, d, completion);
  await saveBaselineReport(rt, d, branch, findings);
  await rt.stores.scans.finishScan(d.installationId, d.scanId);
  log.info(
    { conclusion, findings: findings.length, annotations: annotations.length, branch },
    "baseline scan reported",
  );
}
