/**
 * Check run annotations for findings.
 *
 * GitHub doc: "Update a check run", `output.annotations`
 * (https://docs.github.com/en/rest/checks/runs#update-a-check-run): at most 50 per request;
 * `annotation_level` is `notice`, `warning` or `failure`; `title` at most 255 characters;
 * `message` and `raw_details` at most 64 KB; `path` relative to the repository root.
 */
import { SEVERITIES } from "../scanner/catalog.js";
import { findingLabel } from "../scanner/labels.js";
import { parseLocation } from "../domain/location.js";
import type { Disclosure, ReportFinding } from "../domain/finding-types.js";
import { applyPolicy, sortFindings, type BlockingInput } from "../domain/verdict.js";
import type { PolicyMode } from "../config/repo-config.js";
import { findingTitle, plainText } from "./escape.js";
import { severityWord } from "./markdown.js";
import { statusName } from "./glossary.js";
import {
  ANNOTATIONS_PER_REQUEST,
  ANNOTATION_MESSAGE_MAX_BYTES,
  ANNOTATION_RAW_DETAILS_MAX_BYTES,
  ANNOTATION_TITLE_MAX_CHARS,
  truncateBytes,
  truncateChars,
} from "./limits.js";

/** One annotation as the check runs API takes it. */
export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: "notice" | "warning" | "failure";
  title: string;
  message: string;
  raw_details?: string;
}

/** What an annotation adds for a finding already open on the base branch's baseline, by `failOn.only`. */
const PREEXISTING_NOTE: Record<"all" | "new", string> = {
  all: "Already open on the base branch (its last baseline scan).",
  new: "Already open on the base branch (its last baseline scan): it does not block (failOn only: new).",
};

/** What an annotation adds for a finding under a path rule whose mode is not `block`. */
const MODE_NOTE: Partial<Record<PolicyMode, string>> = {
  comment: "Comment only: it never fails the check",
  monitor: "Monitored: it never fails the check and gets no review comment",
};

/** Options of {@link toAnnotations}. */
export interface AnnotationOptions {
  /**
   * the rule deciding which findings are `failure` annotations (`isBlocking`): a `failOn` setting, or a
   * rule with the findings already open on the base branch's baseline, whose message says so
   */
  failOn: BlockingInput;
  /** label prefix for titles; default `SC` */
  labelPrefix?: string;
}

/**
 * Annotations for the open findings whose location has a line (see `parseLocation`), most severe
 * first. Ruled out findings (false positive, duplicate, decided) and findings without a line get no
 * annotation: they are listed in the summary instead; a finding under a path rule in mode `off` gets none
 * (src/domain/policy.ts `applyPolicy`). Under a rule in mode `monitor` a finding is a `notice` that says so,
 * under `comment` its message says it never fails the check.
 *
 * Level: `failure` for a blocking finding (see `isBlocking`: with `only: new`, not one already open on the
 * base branch's baseline, whose message says it is pre-existing), otherwise `warning` for `CRITICAL`,
 * `HIGH` and `MEDIUM` and `notice` for `LOW` and `INFO`.
 *
 * Disclosure `full`: title `SC-1a2b3c4d · High · <finding title>`, message the description (or the
 * title when there is none) plus the triage status, `raw_details` the recommended fix. Disclosure
 * `summary`: no annotation at all, since an annotation marks the finding's file and lines for anyone who
 * can read the pull request, and the location is what summary disclosure withholds (the same reason
 * nothing is uploaded to code scanning: README "GitHub code scanning").
 * Annotation text is plain text on GitHub, so it is not HTML-escaped, only stripped of control
 * characters; title cut to 255 characters, message and details to 64 KB.
 */
export function toAnnotations(
  findings: readonly ReportFinding[],
  disclosure: Disclosure,
  options: AnnotationOptions,
): CheckAnnotation[] {
  const out: CheckAnnotation[] = [];
  if (disclosure !== "full") return out;
  for (const f of sortFindings(findings)) {
    const s = applyPolicy(f, options.failOn);
    if (s.outcome === "off" || s.outcome === "ruled-out") continue;
    const loc = parseLocation(f.location);
    if (loc?.startLine === undefined) continue;
    const label = findingLabel(f.id, options.labelPrefix);
    const level =
      s.outcome === "blocking"
        ? "failure"
        : s.outcome !== "monitored" && SEVERITIES.indexOf(f.severity) <= SEVERITIES.indexOf("MEDIUM")
          ? "warning"
          : "notice";
    const status =
      `Triage: ${statusName(f.triageStatus)}. Resolution: ${statusName(f.resolutionStatus)}.` +
      (s.preexisting ? ` ${PREEXISTING_NOTE[s.threshold.only]}` : "") +
      (MODE_NOTE[s.mode] ? ` ${MODE_NOTE[s.mode]} (${s.rule}).` : "");
    const annotation: CheckAnnotation = {
      path: loc.path,
      start_line: loc.startLine,
      end_line: loc.endLine ?? loc.startLine,
      annotation_level: level,
      title: oneLine(`${label} · ${severityWord(f.severity)} · ${findingTitle(f.title, { plain: true })}`),
      message: truncateBytes(
        `${f.description?.trim() ? plainText(f.description) : findingTitle(f.title, { plain: true })}\n\n${status}`,
        ANNOTATION_MESSAGE_MAX_BYTES,
        "… (cut to fit GitHub's annotation size limit)",
      ),
    };
    if (f.recommendedFix?.trim()) {
      annotation.raw_details = truncateBytes(
        `Recommended fix:\n${plainText(f.recommendedFix)}`,
        ANNOTATION_RAW_DETAILS_MAX_BYTES,
        "… (cut to fit GitHub's annotation size limit)",
      );
    }
    out.push(annotation);
  }
  return out;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= ANNOTATION_TITLE_MAX_CHARS
    ? flat
    : truncateChars(flat, ANNOTATION_TITLE_MAX_CHARS, "…").replace(/\n\n…$/, "…");
}

/**
 * Splits `items` into chunks of at most `size` (default 50, GitHub's annotations-per-request limit),
 * keeping order. An empty input gives no batch.
 *
 * @throws RangeError when `size` is not a positive integer.
 */
export function batches<T>(items: readonly T[], size: number = ANNOTATIONS_PER_REQUEST): T[][] {
  if (!Number.isSafeInteger(size) || size <= 0)
    throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
