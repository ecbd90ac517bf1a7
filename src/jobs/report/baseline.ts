import { fingerprint } from "../../domain/identity.js";
import { isRuledOut } from "../../domain/verdict.js";
import { renderBaselineNote } from "../../render/baseline.js";
import { baselineKey } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { applyWrites } from "../../runtime/writes.js";
import type { PollJobData } from "../../job-catalogue/index.js";
import { decideReviewlessReport } from "./decide.js";
import { readReviewlessFacts, readScanFindings, type ReportRun } from "./steps.js";

/**
 * Reports a default-branch baseline's `COMPLETED` scan on the commit's check run (`FAILED` and `CANCELLED`
 * are concluded by the report job, as a pull request's, and mark the baseline reported): pages through every finding, and completes the check run
 * with the conclusion under `failOn` ({@link planReport}'s verdict), the summary (a baseline note, the
 * counts by severity, credits reserved and spent, code scanning) and the annotations in batches of 50. No
 * review and no comments: a commit on the default branch has no pull request. With `codeScanning.upload`
 * and full disclosure, one SARIF upload with `ref` = `refs/heads/<default branch>` and `commit_sha` = the
 * commit, with the tool name, category and fingerprints of pull request uploads, so GitHub compares pull
 * requests with this analysis and closes alerts that a later baseline no longer reports. The open findings'
 * fingerprints are kept as the branch's baseline, which pull request reports compare with. Credits not
 * settled yet get a `settle` job for `creditCap.monthly`'s ledger (as a merge group's).
 */
export async function reportBaselineScan(run: ReportRun): Promise<void> {
  const { rt, tenant, d, scan, log } = run;
  const findings = await readScanFindings(tenant, d);
  const read = await readReviewlessFacts(run, findings);
  const branch = d.target?.kind === "baseline" ? d.target.branch : d.defaultBranch;
  const { completion, conclusion, annotations } = decideReviewlessReport(rt.settings, d, scan, {
    ...read,
    note: renderBaselineNote({ branch, headSha: d.headSha, presetName: scan.presetName ?? d.presetRef }),
    subject: "commit",
  });
  // A retry after a crash past the completing write does not complete again (GitHub appends annotations).
  if (!(await rt.stores.pulls.getJson<{ at: number }>("completed", d.scanId))) {
    await applyWrites(rt, d.installationId, completion);
    await rt.stores.pulls.putJson("completed", d.scanId, { at: rt.now() }, 60 * 60 * 24 * 7);
  }
  await rt.stores.baselines.setReport(d.owner, d.repo, {
    branch,
    headSha: d.headSha,
    scanId: d.scanId,
    reportedAt: rt.now(),
    openFingerprints: [...new Set(findings.filter((f) => !isRuledOut(f)).map((f) => fingerprint(f)))],
  });
  await markBaselineReported(rt, d);
  await rt.stores.pulls.finishScan(d.installationId, d.scanId);
  log.info(
    { conclusion, findings: findings.length, annotations: annotations.length, branch },
    "baseline scan reported",
  );
}

/** Marks the baseline followed now reported (completed or ended), when it is still this scan's. */
export async function markBaselineReported(rt: Runtime, d: PollJobData): Promise<void> {
  const key = baselineKey(d.owner, d.repo);
  const b = await rt.stores.baselines.get(key);
  if (b && b.headSha === d.headSha && (b.scanId === undefined || b.scanId === d.scanId))
    await rt.stores.baselines.set(key, { ...b, scanId: d.scanId, reported: true });
}
