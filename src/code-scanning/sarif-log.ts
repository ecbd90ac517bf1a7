/**
 * The SARIF 2.1.0 log diffward uploads to GitHub code scanning, built by a pure function.
 *
 * Sources: the OASIS SARIF 2.1.0 standard (schema `sarif-schema-2.1.0.json`), GitHub "SARIF support for
 * code scanning" (which properties GitHub reads: `ruleId`, `level`, `message.text`, physical locations,
 * `partialFingerprints`, a rule's `properties.security-severity` with the `security` tag) and GitHub REST
 * "Upload an analysis as SARIF data" (the limits in {@link SARIF_LIMITS}).
 */
import { gzipSync } from "node:zlib";
import type { Log, ReportingDescriptor, Result } from "sarif";
import { fingerprint } from "../domain/identity.js";
import { parseLocation } from "../domain/location.js";
import type { ReportFinding, SeverityLevel } from "../domain/finding-types.js";
import { isRuledOut, sortFindings } from "../domain/verdict.js";
import { findingTitle, neutralize } from "../render/escape.js";
import { findingLabel } from "../scanner/labels.js";

/** The tool name of diffward's analyses (`tool_name` of the upload, `tool.driver.name` of the run). */
export const TOOL_NAME = "diffward";

/**
 * The `partialFingerprints` key holding diffward's finding fingerprint (src/domain/identity.ts). `v2`
 * since the fingerprint keeps the whole title and the start line: a new key rather
 * than new values under the old one, so GitHub never compares fingerprints of the two rules.
 */
export const FINGERPRINT_KEY = "diffwardFindingIdentity/v2";

/**
 * GitHub's documented limits (REST "Upload an analysis as SARIF data"; "SARIF results exceed one or more
 * limits"; "SARIF file is too large"): an upload over a maximum is rejected as a whole.
 */
export const SARIF_LIMITS = {
  /** most results per run GitHub keeps (the hard maximum is 25,000; beyond 5,000 it drops the least severe) */
  resultsPerRun: 5_000,
  /** rules per run (hard maximum) */
  rulesPerRun: 25_000,
  /** tags per rule GitHub keeps (hard maximum 20) */
  tagsPerRule: 10,
  /** the gzip-compressed file, in bytes (10 MB) */
  gzipBytes: 10 * 1024 * 1024,
  /** characters of a rule id diffward writes (GitHub shows rule ids in lists; long ones are cut) */
  ruleIdChars: 255,
} as const;

/**
 * `security-severity` per severity: GitHub reads it as a CVSS-like score and shows critical (9.0–10.0),
 * high (7.0–8.9), medium (4.0–6.9), low (0.1–3.9) or none (0.0) (GitHub changelog 2021-07-19, "SARIF
 * support for code scanning", reportingDescriptor). Each level maps to a score inside its band.
 */
export const SECURITY_SEVERITY: Record<SeverityLevel, string> = {
  CRITICAL: "9.5",
  HIGH: "8.0",
  MEDIUM: "5.5",
  LOW: "2.0",
  INFO: "0.0",
};

/** SARIF `level` per severity: the blocking-class levels are errors, medium a warning, the rest notes. */
export const SARIF_LEVEL: Record<SeverityLevel, NonNullable<Result["level"]>> = {
  CRITICAL: "error",
  HIGH: "error",
  MEDIUM: "warning",
  LOW: "note",
  INFO: "note",
};

const SEVERITY_ORDER: readonly SeverityLevel[] = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"];

/** What {@link buildSarif} needs. */
export interface SarifInput {
  /** every finding of the report; only the open ones (not ruled out) become results */
  findings: readonly ReportFinding[];
  /** two-letter label prefix, or "" for bare labels */
  labelPrefix: string;
  /** diffward's version (the run's `tool.driver.version`) */
  toolVersion: string;
  /** the scanned head commit (`versionControlProvenance`) */
  headSha: string;
  /** the scan on the service (`run.properties.scanId`) */
  scanId: string;
  /** the repository's web URL, for `versionControlProvenance.repositoryUri` */
  repositoryUri?: string;
  /** most results per run; defaults to {@link SARIF_LIMITS}.resultsPerRun */
  maxResults?: number;
}

/** The log and what was left out of it. */
export interface BuiltSarif {
  log: Log;
  /** open findings that became results */
  included: number;
  /** open findings left out: over the results cap (least severe first) */
  overLimit: number;
  /** open findings left out: their location names no file GitHub could place an alert on */
  unplaceable: string[];
}

