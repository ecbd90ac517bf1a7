/**
 * The `text` of a finished scan's check run with `disclosure: full`: each open finding's description and
 * recommended fix, made safe as Markdown, or where to read them when the report does not carry them.
 *
 * GitHub doc: "Update a check run" (`output.title`, `output.summary`, `output.text`, each summary
 * and text at most 65,535 bytes): https://docs.github.com/en/rest/checks/runs#update-a-check-run
 */

import type { ReportFinding } from "../domain/finding-types.js";
import { findingTitle, neutralize } from "./escape.js";
import { evidenceText, labelCode, resolutionText, triageText } from "./format.js";
import { locationMarkdown } from "./glossary.js";
import { CHECK_RUN_TEXT_MAX_BYTES } from "./limits.js";
import { link, sections, severityBadge } from "./markdown.js";
import { safeMarkdown } from "./untrusted-markdown.js";

/**
 * Each open finding's details, most severe first. Rendering stops once the text is over GitHub's limit
 * (the caller cuts it with a note): sanitizing thousands of descriptions nobody would see costs seconds.
 */
export function detailsText(
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
