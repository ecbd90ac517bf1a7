import type { ReportFinding } from "../../domain/types.js";
import { applyPullDecisions } from "../../triage/decisions.js";
import type { Runtime } from "../../runtime/runtime.js";
import { applyWrites } from "../../runtime/writes.js";
import type { PollJobData } from "../../job-catalogue/index.js";
import { decideReviewlessReport } from "./decide.js";
import { againstBaseline } from "../../report/baseline.js";
import type { BaselineInfo } from "../../render/baseline.js";
import { parseMergeGroupRef } from "../../domain/merge-group.js";
import { readReviewlessFacts, readScanFindings, type ReportRun } from "./steps.js";

/**
 * Reports a merge group's `COMPLETED` scan on the group's check run (`FAILED` and `CANCELLED` are concluded
 * by the report job, as a pull request's): pages through every finding (limit
 * 100), carries the triage decisions of the pull request the group names (the same findings, decided once),
 * and completes the check run with the conclusion ({@link planReport}'s verdict under `failOn`), the summary
 * (findings, guidance, credits reserved and spent, code scanning) and the annotations in batches of 50
 * (GitHub "Update a check run"). With `codeScanning.upload` and full disclosure, one SARIF upload with
 * `ref` = the group's `head_ref` and `commit_sha` = the group's head. No review and no
 * report state: a merge group has no pull request to comment on, and the pull request's own report must
 * stay the one its triage commands and reuse read. Credits not settled at report time get a `settle` job
 * that settles `creditCap.monthly`'s ledger once they land (`./settle.ts`; the group's check run keeps
 * "Spend not settled yet"). The steps shared with the other reports are in `./steps.ts`.
 */
export async function reportGroupScan(run: ReportRun): Promise<void> {
  const { rt, tenant, d, scan, log } = run;
  const raw = await readScanFindings(tenant, d);
  const findings: ReportFinding[] =
    d.pullNumber > 0 ? await applyPullDecisions(rt, tenant, d, raw, log) : raw;
  const baseline = await groupBaseline(rt, d, findings);
  // creditCap.monthly: a settled group scan counts what it spent, no longer its budget; one not settled yet
  // is looked at again later, for the ledger only (the group has no report state). One SARIF upload per
  // group report, on the group's ref and head.
  const read = await readReviewlessFacts(run, findings, baseline ? { baseline } : {});
  // a merge group has no review comments: nothing is planned inline (no files, no posted comments)
  const { completion, conclusion, annotations } = decideReviewlessReport(rt.settings, d, scan, {
    ...read,
    note: `**Merge group** ${d.pullNumber > 0 ? `for pull request #${d.pullNumber}, ` : ""}scanned against its base: no review is posted (a merge group has no pull request); the findings are below and annotated on the files.`,
  });
  await applyWrites(rt, d.installationId, completion);
  await rt.stores.pulls.finishScan(d.installationId, d.scanId);
  log.info(
    { conclusion, findings: findings.length, annotations: annotations.length },
    "merge group scan reported",
  );
}

/**
 * The merge group's findings against its base branch's last completed baseline (the branch its `head_ref`
 * names, `gh-readonly-queue/<base>/pr-…`), as a pull request's report has them, so `failOn: {only: new}`
 * blocks the group on the same findings as the pull request.
 */
async function groupBaseline(
  rt: Runtime,
  d: PollJobData,
  findings: readonly ReportFinding[],
): Promise<BaselineInfo | undefined> {
  const branch =
    d.target?.kind === "merge-group" ? parseMergeGroupRef(d.target.headRef)?.baseBranch : undefined;
  if (!branch) return undefined;
  return againstBaseline(
    await rt.stores.baselines.getReport(d.owner, d.repo),
    branch,
    findings,
    d.config,
  );
}
