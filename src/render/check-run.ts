/**
 * The check run output diffward posts: for a finished scan ({@link renderCheckRunOutput}) and for
 * every state before or instead of a report (queued, progress, launch and scan errors).
 *
 * GitHub doc: "Update a check run" (`output.title`, `output.summary`, `output.text`, each summary
 * and text at most 65,535 bytes): https://docs.github.com/en/rest/checks/runs#update-a-check-run
 */
import { expiryText } from "../domain/acceptance.js";
import { BaselineInfo, baselineComparisonSection, comparisonOf } from "./baseline.js";
import { recount } from "../domain/baseline.js";
import { FailOnSetting } from "../config/repo-config.js";
import { z } from "zod";
import type { CheckRunOutput } from "../github/checks.js";
import { Disclosure, ReportFinding, parseInput, DomainInputError } from "../domain/types.js";
import { blockingRule, decideConclusion, isRuledOut, sortFindings, standing } from "../domain/verdict.js";
import type { BlockingInput, BlockingRule, Verdict } from "../domain/verdict.js";
import { findingPageUrl, scanPageUrl } from "../scanner/links.js";
import { codeBlock, findingTitle, inlineCode, neutralize } from "./escape.js";
import {
  countsInWords,
  countsLine,
  creditFigures,
  evidenceText,
  labelCode,
  matchedByText,
  resolutionText,
  shortSha,
  triageText,
} from "./format.js";
import { CodeScanningInfo, codeScanningSection } from "./code-scanning.js";
import {
  CONFIG_FILE,
  RULED_OUT_MEANING,
  configKey,
  configSetting,
  findingTally,
  locationMarkdown,
  plural,
} from "./glossary.js";
import { CHECK_RUN_SUMMARY_MAX_BYTES, CHECK_RUN_TEXT_MAX_BYTES, truncateBytes } from "./limits.js";
import { bullets, details, link, sections, severityBadge, table as markdownTable } from "./markdown.js";
import { safeMarkdown } from "./untrusted-markdown.js";

/** Guidance file facts for the summary (spec §Guidance: the committed file always applies). */
export const GuidanceInfo = z.object({
  /** repository path of the guidance file */
  path: z.string().min(1),
  /** whether the file exists at the scanned commit */
  present: z.boolean(),
  /** link to the file on GitHub */
  url: z.string().optional(),
  /** length in characters; the service takes at most 100,000 (spec §Limits) */
  sizeChars: z.number().int().nonnegative().optional(),
  /** lines added and deleted by this pull request, when it edits the file */
  changedInPr: z
    .object({ additions: z.number().int().nonnegative(), deletions: z.number().int().nonnegative() })
    .optional(),
});
export type GuidanceInfo = z.infer<typeof GuidanceInfo>;

/** Credits of the scan, in credits (spec §What the service does, §Scan (detail) adds). */
export const CreditInfo = z.object({
  /** budget reserved at launch */
  reserved: z.number().int().nonnegative().optional(),
  /** credits spent so far (net of refunds) */
  spent: z.number().int().nonnegative().optional(),
  /** false while in-flight jobs may still settle their spend */
  settled: z.boolean(),
  /** the scan ran short of its budget and stopped early: partial coverage */
  ranShort: z.boolean().optional(),
});
export type CreditInfo = z.infer<typeof CreditInfo>;

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

/**
 * The check run title for a verdict: `2 blocking findings (1 critical, 1 high)`, or
 * `No blocking findings` (with `(3 open below high)` when findings remain under the threshold, or
 * `(3 open; failOn: none)`, or `(2 pre-existing at or above high)` when only those keep it from failing).
 */
