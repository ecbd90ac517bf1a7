/**
 * The check run output diffward posts. A finished scan's report is built here
 * ({@link renderCheckRunOutput}: verdict, findings table, placement, footer), with its credits and guidance
 * facts (./check-run-facts.ts) and its per-finding `text` (./finding-details.ts); every state before or
 * instead of a report has its own module: a scan on its way (./scan-states.ts) and a scan that could not
 * be launched or did not finish (./launch-error-outputs.ts). Everything is imported from here.
 *
 * GitHub doc: "Update a check run" (`output.title`, `output.summary`, `output.text`, each summary
 * and text at most 65,535 bytes): https://docs.github.com/en/rest/checks/runs#update-a-check-run
 */
import { expiryText } from "../domain/acceptance.js";
import { BaselineInfo, baselineComparisonSection, comparisonOf } from "./baseline-comparison.js";
import { recount } from "../domain/baseline.js";
import { EvaluationMode, FailOnSetting, PathPolicy } from "../config/repo-config.js";
import { z } from "zod";
import type { CheckRunOutput } from "../github/check-runs.js";
import { Disclosure, ReportFinding, parseInput } from "../domain/finding-types.js";
import { applyPolicy, blockingRule, decideConclusion, policyRule, sortFindings } from "../domain/verdict.js";
import { policyParts, thresholdText } from "../domain/policy.js";
import type { BlockingInput, BlockingRule, Verdict } from "../domain/verdict.js";
import { findingPageUrl, scanPageUrl } from "../scanner/links.js";
import { findingTitle, inlineCode, neutralize } from "./escape.js";
import {
  countsInWords,
  countsLine,
  evidenceText,
  labelCode,
  matchedByText,
  resolutionText,
  shortSha,
  triageText,
} from "./format.js";
import { CodeScanningInfo, codeScanningSection } from "./code-scanning-section.js";
import {
  RULED_OUT_MEANING,
  configKey,
  configSetting,
  findingTally,
  locationMarkdown,
  plural,
} from "./glossary.js";
import { CHECK_RUN_SUMMARY_MAX_BYTES, CHECK_RUN_TEXT_MAX_BYTES, truncateBytes } from "./limits.js";
import { bullets, details, link, sections, severityBadge, table as markdownTable } from "./markdown.js";
import { CreditInfo, GuidanceInfo, creditsSection, guidanceSection } from "./check-run-facts.js";
import { detailsText } from "./finding-details.js";
import {
  evaluationHeading,
  evaluationTitle,
  outcomeMark,
  policySection,
  ruleCell,
  suppressionMark,
} from "./policy-section.js";

export { CreditInfo, GuidanceInfo };
export { WHERE_TO_READ_LEAD } from "./finding-details.js";
export { renderProgress, renderQueued, renderRerunInProgress } from "./scan-states.js";
export {
  LAUNCH_ERROR_KINDS,
  renderLaunchError,
  type LaunchErrorDetails,
  type LaunchErrorKind,
  type ScanCancelCause,
} from "./launch-error-outputs.js";

