import type { Logger } from "pino";
import type { CheckAnnotation } from "../../github/checks.js";
import type { ReportFinding } from "../../domain/types.js";
import { toAnnotations } from "../../render/annotations.js";
import { renderCheckRunOutput } from "../../render/check-run.js";
import { sections } from "../../render/markdown.js";
import type { FindingListItem, ScanDetail } from "../../scanner/schemas.js";
import type { ScannerTenant } from "../../tenants/index.js";
import { planReport } from "../../report/plan.js";
import { toReportFinding } from "../../report/findings.js";
import { applyPullDecisions } from "../../triage/decisions.js";
import { collectReportExtras } from "../../report/extras.js";
import { applyCodeScanningUpload, planCodeScanningUpload } from "../../codescanning/upload.js";
import type { Runtime } from "../runtime.js";
import { applyWrites } from "../writes.js";
import { decideReportWrites, planScanEnded } from "./decide-report.js";
import type { PollJobData } from "./types.js";

/**
 * Reports a merge group's terminal scan on the group's check run (issue 13): `FAILED` and `CANCELLED`
 * conclude it with the same messages as a pull request's; `COMPLETED` pages through every finding (limit
 * 100), carries the triage decisions of the pull request the group names (the same findings, decided once),
 * and completes the check run with the conclusion ({@link planReport}'s verdict under `failOn`), the summary
 * (findings, guidance, credits reserved and spent, code scanning) and the annotations in batches of 50
 * (GitHub "Update a check run"). With `codeScanning.upload` and full disclosure, one SARIF upload with
 * `ref` = the group's `head_ref` and `commit_sha` = the group's head (issue 14 point 2). No review and no report state: a merge group has no pull request to comment on, and the pull
 * request's own report must stay the one its triage commands and reuse read.
 */
export async function reportGroupScan(
  rt: Runtime,
  d: PollJobData,
  tenant: ScannerTenant,
  scan: ScanDetail,
  log: Logger,
): Promise<void> {
  const octokit = await rt.octokit(d.installationId);
  if (scan.status !== "COMPLETED") {
    await applyWrites(
      rt,
      d.installationId,
      planScanEnded(d, scan.status === "CANCELLED" ? "CANCELLED" : "FAILED"),
    );
    await rt.state.finishScan(d.installationId, d.scanId);
    log.info({ status: scan.status }, "merge group scan ended without findings report");
    return;
  }

  const items: FindingListItem[] = [];
  for await (const f of tenant.client.iterateFindings(d.projectId, { scanId: d.scanId, limit: 100 }))
    items.push(f);
  const raw = items.map(toReportFinding);
  const findings: ReportFinding[] =
    d.pullNumber > 0 ? await applyPullDecisions(rt, tenant, d, raw, log) : raw;

  const cfg = d.config;
  const disclosure = cfg.disclosure ?? "full";
  const plan = planReport({
    findings,
    files: [],
    posted: [],
    config: { failOn: cfg.failOn, disclosure, maxInline: 0, minSeverity: cfg.comments.minSeverity },
  });
  const reserved = scan.creditBudget ?? d.creditBudget;
  const extras = await collectReportExtras(rt, octokit, tenant, d, reserved ?? undefined, log);
  // One SARIF upload per group report, on the group's ref and head (issue 14 point 2).
  const codeScanning = await applyCodeScanningUpload(
    rt,
    d.installationId,
    { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber },
    d.scanId,
    planCodeScanningUpload({
      enabled: cfg.codeScanning?.upload === true,
      disclosure,
      pullNumber: d.pullNumber,
      ...(d.target?.kind === "merge-group" ? { mergeGroupHeadRef: d.target.headRef } : {}),
      headSha: d.headSha,
      scanId: d.scanId,
      findings,
      labelPrefix: rt.settings.labelPrefix,
      ...(d.repoHtmlUrl ? { repoHtmlUrl: d.repoHtmlUrl } : {}),
    }),
    log,
  );
  const output = renderCheckRunOutput({
    scan: {
      id: d.scanId,
      status: scan.status,
      presetName: scan.presetName ?? d.presetRef,
      ...(reserved != null ? { creditBudget: reserved } : {}),
      ...(scan.commitHash ? { commitHash: scan.commitHash } : {}),
      ...(scan.baseCommit ? { baseCommit: scan.baseCommit } : {}),
    },
    findings,
    failOn: cfg.failOn,
    disclosure,
    labelPrefix: rt.settings.labelPrefix,
    ...(rt.settings.publicUrl ? { publicUrl: rt.settings.publicUrl, projectId: d.projectId } : {}),
    inlineIds: [], // a merge group has no review comments
    ...(extras.guidance ? { guidance: extras.guidance } : {}),
    ...(extras.credits ? { credits: extras.credits } : {}),
    ...(extras.warnings.length ? { warnings: extras.warnings } : {}),
    ...(codeScanning ? { codeScanning } : {}),
  });
  const withNote = sections(
    `**Merge group** ${d.pullNumber > 0 ? `for pull request #${d.pullNumber}, ` : ""}scanned against its base: no review is posted (a merge group has no pull request); the findings are below and annotated on the files.`,
    output.summary,
  );
  // the renderer keeps the summary within GitHub's 65,535 bytes; the note is dropped rather than overflow it
  const summary = Buffer.byteLength(withNote, "utf8") <= 65_535 ? withNote : output.summary;
  const annotations: CheckAnnotation[] = toAnnotations(findings, disclosure, {
    failOn: cfg.failOn,
    labelPrefix: rt.settings.labelPrefix,
  });
  // no review and no comment updates: nothing was planned inline (no files, no posted comments)
  const { completion, conclusion } = decideReportWrites({
    d,
    plan,
    comments: [],
    bodyOf: () => "",
    output: { ...output, summary },
    annotations,
  });
  await applyWrites(rt, d.installationId, completion);
  await rt.state.finishScan(d.installationId, d.scanId);
  log.info(
    { conclusion, findings: findings.length, annotations: annotations.length },
    "merge group scan reported",
  );
}