/**
 * The rule id of a finding: its category, trimmed, whitespace collapsed, at most 255 characters;
 * `uncategorized` when empty. GitHub matches alerts across analyses by rule id and fingerprint, so it
 * must not change between pushes (it depends on the category only).
 */
export function ruleIdOf(category: string): string {
  const id = category.trim().replace(/\s+/g, " ").slice(0, SARIF_LIMITS.ruleIdChars);
  return id === "" ? "uncategorized" : id;
}

/**
 * The alert message of a finding: `SC-1a2b3c4d: <title> (diffward finding <id>)`. The label and the
 * full id let diffward find the finding again from the alert alone (webhooks, after a Redis flush):
 * see {@link findingIdFromMessage}. The title is untrusted: neutralized as any text diffward posts
 * (no mention, reference or HTML), and its square brackets escaped so it cannot form a SARIF embedded
 * link (SARIF 2.1.0 §3.11.6).
 */
export function alertMessage(f: Pick<ReportFinding, "id" | "title">, labelPrefix: string): string {
  const title = findingTitle(f.title).replace(/[[\]\\]/g, (c) => `\\${c}`);
  return `${findingLabel(f.id, labelPrefix)}: ${title} (diffward finding ${f.id})`;
}

const MESSAGE_ID = /\(diffward finding ([A-Za-z0-9_-]{1,128})\)\s*$/;
const MESSAGE_LABEL = /^([A-Za-z]{2}-)?([A-Za-z0-9_]{8}):/;

/**
 * The finding named by an alert's message ({@link alertMessage}): the full id when present, else the
 * label (`XX-xxxxxxxx`, which every finding endpoint of the service accepts). `undefined` for a message
 * diffward did not write.
 */
export function findingIdFromMessage(text: string): { id: string } | { label: string } | undefined {
  const full = MESSAGE_ID.exec(text.trim());
  if (full) return { id: full[1]! };
  const label = MESSAGE_LABEL.exec(text.trim());
  if (label) return { label: `${label[1] ?? ""}${label[2]!}` };
  return undefined;
}

/**
 * Builds the SARIF 2.1.0 log of a report (pure): one run of tool `diffward`; one result per open finding
 * (not ruled out: `isRuledOut`), most severe first, at most `maxResults` (GitHub keeps 5,000 per run);
 * `ruleId` from the category ({@link ruleIdOf}); `level` from the severity ({@link SARIF_LEVEL});
 * `message.text` from {@link alertMessage}; one physical location with the repository-relative path and,
 * when the location has lines, `region.startLine`/`endLine`; `partialFingerprints` keyed
 * {@link FINGERPRINT_KEY} with diffward's fingerprint (path, category, whole normalized title, start
 * line: src/domain/identity.ts), so an alert follows the finding across pushes that do not move it, and
 * two findings of the same shape stay two alerts. Each rule carries the `security` tag and `properties.security-severity` of
 * its most severe result (GitHub reads severity from rules only). A finding whose location names no file
 * cannot become an alert (GitHub requires a location) and is listed in `unplaceable`.
 */
export function buildSarif(input: SarifInput): BuiltSarif {
  const max = input.maxResults ?? SARIF_LIMITS.resultsPerRun;
  const open = sortFindings(input.findings.filter((f) => !isRuledOut(f)));
  const { placed, unplaceable } = placeFindings(open);
  const kept = placed.slice(0, max);
  const rules = sarifRules(kept.map((p) => p.f));
  const ruleIndex = new Map([...rules.keys()].map((id, i) => [id, i]));
  const results: Result[] = kept.map((p) => sarifResult(p, ruleIndex, input.labelPrefix));

  const log: Log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: TOOL_NAME,
            version: input.toolVersion,
            informationUri: "https://github.com/apps/diffward",
            rules: [...rules.values()].map((r) => r.rule),
          },
        },
        automationDetails: { id: `${TOOL_NAME}/pull-request/` },
        versionControlProvenance: [
          {
            repositoryUri: input.repositoryUri ?? "https://github.com/",
            revisionId: input.headSha,
          },
        ],
        results,
        properties: { scanId: input.scanId },
      },
    ],
  };
  return { log, included: results.length, overLimit: placed.length - kept.length, unplaceable };
}

/** A finding placed in a file of the repository, with its lines when the location has them. */
interface PlacedFinding {
  f: ReportFinding;
  path: string;
  startLine?: number;
  endLine?: number;
}