/** Everything {@link renderCheckRunOutput} needs to describe a finished scan. */
export const CheckRunModel = z.object({
  scan: z.object({
    id: z.string().min(1),
    status: z.string(),
    presetName: z.string().nullish(),
    /** reserved budget, in credits */
    creditBudget: z.number().int().nullish(),
    commitHash: z.string().nullish(),
    baseCommit: z.string().nullish(),
  }),
  /** every finding of the scan, ruled out ones included */
  findings: z.array(ReportFinding),
  /** `failOn` as configured: a severity, or `{severity, only}` (`only: new` reads `baseline`) */
  failOn: FailOnSetting,
  /** `policies` as configured: the first path rule matching a finding's file decides how it counts */
  policies: z.array(PathPolicy).optional(),
  /** `mode` as configured: `evaluate` concludes `neutral` where the check would fail */
  mode: EvaluationMode.optional(),
  /**
   * the effective policy's parts with where each came from (src/domain/policy.ts `policyParts`); default:
   * every part from the repository's own file
   */
  policyParts: z.array(z.object({ part: z.string(), value: z.string(), source: z.string() })).optional(),
  disclosure: Disclosure,
  /** two-letter label prefix, or "" for bare labels */
  labelPrefix: z.string(),
  /**
   * the service's public web address (`SCANNER_PUBLIC_URL`); with `projectId` it gives links to the
   * scan and to each finding (src/scanner/links.ts), and links to it in finding text stay links
   */
  publicUrl: z.string().optional(),
  /** the service project of the scan, for the links above */
  projectId: z.string().optional(),
  /** link to the scan in the service's web application (default: built from `publicUrl`) */
  serviceUrl: z.string().optional(),
  /** ids of the findings that have a diffward review comment on the pull request */
  inlineIds: z.array(z.string()),
  credits: CreditInfo.optional(),
  guidance: GuidanceInfo.optional(),
  /** diffward's own warnings (guidance change first, config fallbacks and the like); neutralized */
  warnings: z.array(z.string()).optional(),
  /** the report's upload to GitHub code scanning, when `codeScanning.upload` is on */
  codeScanning: CodeScanningInfo.optional(),
  /**
   * what the findings block: a pull request (default), or a commit of the default branch (a baseline: no
   * diff, so no review comment placement either)
   */
  subject: z.enum(["pull request", "commit"]).optional(),
  /**
   * the pull request's findings against its base branch's last completed baseline, or that it has none
   * (kept for `failOn: {only: new}`): the blocking rule leaves out pre-existing findings with `only: new`
   */
  baseline: BaselineInfo.optional(),
});
export type CheckRunModel = z.input<typeof CheckRunModel>;

/** Longest finding title shown in one table cell, in characters (longer ones end in `…`). */
export const TABLE_TITLE_MAX_CHARS = 120;
/** Longest location shown in one table cell, in characters. */
export const TABLE_LOCATION_MAX_CHARS = 80;

/** What `policies` rules keep from blocking: `["1 monitored", "2 comment only"]`, or none. */
function keptByPolicies(verdict: Verdict): string[] {
  return [
    verdict.monitored > 0 ? `${verdict.monitored} monitored` : "",
    verdict.commented > 0 ? `${verdict.commented} comment only` : "",
  ].filter(Boolean);
}

/**
 * The check run title for a verdict: `2 blocking findings (1 critical, 1 high)`, or
 * `No blocking findings` (with `(3 open below high)` when findings remain under the threshold, or
 * `(3 open; failOn: none)`, or `(2 pre-existing at or above high)` when only those keep it from failing, or
 * `(3 open; 1 monitored, 1 comment only)` when `policies` rules keep findings from blocking).
 */
export function verdictTitle(verdict: Verdict, rule: BlockingInput): string {
  const failOn = blockingRule(rule).severity;
  if (verdict.blocking > 0 && verdict.evaluate) return evaluationTitle(verdict);
  if (verdict.blocking > 0) {
    return `${plural(verdict.blocking, "blocking finding")} (${countsInWords(verdict.blockingBySeverity)})`;
  }
  if (verdict.open === 0) return "No blocking findings";
  const kept = keptByPolicies(verdict);
  // findings a `policies` rule keeps from blocking are not "below" the threshold
  if (kept.length > 0) return `No blocking findings (${verdict.open} open; ${kept.join(", ")})`;
  if (verdict.preexistingAtThreshold > 0)
    return `No new blocking findings (${verdict.preexistingAtThreshold} pre-existing at or above ${failOn})`;
  return failOn === "none"
    ? `No blocking findings (${verdict.open} open; failOn: none)`
    : `No blocking findings (${verdict.open} open below ${failOn})`;
}

