/**
 * The body of a finding comment whose finding a later scan no longer reports (src/report/decide/closing.ts):
 * the hidden finding marker stays first (so the comment is still diffward's and can be matched again), a
 * second hidden marker says which scan no longer reported it, then the sentence "Not reported by the scan of
 * <sha>" and the finding as last reported, collapsed.
 */
import { inlineCode } from "./escape.js";
import { COMMENT_BODY_MAX_CHARS, truncateChars } from "./limits.js";
import { details } from "./markdown.js";

const NOT_REPORTED = /^<!-- diffward:not-reported scan=([A-Za-z0-9._~-]{1,200}) -->$/m;

/**
 * The scan id of the not-reported marker of a finding comment, or `undefined` when the comment is not
 * in the "not reported" state.
 */
export function parseNotReportedMarker(body: string): string | undefined {
  return NOT_REPORTED.exec(body)?.[1];
}

/**
 * Re-writes a finding comment as "Not reported by the scan of <sha>". `previousBody` is diffward's own
 * comment (first line its finding marker, the rest trusted output of `renderFindingComment`); it is
 * kept under a collapsed "As last reported" block. An already not-reported body is returned unchanged.
 * At most 65,536 characters (GitHub's comment limit); the markers come first and survive a cut.
 *
 * @param scan - the scan that no longer reports the finding: its id and the head SHA it scanned.
 */
export function renderNotReportedComment(
  previousBody: string,
  scan: { id: string; headSha: string },
): string {
  if (parseNotReportedMarker(previousBody) !== undefined) return previousBody;
  const newline = previousBody.indexOf("\n");
  const marker = newline < 0 ? previousBody : previousBody.slice(0, newline);
  const rest = newline < 0 ? "" : previousBody.slice(newline + 1).trim();
  const id = scan.id.replace(/[^A-Za-z0-9._~-]/g, "").slice(0, 200) || "unknown";
  const body = [
    marker,
    `<!-- diffward:not-reported scan=${id} -->`,
    "",
    `✅ **Not reported by the scan of ${inlineCode(scan.headSha.slice(0, 7))}** (scan ${inlineCode(scan.id)}). ` +
      "diffward resolved this thread; it reopens if a later scan reports the finding again. " +
      "The finding's status in the scanning service is unchanged.",
    ...(rest ? ["", details("As last reported", rest)] : []),
  ].join("\n");
  return truncateChars(body, COMMENT_BODY_MAX_CHARS, "_… cut to fit GitHub's 65,536-character limit._");
}
