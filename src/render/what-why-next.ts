/**
 * The three parts every explanation on a check run gives a user (STYLE.md, Errors: "User-facing messages
 * say what happened, why, and what to do next").
 */

import { sections } from "./markdown.js";

/** `**What happened:** …`, `**Why:** …` and `**What next:** …` as sections, then the `extra` ones that are set. */
export function whatWhyNext(
  what: string,
  why: string,
  next: string,
  ...extra: (string | undefined | false)[]
): string {
  return sections(`**What happened:** ${what}`, `**Why:** ${why}`, `**What next:** ${next}`, ...extra);
}