export function verdictTitle(verdict: Verdict, rule: BlockingInput): string {
  const failOn = blockingRule(rule).severity;
  if (verdict.blocking > 0) {
    return `${plural(verdict.blocking, "blocking finding")} (${countsInWords(verdict.blockingBySeverity)})`;
  }
  if (verdict.open === 0) return "No blocking findings";
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
 * safe by {@link safeMarkdown} (code kept exactly), when the finding carries them (the report fetches a
 * detail only for the findings shown inline; the list has no description). An open finding without them
 * says where to read them: its page in the service (`publicUrl` and `projectId`) and/or its review
 * comment (`inlineIds`), else the service. Locations read `path:line` / `path:start-end`
 * ({@link locationMarkdown}). Summary and text are cut to 65,535 bytes with a note pointing to the service.
 *
 * @throws DomainInputError when `model` does not match {@link CheckRunModel}.
 */
export function renderCheckRunOutput(model: CheckRunModel): CheckRunOutput {
  const m = parseInput(CheckRunModel, model, "check run model");
  const rule = blockingRule(m.failOn, comparisonOf(m.baseline));
  const verdict = decideConclusion(m.findings, rule);
  const full = m.disclosure === "full";
  const open = sortFindings(m.findings.filter((f) => !isRuledOut(f)));
  const ruledOut = sortFindings(m.findings.filter((f) => isRuledOut(f)));
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
    m.baseline && baselineComparisonSection(currentBaseline(m.baseline, m.findings), rule.only === "new"),
    m.scan.status !== "COMPLETED" &&
      `⚠️ The scan ended as ${inlineCode(m.scan.status)}, not \`COMPLETED\`: these results may be partial.`,
    !full && m.findings.length > 0 && withheldNote(Boolean(m.publicUrl && m.projectId)),
    open.length > 0 &&
      `### Findings\n\n${table(open)}` +
        (verdict.blocking > 0
          ? `\n\n⛔ blocks this ${subject} (${configSetting("failOn", failOnText(rule))})`
          : ""),
    full && subject === "pull request" && placementSection(open, inline, m.labelPrefix),
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
  return rule.only === "new" ? `{severity: ${rule.severity}, only: new}` : rule.severity;
}

/** The stored comparison with its counts for the findings as they are now (a recompute after triage). */
function currentBaseline(x: BaselineInfo, findings: readonly ReportFinding[]): BaselineInfo {
  return "missing" in x || !x.preexistingIds ? x : { ...x, ...recount(findings, x.preexistingIds) };
}

function verdictSection(verdict: Verdict, rule: BlockingRule, subject: string): string {
  const failOn = rule.severity;
  const fresh = rule.only === "new" && rule.preexisting ? "new " : "";
  const head =
    verdict.blocking > 0
      ? `## ❌ ${plural(verdict.blocking, `${fresh}finding`)} at or above \`${failOn}\` ${verdict.blocking === 1 ? "blocks" : "block"} this ${subject}`
      : failOn === "none"
        ? `## ✅ No finding blocks this ${subject} (${configSetting("failOn", "none")})`
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
    const { blocking, preexisting } = standing(f, rule);
    const mark = `${blocking ? " ⛔" : ""}${preexisting ? " _pre-existing_" : ""}`;
    const label = `${url ? link(code, url) : code}${mark}`;
    return full
      ? [
          label,
          severityBadge(f.severity),
          findingTitle(f.title, { max: TABLE_TITLE_MAX_CHARS }),
          cellLocation(f.location),
          triageText(f.triageStatus),
          evidenceText(f.confirmationEvidence),
          resolutionCell(f, prefix),
        ]
      : [label, severityBadge(f.severity), triageText(f.triageStatus), resolutionCell(f, prefix)];
  });
  const headers = full
    ? ["Label", "Severity", "Title", "Location", "Triage", "Evidence", "Resolution"]
    : ["Label", "Severity", "Triage", "Resolution"];
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
): string | undefined {
  if (open.length === 0) return undefined;
  const commented = open.filter((f) => inline.has(f.id)).length;
  const without = open.filter((f) => !inline.has(f.id));
  const lines = [`Review comments on the diff: ${commented} of ${plural(open.length, "open finding")}.`];
  if (without.length > 0) {
    lines.push(
      `${plural(without.length, "open finding")} without a review comment (outside the diff, below ${configKey("comments.minSeverity")} or over ${configKey("comments.maxInline")}): ` +
        without.map((f) => `${labelCode(f.id, prefix)} ${cellLocation(f.location)}`).join(", "),
    );
  }
  return lines.join("\n\n");
}

function creditsSection(
  credits: CreditInfo | undefined,
  creditBudget: number | undefined,
): string | undefined {
  const reserved = credits?.reserved ?? creditBudget;
  if (credits === undefined && reserved === undefined) return undefined;
  const parts: string[] = [];
  if (reserved !== undefined) parts.push(`Budget: **${reserved}** credits reserved.`);
  if (credits?.spent !== undefined) {
    if (!credits.settled) {
      parts.push(
        `Spent so far: **${credits.spent}** credits; the final amount settles as the scan's jobs wind down.`,
      );
    } else if (credits.ranShort || (reserved !== undefined && credits.spent >= reserved)) {
      parts.push(`Spent: **${credits.spent}** credits, the whole budget.`);
    } else if (reserved !== undefined) {
      parts.push(
        `Spent: **${credits.spent}** credits; the unused ${reserved - credits.spent} went back to the balance.`,
      );
    } else {
      parts.push(`Spent: **${credits.spent}** credits.`);
    }
  } else if (credits && !credits.settled) {
    parts.push("Spend not settled yet.");
  }
  if (credits?.ranShort) {
    parts.push(
      "⚠️ The scan ran short of its budget and stopped early, so coverage is **partial**. " +
        `Raise ${configKey("creditBudget")} in \`${CONFIG_FILE}\`, or leave it unset so the service ` +
        "recommends one (half again the last budget after a short run).",
    );
  }
  return `### Credits\n\n${parts.join("\n\n")}`;
}

