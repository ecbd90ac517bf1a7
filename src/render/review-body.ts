/**
 * The body of the one review diffward posts per report (GitHub REST "Create a review for a pull
 * request", `body`, at most 65,536 characters). It carries the same tally as the check run and the
 * reply commands, once, collapsed (they are not repeated under each finding comment).
 */
import type { Verdict } from "../domain/verdict.js";
import { findingTally, plural } from "./glossary.js";
import { REPLY_COMMANDS_HINT } from "./inline-comment.js";
import { details, sections } from "./markdown.js";

/**
 * `diffward found 9 findings: 6 open (2 blocking), 3 ruled out. 4 are commented on changed lines below.`
 * then a collapsed "Triage commands" block.
 *
 * @param verdict the verdict of the whole scan (`decideConclusion`), the same one the check run shows
 * @param commented how many finding comments this review posts
 */
export function renderReviewBody(
  verdict: Pick<Verdict, "total" | "open" | "blocking" | "ruledOut">,
  commented: number,
): string {
  return sections(
    `diffward found ${findingTally(verdict)}. ${plural(commented, "finding")} ${commented === 1 ? "is" : "are"} commented on changed lines below; the \`diffward\` check run lists them all.`,
    details("Triage commands", REPLY_COMMANDS_HINT),
  );
}