/** The findings whose location names a file, and the ids of those whose location names none. Pure. */
function placeFindings(open: readonly ReportFinding[]): { placed: PlacedFinding[]; unplaceable: string[] } {
  const unplaceable: string[] = [];
  const placed: PlacedFinding[] = [];
  for (const f of open) {
    const loc = parseLocation(f.location);
    if (!loc) {
      unplaceable.push(f.id);
      continue;
    }
    placed.push({
      f,
      path: loc.path,
      ...(loc.startLine !== undefined ? { startLine: loc.startLine } : {}),
      ...(loc.endLine !== undefined ? { endLine: loc.endLine } : {}),
    });
  }
  return { placed, unplaceable };
}

/**
 * One rule per category, in order of first appearance, with the level and `security-severity` of its most
 * severe finding (GitHub reads severity from rules only). Pure.
 */
function sarifRules(
  findings: readonly ReportFinding[],
): Map<string, { rule: ReportingDescriptor; worst: SeverityLevel }> {
  const rules = new Map<string, { rule: ReportingDescriptor; worst: SeverityLevel }>();
  for (const f of findings) {
    const id = ruleIdOf(f.category);
    const known = rules.get(id);
    if (!known) {
      rules.set(id, {
        worst: f.severity,
        rule: {
          id,
          name: id,
          shortDescription: { text: `diffward: ${neutralize(id)}` },
          defaultConfiguration: { level: SARIF_LEVEL[f.severity] },
          properties: { tags: ["security"], "security-severity": SECURITY_SEVERITY[f.severity] },
        },
      });
    } else if (SEVERITY_ORDER.indexOf(f.severity) < SEVERITY_ORDER.indexOf(known.worst)) {
      known.worst = f.severity;
      known.rule.defaultConfiguration = { level: SARIF_LEVEL[f.severity] };
      known.rule.properties = { tags: ["security"], "security-severity": SECURITY_SEVERITY[f.severity] };
    }
  }
  return rules;
}

/** The SARIF result of one placed finding. Pure. */
function sarifResult(p: PlacedFinding, ruleIndex: ReadonlyMap<string, number>, labelPrefix: string): Result {
  const { f, path, startLine, endLine } = p;
  const ruleId = ruleIdOf(f.category);
  return {
    ruleId,
    ruleIndex: ruleIndex.get(ruleId)!,
    level: SARIF_LEVEL[f.severity],
    message: { text: alertMessage(f, labelPrefix) },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: encodeUriPath(path), uriBaseId: "%SRCROOT%" },
          ...(startLine !== undefined
            ? { region: { startLine, endLine: Math.max(startLine, endLine ?? startLine) } }
            : {}),
        },
      },
    ],
    partialFingerprints: { [FINGERPRINT_KEY]: fingerprint(f) },
    properties: {
      findingId: f.id,
      severity: f.severity,
      triageStatus: f.triageStatus,
      resolutionStatus: f.resolutionStatus,
    },
  };
}

/** A repository-relative path as a URI reference: each segment percent-encoded, slashes kept. */
function encodeUriPath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** Thrown when even a log cut down to its most severe result is over GitHub's 10 MB (gzip) limit. */
export class SarifTooLargeError extends Error {
  override readonly name = "SarifTooLargeError";
  constructor(readonly gzipBytes: number) {
    super(`the SARIF log is ${gzipBytes} bytes gzip-compressed, over GitHub's limit of 10 MB`);
  }
}

/** An encoded upload and what it holds. */
export interface EncodedSarif extends BuiltSarif {
  /** gzip + Base64, the `sarif` field of the upload */
  sarif: string;
  /** size of the gzip-compressed log, in bytes */
  gzipBytes: number;
}

/**
 * Builds and encodes the upload (gzip, then Base64: REST "Upload an analysis as SARIF data"). When the
 * compressed log is over `maxGzipBytes` (GitHub: 10 MB), the least severe results are dropped (halving
 * the count each time) until it fits; they are counted in `overLimit`.
 * @throws SarifTooLargeError when a single result does not fit.
 */
export function encodeSarif(input: SarifInput, maxGzipBytes: number = SARIF_LIMITS.gzipBytes): EncodedSarif {
  let max = input.maxResults ?? SARIF_LIMITS.resultsPerRun;
  for (;;) {
    const built = buildSarif({ ...input, maxResults: max });
    const gz = gzipSync(Buffer.from(JSON.stringify(built.log), "utf8"));
    if (gz.length <= maxGzipBytes) {
      return { ...built, sarif: gz.toString("base64"), gzipBytes: gz.length };
    }
    if (built.included <= 1) throw new SarifTooLargeError(gz.length);
    max = Math.floor(built.included / 2);
  }
}