/**
 * Renders the output of a check run for a finished scan.
 *
 * Summary sections, in order: warnings (a pull request that edits the guidance file first: STYLE.md
 * and README "Guidance" put it at the top); the verdict (heading, {@link findingTally}, counts by
 * severity); the findings that count (not ruled out) as a table, most severe first, each cell cut to
 * fit ({@link TABLE_TITLE_MAX_CHARS}, {@link TABLE_LOCATION_MAX_CHARS}); which open findings have no
 * review comment; the ruled out findings in a collapsed `<details>`; credits; guidance; a footer with
 * scan id, preset, commits and a link to the service (the same on the first report and on every
 * recompute, given the same model).
 *
 * With `disclosure: "summary"` no title, location, description or fix appears anywhere: a note says
 * what is withheld and why, the table keeps label, severity, triage and resolution, and `text` is absent.
 * In both modes each label links to the finding's page in the service when `publicUrl` and `projectId`
 * are known (src/scanner/links.ts `findingPageUrl`).
 *
 * With `disclosure: "full"`, `text` holds each open finding's description and recommended fix, made
 * safe by `safeMarkdown` (./untrusted-markdown.ts; code kept exactly), when the finding carries them
 * (the report fetches a detail only for the findings shown inline; the list has no description); it is
 * built in ./finding-details.ts. An open finding without them says where to read them: its page in the
 * service (`publicUrl` and `projectId`) and/or its review comment (`inlineIds`), else the service.
 * Locations read `path:line` / `path:start-end` ({@link locationMarkdown}). Summary and text are cut to
 * 65,535 bytes with a note pointing to the service.
 *
 * @throws DomainInputError when `model` does not match {@link CheckRunModel}.
 */
