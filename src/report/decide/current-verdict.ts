/**
 * The pull request's current verdict, rendered (pure): one step shared by everything that re-renders a
 * reported check run from the service's current findings (the triage recompute after a command, the
 * settlement of a scan's credits). The report job renders the first version from the same builders.
 */
import { createHash } from "node:crypto";
import type { CheckAnnotation } from "../../github/check-runs.js";
import type { ReportFinding } from "../../domain/finding-types.js";
import { toAnnotations } from "../../render/annotations.js";
import { decideConclusion, policyRule, type BlockingRule, type Verdict } from "../../domain/verdict.js";
import { comparisonOf } from "../../render/baseline-comparison.js";
import type { CheckRunOutput } from "../../github/check-runs.js";
import { renderCheckRunOutput } from "../../render/check-run.js";
import type { ReportState } from "../../stores/stored-report.js";
import { withKeptDetails } from "./details.js";

/** Settings the verdict is rendered with (from the app's settings). */
export interface VerdictSettings {
  /** two-letter label prefix (`SCANNER_LABEL_PREFIX`) */
  labelPrefix: string;
  /** the service's public site, for links (`SCANNER_PUBLIC_URL`) */
  publicUrl?: string;
}

/** The rendered verdict: what to write on the check run, and the verdict it follows. */
export interface PullVerdict {
  /** the check run's conclusion: `failure` whatever the findings when the PR's own config is invalid */
  conclusion: Verdict["conclusion"];
  output: CheckRunOutput;
  /** every annotation the current check run should carry (guidance change first, then the open findings) */
  annotations: CheckAnnotation[];
  verdict: Verdict;
  /** the stored report with every finding's current severity and resolution status */
  report: ReportState;
}

/** The findings with the `diffward-ignore` marker the report found for each (the service knows none). */
function withMarkers(findings: readonly ReportFinding[], report: ReportState): ReportFinding[] {
  const marks = new Map(report.findings.flatMap((f) => (f.suppression ? [[f.id, f.suppression]] : [])));
  return findings.map((f) => {
    const suppression = f.suppression ?? marks.get(f.id);
    return suppression ? { ...f, suppression } : f;
  });
}

/**
 * Renders the check run of a reported scan from its findings as the service has them now (the check
 * run follows the decisions): the conclusion by `decideConclusion` (the repository's
 * `failOn`), the summary by `renderCheckRunOutput` with the stored extras (guidance, credits, warnings, code scanning),
 * the details (`output.text`) with the stored description and fix of each finding the report fetched one for
 * (`report.details`), and the stored report updated with each finding's current severity and resolution status.
 *
 * @param report - the pull request's stored report (`src/report/decide/report-state.ts`).
 * @param findings - every finding of `report.scanId`, read from the service now.
 */
export function renderPullVerdict(
  report: ReportState,
  listed: readonly ReportFinding[],
  settings: VerdictSettings,
): PullVerdict {
  const findings = withMarkers(listed, report);
  const cfg = report.config;
  const commented = new Set(report.findings.filter((f) => f.commentId !== undefined).map((f) => f.id));
  const output = renderCheckRunOutput({
    scan: {
      id: report.scanId,
      status: "COMPLETED",
      // the footer as the first report showed it: the preset's name and the merge base
      presetName: report.presetName ?? report.presetRef,
      ...(report.creditBudget !== undefined ? { creditBudget: report.creditBudget } : {}),
      commitHash: report.headSha,
      ...(report.baseCommit ? { baseCommit: report.baseCommit } : {}),
    },
    // the description and fix the report fetched, so the details read as they did (./details.ts)
    findings: withKeptDetails(findings, report.details),
    failOn: cfg.failOn,
    policies: cfg.policies,
    mode: cfg.mode,
    ...(report.extras?.policyParts ? { policyParts: report.extras.policyParts } : {}),
    disclosure: cfg.disclosure ?? "full",
    labelPrefix: settings.labelPrefix,
    ...(settings.publicUrl ? { publicUrl: settings.publicUrl, projectId: report.projectId } : {}),
    inlineIds: [...commented],
    ...(report.extras?.guidance ? { guidance: report.extras.guidance } : {}),
    ...(report.extras?.credits ? { credits: report.extras.credits } : {}),
    ...(report.extras?.warnings.length ? { warnings: report.extras.warnings } : {}),
    ...(report.extras?.codeScanning ? { codeScanning: report.extras.codeScanning } : {}),
    ...(report.extras?.baseline ? { baseline: report.extras.baseline } : {}),
  });
  const verdict = decideConclusion([...findings], reportRule(report));
  const annotations = reportAnnotations(findings, report, settings.labelPrefix);
  return {
    conclusion: report.configInvalidInPull ? "failure" : verdict.conclusion,
    output,
    annotations,
    verdict,
    report: withCurrentFindings(report, findings),
  };
}

/** The stored report with each finding's current severity and resolution status (pure). */
export function withCurrentFindings(report: ReportState, findings: readonly ReportFinding[]): ReportState {
  const byId = new Map(findings.map((f) => [f.id, f]));
  return {
    ...report,
    findings: report.findings.map((f) => {
      const now = byId.get(f.id);
      return now ? { ...f, severity: now.severity, resolutionStatus: now.resolutionStatus } : f;
    }),
  };
}

/**
 * The verdict of a stored report without asking the service (the `status` command): the conclusion of the
 * findings as last stored.
 */
export function storedVerdict(report: ReportState): Verdict {
  return decideConclusion(
    report.findings.map((f) => ({
      id: f.id,
      location: f.location,
      severity: f.severity as ReportFinding["severity"],
      triageStatus: f.triageStatus as ReportFinding["triageStatus"],
      resolutionStatus: f.resolutionStatus as ReportFinding["resolutionStatus"],
    })),
    reportRule(report),
  );
}

/**
 * The blocking rule of a stored report: its policy (`failOn`, `policies`, `mode`: src/domain/policy.ts) with
 * the comparison with the base branch's baseline the report made (kept in the report state), so a recompute
 * blocks exactly what the report did.
 */
export function reportRule(report: Pick<ReportState, "config" | "extras">): BlockingRule {
  return policyRule(report.config, comparisonOf(report.extras?.baseline));
}

/**
 * The annotations of a report's check run for `findings` as they are now: the guidance-change annotation
 * (when stored), then `toAnnotations` (open findings with a line; ruled out ones get none, so after `/fp`
 * the finding has no annotation). Shared by the report job and the recompute.
 */
export function reportAnnotations(
  findings: readonly ReportFinding[],
  report: Pick<ReportState, "config" | "extras">,
  labelPrefix: string,
): CheckAnnotation[] {
  return [
    ...(report.extras?.guidanceAnnotation ? [report.extras.guidanceAnnotation] : []),
    ...toAnnotations(findings, report.config.disclosure ?? "full", {
      failOn: reportRule(report),
      labelPrefix,
    }),
  ];
}

/** SHA-256 (hex) of a list of annotations, to tell whether a check run already carries exactly these. */
export function annotationsDigest(annotations: readonly CheckAnnotation[]): string {
  return createHash("sha256").update(JSON.stringify(annotations)).digest("hex");
}