function guidanceSection(g: GuidanceInfo): string {
  const name = g.url ? link(inlineCode(g.path), g.url) : inlineCode(g.path);
  const lines: string[] = [];
  if (g.present) {
    lines.push(
      `Guidance file ${name} applied${g.sizeChars !== undefined ? ` (${g.sizeChars} characters)` : ""}.`,
    );
    if (g.sizeChars !== undefined && g.sizeChars > 100_000) {
      lines.push("⚠️ It is longer than the service's 100,000-character guidance limit; shorten it.");
    }
  } else {
    lines.push(
      `No guidance file ${name}: the scan ran without repository guidance. Commit one to tell the ` +
        "service your scope, threat model and accepted risks.",
    );
  }
  if (g.changedInPr) {
    lines.push(
      `⚠️ This pull request edits ${inlineCode(g.path)} (+${g.changedInPr.additions} −${g.changedInPr.deletions} lines), ` +
        "and the scan used the edited file. Review that change: guidance can tell the scan what to ignore.",
    );
  }
  return `### Guidance\n\n${lines.join("\n\n")}`;
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

/**
 * Each open finding's details, most severe first. Rendering stops once the text is over GitHub's limit
 * (the caller cuts it with a note): sanitizing thousands of descriptions nobody would see costs seconds.
 */
function detailsText(
  open: readonly ReportFinding[],
  prefix: string,
  publicUrl: string | undefined,
  findingUrl: (id: string) => string | undefined,
  inline: ReadonlySet<string>,
): string {
  const parts: string[] = [];
  let bytes = 0;
  for (const f of open) {
    if (bytes > CHECK_RUN_TEXT_MAX_BYTES) break;
    const part = findingDetails(f, prefix, publicUrl, findingUrl(f.id), inline.has(f.id));
    parts.push(part);
    bytes += Buffer.byteLength(part, "utf8") + 9;
  }
  return parts.join("\n\n---\n\n");
}

function findingDetails(
  f: ReportFinding,
  prefix: string,
  publicUrl: string | undefined,
  url: string | undefined,
  commented: boolean,
): string {
  const label = labelCode(f.id, prefix);
  const description = f.description?.trim() ? f.description : undefined;
  const fix = f.recommendedFix?.trim() ? f.recommendedFix : undefined;
  return sections(
    `### ${severityBadge(f.severity)} · ${url ? link(label, url) : label} · ${findingTitle(f.title)}`,
    `${locationMarkdown(f.location)} · ${neutralize(f.category)} · triage ${triageText(f.triageStatus)}${f.confirmationEvidence ? ` (${evidenceText(f.confirmationEvidence)})` : ""} · resolution ${resolutionText(f.resolutionStatus)}`,
    description && safeMarkdown(description, { trustedOrigin: publicUrl }),
    fix && `**Recommended fix**\n\n${safeMarkdown(fix, { trustedOrigin: publicUrl })}`,
    !description && !fix && whereToRead(url, commented),
  );
}

/** How a details entry without the finding's text begins ({@link whereToRead}); the benchmark counts entries by it. */
export const WHERE_TO_READ_LEAD = "_Description and recommended fix: see";

/**
 * Where an open finding's description and recommended fix are when the check run does not carry them
 * (their detail was not fetched: only findings shown inline cost a detail request).
 */
function whereToRead(url: string | undefined, commented: boolean): string {
  const places = [
    url && link("its page in the scanning service", url),
    commented && "its review comment on this pull request",
  ].filter((p): p is string => typeof p === "string");
  return `${WHERE_TO_READ_LEAD} ${places.length > 0 ? places.join(" or ") : "this finding in the scanning service"}._`;
}

// ---------------------------------------------------------------------------------------------
// States other than a finished report
// ---------------------------------------------------------------------------------------------

/**
 * Output while the scan waits to start (spec §Scan status: `QUEUED`, budget reserved at launch).
 * Without a scan id (the check run is created before the launch request is sent) it says diffward is
 * preparing the scan, never that the service accepted it.
 *
 * @param info scan id, preset and the budget the service reserved (credits), when known.
 */
export function renderQueued(
  info: { scanId?: string; presetName?: string; creditBudget?: number } = {},
): CheckRunOutput {
  const facts = [
    info.scanId && `Scan ${inlineCode(info.scanId)}`,
    info.presetName && `preset ${inlineCode(info.presetName)}`,
    info.creditBudget !== undefined && `${info.creditBudget} credits reserved`,
  ].filter((x): x is string => typeof x === "string");
  return {
    title: info.scanId ? "Scan queued" : "Preparing the scan",
    summary: sections(
      info.scanId ? "## ⏳ Scan queued" : "## ⏳ Preparing the scan",
      info.scanId
        ? "The scanning service accepted the scan and will start it shortly. This check updates as it runs."
        : "diffward is checking this pull request and will launch the scan shortly. This check updates as it runs.",
      facts.length > 0 && facts.join(" · "),
    ),
  };
}

/**
 * Output of a Re-run's check run while its scan is queued or running, when **Re-run** is pressed again for
 * the same commit: the press launches nothing (each launch is paid for), and the check run says so until
 * the scan's next progress or its report replaces it.
 *
 * @param info who pressed Re-run again (a GitHub login) and the running scan's id, when known.
 */
export function renderRerunInProgress(info: { requestedBy?: string; scanId?: string }): CheckRunOutput {
  const who = info.requestedBy ? inlineCode(`@${info.requestedBy}`) : "Someone";
  const scan = info.scanId ? ` (scan ${inlineCode(info.scanId)})` : "";
  return {
    title: "Re-run already in progress",
    summary: sections(
      "## ⏳ Re-run already in progress",
      wwn(
        `${who} pressed **Re-run** for this commit again; no second scan was launched.`,
        `The scan of an earlier Re-run of this commit is still queued or running${scan}, and every launch is paid for.`,
        "Nothing to do: this check updates as that scan runs. Press **Re-run** again once it has ended to scan this commit anew.",
      ),
    ),
  };
}

/**
 * Output while the scan runs (spec §Progress). `percent` is the service's weighted completion (each
 * phase counts by its share of the budget), so it is not `phasesCompleted / phasesTotal`; the spec
 * gives no time estimate, so none is shown.
 *
 * @param percent 0 to 100 (values above 100 are shown as 100)
 * @param phasesCompleted phases in a terminal state
 * @param phasesTotal phases the scan will run
 * @param status the scan status, `QUEUED` or `PROCESSING`
 * @throws DomainInputError when a number is negative, not an integer, or not finite.
 */
export function renderProgress(
  percent: number,
  phasesCompleted: number,
  phasesTotal: number,
  status: string,
): CheckRunOutput {
  const bad = Object.entries({ percent, phasesCompleted, phasesTotal })
    .filter(([, v]) => !Number.isSafeInteger(v) || v < 0)
    .map(([k, v]) => `${k}: expected a non-negative integer, got ${String(v)}`);
  if (bad.length > 0) throw new DomainInputError("invalid scan progress", bad);
  const pct = Math.min(100, percent);
  const filled = Math.round(pct / 10);
  const bar = `${"▰".repeat(filled)}${"▱".repeat(10 - filled)}`;
  const queued = status === "QUEUED";
  return {
    title: queued ? "Scan queued" : `Scanning: ${pct}%`,
    summary: sections(
      `## ${queued ? "⏳ Scan queued" : "🔎 Scanning"}`,
      `${bar} **${pct}%** · ${phasesCompleted} of ${phasesTotal} phases done · status ${inlineCode(status)}`,
      "The percentage weighs each phase by its share of the budget, so it can move unevenly. " +
        "The service gives no time estimate; this check updates as the scan runs.",
    ),
  };
}

/**
 * One launch or scan error kind: the details it takes (`D`), those it cannot be explained without (checked
 * at run time too), and its output.
 */
interface LaunchErrorEntry<D extends object> {
  required?: readonly (keyof D & string)[];
  render: (details: D) => CheckRunOutput;
}

function entry<D extends object>(
  render: (details: D) => CheckRunOutput,
  required?: readonly (keyof D & string)[],
): LaunchErrorEntry<D> {
  return required ? { render, required } : { render };
}

/**
 * Why diffward cancelled a scan, when it made the cancel (a stop or `/diffward cancel`): the check run says so
 * in diffward's words. Absent when the cancel came from elsewhere (the scanning service's own interface).
 */
export type ScanCancelCause =
  { kind: "closed" } | { kind: "uninstalled" } | { kind: "command"; login: string };

function cancelWhy(cause: ScanCancelCause | undefined): string {
  switch (cause?.kind) {
    case "closed":
      return "The pull request was closed, so diffward cancelled the scan; reserved credits were released.";
    case "uninstalled":
      return "diffward was uninstalled from this account, so it cancelled the scan; reserved credits were released.";
    case "command":
      return `${inlineCode(`@${cause.login}`)} cancelled it with \`/diffward cancel\`; reserved credits were released.`;
    default:
      return "Someone cancelled it in the scanning service or with `/diffward cancel`; reserved credits were released.";
  }
}

function cancelNext(cause: ScanCancelCause | undefined): string {
  if (cause?.kind === "closed") return "Reopen the pull request to scan it again.";
  if (cause?.kind === "uninstalled") return "Install diffward again on this account to scan again.";
  return "Comment `/diffward rescan` or push again to run a new scan.";
}

function wwn(what: string, why: string, next: string, ...extra: (string | undefined | false)[]): string {
  return sections(`**What happened:** ${what}`, `**Why:** ${why}`, `**What next:** ${next}`, ...extra);
}

function quoted(message: string | undefined, from = "The service said"): string | undefined {
  return message ? `${from}:\n\n${codeBlock(message)}` : undefined;
}

function seconds(s: number | undefined): string {
  if (s === undefined || !Number.isFinite(s) || s < 0) return "shortly";
  const whole = Math.ceil(s);
  if (whole < 120) return `in ${plural(whole, "second")}`;
  const minutes = Math.ceil(whole / 60);
  return minutes < 120 ? `in ${plural(minutes, "minute")}` : `in ${plural(Math.ceil(minutes / 60), "hour")}`;
}

function attempt(d: { attempt?: number; maxAttempts?: number }): string {
  return d.attempt !== undefined && d.maxAttempts !== undefined
    ? ` (attempt ${d.attempt} of ${d.maxAttempts})`
    : "";
}

/** Details of the launch refusals of spec §Scans, launch rule 6 (base commit) and of a plain 400. */
interface RefusedLaunch {
  message?: string;
  presetName?: string;
  baseCommit?: string;
}

/** A 400 refusal (`diff_base_*`, `bad_request`): the kind, why it was refused, and what to fix. */
function refusedLaunch(kind: string, why: string, x: RefusedLaunch): CheckRunOutput {
  return {
    title: kind === "bad_request" ? "Scan request refused" : "Scan refused: base commit problem",
    summary: wwn(
      `The scanning service refused to launch the scan (${inlineCode(kind)}).`,
      why,
      kind === "diff_base_invalid"
        ? "Make sure the base branch is pushed, then comment `/diffward rescan` or push again."
        : "Check the scan type (`preset`) in `.github/diffward.yml`: pull requests need a diff-scan preset. Then push again.",
      quoted(x.message),
    ),
  };
}

/** Details of a 5xx or of no answer; diffward retries. */
interface Unavailable {
  message?: string;
  retryInSeconds?: number;
  attempt?: number;
  maxAttempts?: number;
}

function unavailable(kind: "internal" | "network", x: Unavailable): CheckRunOutput {
  return {
    title: "Scanning service unavailable, retrying",
    summary: wwn(
      kind === "internal"
        ? "The scanning service answered with a server error."
        : "diffward could not reach the scanning service.",
      "This is usually temporary.",
      `Nothing to do: diffward retries ${seconds(x.retryInSeconds)}${attempt(x)}.`,
      quoted(x.message, kind === "internal" ? "The service said" : "The error was"),
    ),
  };
}

function presetPart(x: RefusedLaunch): string {
  return x.presetName ? ` ${inlineCode(x.presetName)}` : "";
}

/**
 * Every launch or scan error diffward explains on a check run, by kind; the kinds are this catalogue's keys.
 * Each output says what happened, why, and what to do next. Spec sections (the table of spec §Errors, the
 * launch rules of spec §Scans):
 *
 * - `repository_initializing`: launch rule 4, 409; diffward retries.
 * - `rate_limited`: launch rule 5 / request rate, 429 with `Retry-After` (seconds).
 * - `insufficient_credits`: launch rule 3, 402; balances in credits.
 * - `diff_empty`: launch rule 7, 422.
 * - `diff_base_*`: launch rule 6, 400; `bad_request`: 400 with the service's message.
 * - `unauthorized` / `forbidden` / `not_found`: spec §Authentication rules 4 to 6.
 * - `internal` / `network`: 5xx or no answer; diffward retries.
 * - `service_unavailable`: 5xx, timeout or no answer (spec §Errors, `internal`): the launch waits for the
 *   service's circuit breaker; `service_outage`: it waited longer than `DIFFWARD_SERVICE_OUTAGE_MAX_WAIT`;
 *   `launch_unconfirmed`: the launch's own answer was lost, so the scan may exist (spec §Scans: the service
 *   offers no idempotency key; diffward reads its scan list once the service answers).
 * - `superseded`: a newer push replaced this scan; `timed_out`: diffward stopped waiting.
 * - `scan_failed` / `scan_cancelled`: spec §Scan status, terminal states.
 * - `config_invalid`: `.github/diffward.yml` problems, quoted exactly.
 * - `not_onboarded` / `no_token`: the repository is not set up for diffward.
 *
 * Service messages are untrusted: quoted in a code block, never interpreted as Markdown.
 */
const LAUNCH_ERRORS = {
  repository_initializing: entry((x: { retryInSeconds?: number }) => ({
    title: "Repository is being analyzed for the first time",
    summary: wwn(
      "The scanning service refused the scan because it is still analyzing this repository for the first time.",
      "A newly added repository gets a one-time analysis pass (free of credits); scans are refused until it ends.",
      `Nothing to do: diffward retries ${seconds(x.retryInSeconds)} and this check updates when the scan starts.`,
    ),
  })),
  rate_limited: entry((x: { retryAfterSeconds?: number; message?: string }) => ({
    title: "Rate limited by the scanning service",
    summary: wwn(
      "The scanning service asked diffward to wait before launching or polling again.",
      "The service token reached its spend limit for the current period, or sent too many requests.",
      `diffward retries ${seconds(x.retryAfterSeconds)}${x.retryAfterSeconds !== undefined ? ` (the service's \`Retry-After\` was ${Math.ceil(x.retryAfterSeconds)} s)` : ""}. If this keeps happening, raise the token's spend limit in the service.`,
      quoted(x.message),
    ),
  })),
  insufficient_credits: entry(
    (x: {
      availableCredits?: number;
      balanceCredits?: number;
      requiredCredits?: number;
      message?: string;
      billingUrl?: string;
    }) => {
      const facts = creditFigures(x, "budget needed");
      return {
        title: "Not enough credits to scan",
        summary: wwn(
          "The scanning service refused the scan: the prepaid credits cannot cover its budget.",
          `Credits are held by the organization and shared by all its projects; scans in flight hold part of the balance.${facts.length ? ` (${facts.join(", ")})` : ""}`,
          `Buy credits${x.billingUrl ? ` (${link("billing", x.billingUrl)})` : ""} or lower the credit budget in \`.github/diffward.yml\`, then comment \`/diffward rescan\` or push again.`,
          quoted(x.message),
        ),
      };
    },
  ),
  diff_empty: entry((x: { baseCommit?: string; headSha?: string }) => {
    const range =
      x.baseCommit && x.headSha ? ` between ${shortSha(x.baseCommit)} and ${shortSha(x.headSha)}` : "";
    return {
      title: "Nothing to audit",
      summary: wwn(
        `The scanning service found no change${range} to audit.`,
        "A diff scan audits only the change from the merge base to the head commit, and this one is empty.",
        "Nothing to do. Push a change and diffward scans again.",
      ),
    };
  }),
  diff_base_required: entry((x: { message?: string; presetName?: string }) =>
    refusedLaunch(
      "diff_base_required",
      `The scan type${presetPart(x)} is a diff scan and needs a base commit.`,
      x,
    ),
  ),
  diff_base_not_allowed: entry((x: { message?: string; presetName?: string }) =>
    refusedLaunch(
      "diff_base_not_allowed",
      `The scan type${presetPart(x)} scans whole commits and refuses a base commit.`,
      x,
    ),
  ),
  diff_base_invalid: entry((x: { message?: string; baseCommit?: string }) =>
    refusedLaunch(
      "diff_base_invalid",
      `The base commit${x.baseCommit ? ` ${inlineCode(x.baseCommit)}` : ""} is malformed or unknown to the service (is it pushed?).`,
      x,
    ),
  ),
  bad_request: entry(
    (x: { message: string }) =>
      refusedLaunch("bad_request", "The service found the launch request invalid.", x),
    ["message"],
  ),
  unauthorized: entry((x: { message?: string }) => ({
    title: "Scanning service token refused",
    summary: wwn(
      "The scanning service did not accept diffward's token.",
      "The token is missing, malformed, expired or revoked.",
      "Ask an administrator of this installation to create a new token in the scanning service and update the token diffward uses for this repository.",
      quoted(x.message),
    ),
  })),
  forbidden: entry((x: { message?: string; scope?: string }) => ({
    title: "Scanning service token lacks a scope",
    summary: wwn(
      "The scanning service refused the request: diffward's token lacks a required scope.",
      `This operation needs the ${x.scope ? inlineCode(x.scope) : "`scans:launch`"} scope (diffward uses \`read\`, \`scans:launch\` and \`findings:write\`).`,
      "Give the token the missing scope in the scanning service, or issue a new one with it, then push again.",
      quoted(x.message),
    ),
  })),
  not_found: entry((x: { message?: string; repositoryId?: string }) => ({
    title: "Repository not found in the scanning service",
    summary: wwn(
      `The scanning service does not know this repository${x.repositoryId ? ` (${inlineCode(x.repositoryId)})` : ""} for diffward's token.`,
      "The repository is not in the token's project, or the token is restricted to other repositories.",
      "Add the repository to the project in the scanning service, or add it to the token's repository allowlist, and check the repository id diffward is configured with.",
      quoted(x.message),
    ),
  })),
  internal: entry((x: Unavailable) => unavailable("internal", x)),
  service_unavailable: entry((x: { maxWaitMinutes?: number }) => ({
    title: "Scanning service unavailable",
    summary: wwn(
      "The scanning service is unavailable; diffward retries and resumes on its own.",
      "The service answered with a server error, timed out or could not be reached. diffward waits for it with one shared retry for all pull requests, then launches each waiting scan once; nothing was launched or spent yet.",
      `Nothing to do: this check updates when the scan starts.${x.maxWaitMinutes !== undefined ? ` If the service is still unavailable after ${plural(x.maxWaitMinutes, "minute")}, the check concludes by \`onServiceOutage\` in \`.github/diffward.yml\`.` : ""}`,
    ),
  })),
  service_outage: entry(
    (x: { waitedMinutes: number }) => ({
      title: "Scanning service unavailable: not scanned",
      summary: wwn(
        `The scanning service stayed unavailable for ${plural(x.waitedMinutes, "minute")}, so diffward stopped waiting; no scan was launched and nothing was spent.`,
        "The service answered with server errors, timed out or could not be reached for longer than diffward waits (`DIFFWARD_SERVICE_OUTAGE_MAX_WAIT`); `onServiceOutage` in `.github/diffward.yml` sets how this check concludes.",
        "Once the service is back, press **Re-run** on this check, comment `/diffward rescan` or push again.",
      ),
    }),
    ["waitedMinutes"],
  ),
  launch_unconfirmed: entry(() => ({
    title: "Scanning service unavailable: launch not confirmed",
    summary: wwn(
      "diffward sent this scan to the scanning service, but its answer was lost (a server error, a timeout or no answer) and the service is unavailable.",
      "The service may have started the scan, which then runs and spends credits, so diffward neither launches it again nor concludes this check before it knows; what it holds under `creditCap.monthly` stays held meanwhile.",
      "Nothing to do: as soon as the service answers, diffward looks the scan up in the service's scan list and reports it here, or launches it once if it never reached the service.",
    ),
  })),
  network: entry((x: Unavailable) => unavailable("network", x)),
  superseded: entry(
    /** `sameHead`: a new explicit request (Re-run, Scan anyway, rescan) of the same commit replaced it */
    (x: { bySha: string; sameHead?: boolean }) =>
      x.sameHead
        ? {
            title: "Replaced by a new scan of this commit",
            summary: wwn(
              "diffward stopped following this scan.",
              "A new scan of this commit was requested (Re-run, Scan anyway or `/diffward rescan`); it runs in a new `diffward` check run.",
              "See the newest `diffward` check run on this commit.",
            ),
          }
        : {
            title: `Superseded by ${x.bySha.slice(0, 7)}`,
            summary: wwn(
              "diffward stopped following this scan.",
              `A newer commit ${shortSha(x.bySha)} was pushed to the pull request; its scan replaces this one.`,
              "See the check run on the newer commit.",
            ),
          },
    ["bySha"],
  ),
  timed_out: entry(
    (x: { waitedSeconds: number; scanId?: string; lastPercent?: number }) => ({
      title: "Scan timed out",
      summary: wwn(
        `diffward stopped waiting for scan${x.scanId ? ` ${inlineCode(x.scanId)}` : ""} after ${seconds(x.waitedSeconds).replace(/^in /, "")}${x.lastPercent !== undefined ? `, at ${x.lastPercent}%` : ""}.`,
        "The scan did not reach a final state in the time diffward allows.",
        "Comment `/diffward rescan` to try again, or raise the timeout in `.github/diffward.yml`. The scan may still finish in the service.",
      ),
    }),
    ["waitedSeconds"],
  ),
  scan_failed: entry(
    (x: { scanId: string; message?: string }) => ({
      title: "Scan failed",
      summary: wwn(
        `Scan ${inlineCode(x.scanId)} stopped on an error in the scanning service (status \`FAILED\`).`,
        "The service did not say why beyond what is quoted below.",
        "Comment `/diffward rescan` or push again to retry. Unused credits return to the balance.",
        quoted(x.message),
      ),
    }),
    ["scanId"],
  ),
  scan_cancelled: entry(
    (x: { scanId: string; message?: string; cause?: ScanCancelCause }) => ({
      title: "Scan cancelled",
      summary: wwn(
        `Scan ${inlineCode(x.scanId)} was cancelled (status \`CANCELLED\`).`,
        cancelWhy(x.cause),
        cancelNext(x.cause),
        quoted(x.message),
      ),
    }),
    ["scanId"],
  ),
  config_invalid: entry(
    (x: { path: string; problems: readonly string[] }) => {
      const problems = x.problems?.length ? x.problems : ["(no detail)"];
      return {
        title: `Invalid ${x.path}`,
        summary: wwn(
          `diffward did not scan: ${inlineCode(x.path)} is invalid.`,
          `It has ${plural(problems.length, "problem")}:\n\n${codeBlock(problems.join("\n"))}`,
          `Fix ${inlineCode(x.path)} in this pull request; diffward scans again on the next push.`,
        ),
      };
    },
    ["path", "problems"],
  ),
  not_onboarded: entry((x: { message?: string; setupUrl?: string }) => ({
    title: "Repository not set up for scanning",
    summary: wwn(
      "diffward did not scan this pull request.",
      "This repository is not connected to a project in the scanning service yet.",
      `Connect it${x.setupUrl ? ` (${link("setup", x.setupUrl)})` : ""}: add the repository to a project in the scanning service and give diffward a token for it.`,
      quoted(x.message),
    ),
  })),
  no_token: entry((x: { setupUrl?: string }) => ({
    title: "No scanning service token",
    summary: wwn(
      "diffward did not scan this pull request.",
      "No scanning service token is configured for this installation or repository.",
      `Create a token with the \`read\`, \`scans:launch\` and \`findings:write\` scopes in the scanning service and register it with diffward${x.setupUrl ? ` (${link("setup", x.setupUrl)})` : ""}.`,
    ),
  })),
};

/** A launch or scan error diffward explains on a check run: a key of the catalogue above. */
export type LaunchErrorKind = keyof typeof LAUNCH_ERRORS;

/** Details each launch or scan error kind accepts (the catalogue's parameter types). */
export type LaunchErrorDetails = {
  [K in LaunchErrorKind]: Parameters<(typeof LAUNCH_ERRORS)[K]["render"]>[0];
};

/** Every kind {@link renderLaunchError} renders, in the catalogue's order. */
export const LAUNCH_ERROR_KINDS = Object.keys(LAUNCH_ERRORS) as readonly LaunchErrorKind[];

type DetailsArg<K extends LaunchErrorKind> =
  Record<string, never> extends LaunchErrorDetails[K]
    ? [details?: LaunchErrorDetails[K]]
    : [details: LaunchErrorDetails[K]];

/**
 * Output for a scan that could not be launched or did not finish, one per {@link LaunchErrorKind}, from the
 * catalogue of kinds above (what happened, why, what next, and the spec section of each).
 *
 * @throws DomainInputError for an unknown kind, or when a required detail (e.g. `bySha` of
 *   `superseded`, `problems` of `config_invalid`) is missing.
 */
export function renderLaunchError<K extends LaunchErrorKind>(
  kind: K,
  ...args: DetailsArg<K>
): CheckRunOutput {
  if (!Object.hasOwn(LAUNCH_ERRORS, kind)) {
    throw new DomainInputError(`unknown launch error kind ${JSON.stringify(kind)}`, [
      `expected one of ${LAUNCH_ERROR_KINDS.join(", ")}`,
    ]);
  }
  const known = LAUNCH_ERRORS[kind] as LaunchErrorEntry<Record<string, unknown>>;
  const details = (args[0] ?? {}) as Record<string, unknown>;
  const missing = (known.required ?? []).filter((field) => details[field] === undefined);
  if (missing.length > 0) {
    throw new DomainInputError(
      `missing details for launch error ${kind}`,
      missing.map((field) => `${field}: required`),
    );
  }
  return known.render(details);
}