export function renderCheckRunOutput(model: CheckRunModel): CheckRunOutput {
  const m = parseInput(CheckRunModel, model, "check run model");
  const rule = policyRule(m, comparisonOf(m.baseline));
  const verdict = decideConclusion(m.findings, rule);
  const full = m.disclosure === "full";
  // a finding under a rule in mode `off` is not shown anywhere
  const outcomes = new Map(m.findings.map((f) => [f, applyPolicy(f, rule).outcome]));
  const shown = m.findings.filter((f) => outcomes.get(f) !== "off");
  const open = sortFindings(shown.filter((f) => outcomes.get(f) !== "ruled-out"));
  const ruledOut = sortFindings(shown.filter((f) => outcomes.get(f) === "ruled-out"));
  const scanUrl =
    m.serviceUrl ??
    (m.publicUrl && m.projectId ? scanPageUrl(m.publicUrl, m.projectId, m.scan.id) : undefined);
  const serviceLink = scanUrl ? link("Open the scan in the scanning service", scanUrl) : undefined;
  const findingUrl = (id: string) =>
    m.publicUrl && m.projectId ? findingPageUrl(m.publicUrl, m.projectId, id) : undefined;
  const table = (list: readonly ReportFinding[]) =>
    findingsTable(list, rule, m.labelPrefix, full, findingUrl);
  const inline = new Set(m.inlineIds);
  const subject = m.subject ?? "pull request";

  const summary = sections(
    m.warnings?.length ? bullets(m.warnings.map((w) => `⚠️ ${neutralize(w)}`)) : undefined,
    verdictSection(verdict, rule, subject),
    policySection(m.policyParts ?? policyParts(m), verdict),
    m.baseline && baselineComparisonSection(currentBaseline(m.baseline, shown), rule.only === "new"),
    m.scan.status !== "COMPLETED" &&
      `⚠️ The scan ended as ${inlineCode(m.scan.status)}, not \`COMPLETED\`: these results may be partial.`,
    !full && m.findings.length > 0 && withheldNote(Boolean(m.publicUrl && m.projectId)),
    open.length > 0 &&
      `### Findings\n\n${table(open)}` +
        (verdict.blocking > 0 ? `\n\n${blockNote(rule, verdict, subject)}` : ""),
    full &&
      subject === "pull request" &&
      placementSection(
        open,
        inline,
        m.labelPrefix,
        rule.rules?.some((r) => r.mode === "monitor"),
      ),
    ruledOut.length > 0 &&
      details(
        `${plural(ruledOut.length, "finding")} ruled out`,
        `${capitalize(RULED_OUT_MEANING)}.\n\n${table(ruledOut)}`,
      ),
    m.codeScanning && codeScanningSection(m.codeScanning),
    creditsSection(m.credits, m.scan.creditBudget ?? undefined),
    m.guidance && guidanceSection(m.guidance),
    footer(m.scan, serviceLink),
  );
  const note = `_… cut to fit GitHub's 65,535-byte limit.${serviceLink ? ` ${serviceLink} for the full list.` : " The scanning service has the full list."}_`;
  const output: CheckRunOutput = {
    title: verdictTitle(verdict, rule),
    summary: truncateBytes(summary, CHECK_RUN_SUMMARY_MAX_BYTES, note),
  };
  if (full && open.length > 0) {
    output.text = truncateBytes(
      detailsText(open, m.labelPrefix, m.publicUrl, findingUrl, inline),
      CHECK_RUN_TEXT_MAX_BYTES,
      note,
    );
  }
  return output;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function withheldNote(linked: boolean): string {
  return (
    `🔒 Details withheld: this repository uses ${configSetting("disclosure", "summary")} (the default for public ` +
    "repositories), so finding titles, locations, descriptions and fixes are not posted on GitHub, where " +
    "anyone who can read the pull request would see them; for the same reason no review comments or " +
    "annotations mark the lines and nothing goes to GitHub code scanning. " +
    (linked
      ? "Each label below links to the finding in the scanning service."
      : "Find each label in the scanning service.")
  );
}

/** `high`, or `{severity: high, only: new}`: the setting as a user writes it. */
function failOnText(rule: BlockingRule): string {
  return thresholdText(rule);
}

/** What the ⛔ beside a finding means: the top-level `failOn`, or the rule named in its row. */
function blockNote(rule: BlockingRule, verdict: Verdict, subject: string): string {
  const blocks = verdict.evaluate
    ? `would block this ${subject} (${configSetting("mode", "evaluate")})`
    : `blocks this ${subject}`;
  return rule.rules?.length
    ? `⛔ ${blocks} under the rule in its row (${configSetting("failOn", failOnText(rule))} or a ${inlineCode("policies")} entry)`
    : `⛔ ${blocks} (${configSetting("failOn", failOnText(rule))})`;
}

/** The stored comparison with its counts for the findings as they are now (a recompute after triage). */
function currentBaseline(x: BaselineInfo, findings: readonly ReportFinding[]): BaselineInfo {
  return "missing" in x || !x.preexistingIds ? x : { ...x, ...recount(findings, x.preexistingIds) };
}

function verdictSection(verdict: Verdict, rule: BlockingRule, subject: string): string {
  const failOn = rule.severity;
  if (verdict.blocking > 0 && verdict.evaluate)
    return `${evaluationHeading(verdict, subject)}\n\n${findingTally(verdict)}\n\n${countsLine(verdict.openBySeverity)}`;
  const fresh = rule.only === "new" && rule.preexisting ? "new " : "";
  const head =
    verdict.blocking > 0
      ? `## ❌ ${plural(verdict.blocking, `${fresh}finding`)} at or above \`${failOn}\` ${verdict.blocking === 1 ? "blocks" : "block"} this ${subject}`
      : failOn === "none"
        ? `## ✅ No finding blocks this ${subject} (${configSetting("failOn", "none")})`
        : keptByPolicies(verdict).length > 0
          ? // a monitored or comment-only finding may be at or above the threshold: it is kept, not absent
            `## ✅ No finding blocks this ${subject} (\`policies\`: ${keptByPolicies(verdict).join(", ")})`
          : `## ✅ No ${fresh ? "new" : "open"} finding at or above \`${failOn}\``;
  const waived =
    verdict.preexistingAtThreshold > 0
      ? `\n\n${plural(verdict.preexistingAtThreshold, "finding")} at or above \`${failOn}\` already open on the base branch ${verdict.preexistingAtThreshold === 1 ? "does" : "do"} not block (${configSetting("failOn", failOnText(rule))}).`
      : "";
  return `${head}${waived}\n\n${findingTally(verdict)}\n\n${countsLine(verdict.openBySeverity)}`;
}

function cellLocation(location: string): string {
  const t = location.trim();
  return locationMarkdown(
    t.length > TABLE_LOCATION_MAX_CHARS ? `${t.slice(0, TABLE_LOCATION_MAX_CHARS - 1)}…` : t,
  );
}

function findingsTable(
  findings: readonly ReportFinding[],
  rule: BlockingRule,
  prefix: string,
  full: boolean,
  findingUrl: (id: string) => string | undefined,
): string {
  const rows = findings.map((f) => {
    const url = findingUrl(f.id);
    const code = labelCode(f.id, prefix);
    const s = applyPolicy(f, rule);
    const mark = `${s.outcome === "blocking" ? " ⛔" : ""}${s.preexisting ? " _pre-existing_" : ""}${outcomeMark(s)}${suppressionMark(f)}`;
    const label = `${url ? link(code, url) : code}${mark}`;
    const ruleCells = rule.rules?.length ? [ruleCell(s)] : [];
    return full
      ? [
          label,
          severityBadge(f.severity),
          findingTitle(f.title, { max: TABLE_TITLE_MAX_CHARS }),
          cellLocation(f.location),
          triageText(f.triageStatus),
          evidenceText(f.confirmationEvidence),
          resolutionCell(f, prefix),
          ...ruleCells,
        ]
      : [
          label,
          severityBadge(f.severity),
          triageText(f.triageStatus),
          resolutionCell(f, prefix),
          ...ruleCells,
        ];
  });
  // with path rules each row names the rule that applied; without, every finding follows `failOn`
  const ruleHeader = rule.rules?.length ? ["Rule"] : [];
  const headers = full
    ? ["Label", "Severity", "Title", "Location", "Triage", "Evidence", "Resolution", ...ruleHeader]
    : ["Label", "Severity", "Triage", "Resolution", ...ruleHeader];
  return markdownTable(headers, rows);
}

/**
 * The resolution, and how a carried decision found this finding when not by id (by fingerprint or shape:
 * src/domain/identity.ts).
 */
function resolutionCell(f: ReportFinding, prefix: string): string {
  const text = resolutionText(f.resolutionStatus);
  const cell = f.matchedTo ? `${text} (${matchedByText(f.matchedTo, prefix)})` : text;
  const a = f.acceptedUntil;
  return a ? `${cell}, accepted until ${expiryText(a.expiresAt)} by ${inlineCode(`@${a.by}`)}` : cell;
}

/**
 * Which open findings have a review comment and which do not. Computed from the open findings and the
 * ids that have a comment, so the first report and every recompute give the same numbers.
 */
function placementSection(
  open: readonly ReportFinding[],
  inline: ReadonlySet<string>,
  prefix: string,
  monitors = false,
): string | undefined {
  if (open.length === 0) return undefined;
  const commented = open.filter((f) => inline.has(f.id)).length;
  const without = open.filter((f) => !inline.has(f.id));
  const lines = [`Review comments on the diff: ${commented} of ${plural(open.length, "open finding")}.`];
  if (without.length > 0) {
    lines.push(
      `${plural(without.length, "open finding")} without a review comment (outside the diff, below ${configKey("comments.minSeverity")}${monitors ? `, over ${configKey("comments.maxInline")} or under a ${configKey("policies")} rule in mode \`monitor\`` : ` or over ${configKey("comments.maxInline")}`}): ` +
        without.map((f) => `${labelCode(f.id, prefix)} ${cellLocation(f.location)}`).join(", "),
    );
  }
  return lines.join("\n\n");
}

function footer(scan: z.output<typeof CheckRunModel>["scan"], serviceLink: string | undefined): string {
  const parts = [`Scan ${inlineCode(scan.id)}`];
  if (scan.presetName) parts.push(`preset ${inlineCode(scan.presetName)}`);
  if (scan.commitHash) {
    parts.push(
      scan.baseCommit
        ? `commit ${shortSha(scan.commitHash)} against base ${shortSha(scan.baseCommit)}`
        : `commit ${shortSha(scan.commitHash)}`,
    );
  }
  if (serviceLink) parts.push(serviceLink);
  return `---\n${parts.join(" · ")}`;
}
