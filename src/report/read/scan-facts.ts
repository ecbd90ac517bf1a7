/**
 * What a report reads before it decides: every finding of the scan, the extras, and for a pull request its
 * files, review comments, pending approvals and the details of the findings shown inline. The pull request's
 * decisions and pending approvals are carried to the new scan's findings as they are read (triage's report
 * hooks: `applyPullDecisions`, `carryApprovals`), so the report decides on the findings as they now stand.
 */
import type { ReportFinding } from "../../domain/finding-types.js";
import { policyRule } from "../../domain/policy.js";
import { listPullFiles } from "../../github/pulls.js";
import { listReviewComments } from "../../github/reviews.js";
import type { PollJobData } from "../../job-catalogue/index.js";
import { comparisonOf } from "../../render/baseline-comparison.js";
import { pullKey } from "../../runtime/names.js";
import type { FindingListItem, Note } from "../../scanner/schemas.js";
import type { ScannerTenant } from "../../tenants/index.js";
import {
  applyPullDecisions,
  applySuppressions,
  carryApprovals,
  type SuppressionPull,
} from "../../triage/index.js";
import type { PullReportFacts } from "../decide/decide-report.js";
import { toReportFinding } from "../decide/findings.js";
import { planReport, type ReportPlan } from "../decide/plan.js";
import { postedFindingComments } from "../decide/posted.js";
import type { ReportExtras } from "../decide/report-state.js";
import type { ReportRun } from "../report-run.js";
import { readBaselineComparison } from "./base-branch.js";
import { collectReportExtras } from "./extras.js";

/**
 * Every finding of the scan, paging the service's list 100 at a time (spec "GET …/findings": `limit` at
 * most 100), as report findings (no description: that needs one `GET` per finding).
 * @throws ScannerApiError when the service refuses a page (the poll job sorts retryable from final).
 */
export async function readScanFindings(
  tenant: ScannerTenant,
  d: Pick<PollJobData, "projectId" | "scanId">,
): Promise<ReportFinding[]> {
  const items: FindingListItem[] = [];
  for await (const f of tenant.client.iterateFindings(d.projectId, { scanId: d.scanId, limit: 100 }))
    items.push(f);
  return items.map(toReportFinding);
}

/**
 * The report's extras ({@link collectReportExtras}), with the credits reserved: the scan's budget, else the
 * launch's; `more` adds what the report read itself (e.g. the baseline comparison).
 */
export async function readExtras(
  { rt, octokit, tenant, d, scan, log }: ReportRun,
  more: Partial<ReportExtras> = {},
): Promise<ReportExtras> {
  const reserved = scan.creditBudget ?? d.creditBudget;
  return { ...(await collectReportExtras(rt, octokit, tenant, d, reserved ?? undefined, log)), ...more };
}

/** What {@link readPullReport} read: the facts of {@link PullReportFacts} but the upload and the budget, and diffward's bot login. */
export type PullReportRead = Omit<PullReportFacts, "codeScanning" | "budget"> & { botLogin: string };

/**
 * Reads what a completed scan's report on its pull request decides on. Decisions survive pushes: the pull
 * request's last decisions apply to matching findings of this scan; pending two-person dismissals follow
 * their finding (a severity raise above one invalidates it). Finding markers are trusted only in diffward's
 * own comments: a copied one is someone's text. The plan ({@link planReport}, pure) says which findings are
 * shown inline, and only theirs are read in detail.
 */
export async function readPullReport(run: ReportRun): Promise<PullReportRead> {
  const { rt, octokit, tenant, d, log } = run;
  const pull = { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber };
  const decided = await applyPullDecisions(rt, tenant, d, await readScanFindings(tenant, d), log);
  const findings = await applySuppressions({ rt, octokit, tenant, log }, suppressionPull(d), decided);
  const pending = await carryApprovals(rt, pullKey(d.owner, d.repo, d.pullNumber), findings, log);
  const [files, comments] = await Promise.all([
    listPullFiles(octokit, pull),
    listReviewComments(octokit, pull),
  ]);
  const botLogin = await rt.botLogin();
  const cfg = d.config;
  const baseline = await readBaselineComparison(rt, octokit, d, findings);
  const plan = planReport({
    findings,
    files,
    posted: postedFindingComments(comments, botLogin),
    config: {
      failOn: policyRule(cfg, comparisonOf(baseline)),
      disclosure: cfg.disclosure ?? "full",
      maxInline: cfg.comments.maxInline,
      minSeverity: cfg.comments.minSeverity,
    },
  });
  const { details, notes } = await readDetails(tenant, d, plan);
  const extras = await readExtras(run, baseline ? { baseline } : {});
  return { findings, pending, comments, botLogin, plan, details, notes, extras };
}

/** The pull request and head commit whose markers apply, with the effective `suppressions`. */
function suppressionPull(d: PollJobData): SuppressionPull {
  const approvers = d.config.triage.approval?.approvers ?? "maintain";
  return { ...d, mode: d.config.suppressions, approvers };
}

/** Details (description, recommended fix, notes) only for the findings shown inline: one `GET` each. */
async function readDetails(
  tenant: ScannerTenant,
  d: PollJobData,
  plan: ReportPlan,
): Promise<{ details: Map<string, ReportFinding>; notes: Map<string, Note[]> }> {
  const details = new Map<string, ReportFinding>();
  const notes = new Map<string, Note[]>();
  await Promise.all(
    [...plan.post, ...plan.update].map(async (p) => {
      const detail = await tenant.client.getFinding(d.projectId, p.finding.id);
      details.set(p.finding.id, {
        ...p.finding,
        description: detail.description,
        recommendedFix: detail.recommendedFix ?? null,
        pocReport: detail.pocReport ?? null,
      });
      notes.set(p.finding.id, detail.notes);
    }),
  );
  return { details, notes };
}
