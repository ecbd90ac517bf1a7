/**
 * The review comment diffward posts on the diff line of a finding, and the hidden marker that lets
 * diffward find its own comment again (STYLE.md "Sticky comments").
 *
 * GitHub doc: "Create a review comment for a pull request"; body at most 65,536 characters.
 */
import { expiryText } from "../domain/acceptance.js";
import { FINGERPRINT_VERSION, identityOf } from "../domain/identity.js";
import type { ReportFinding } from "../domain/finding-types.js";
import { DomainInputError } from "../domain/finding-types.js";
import { findingTitle, inlineCode, neutralize } from "./escape.js";
import { evidenceText, labelCode, matchedByText, resolutionText, triageText } from "./format.js";
import { locationMarkdown, statusMarkdown } from "./glossary.js";
import { COMMENT_BODY_MAX_CHARS, truncateChars } from "./limits.js";
import { sections, severityBadge } from "./markdown.js";
import { safeMarkdown } from "./untrusted-markdown.js";
import { renderFindingNotes, type FindingNoteView } from "./finding-notes.js";

/** A team decision shown under the finding (spec §Findings, `PATCH …/resolution`). */
export interface FindingDecision {
  resolutionStatus: string;
  /** the catalog reason code, when one was given */
  reason?: string;
  /** the note text, when one was given (untrusted Markdown) */
  note?: string;
  /** GitHub login of the person who decided */
  by: string;
  /** GitHub login of the second person, for a dismissal approved under `triage.approval` */
  approvedBy?: string;
  /** when, as an ISO 8601 date-time */
  at: string;
  /** the acceptance's expiry (`/wontfix … until …`), ISO 8601 */
  expiresAt?: string;
}

export interface FindingCommentOptions {
  /** two-letter label prefix, or "" for bare labels */
  labelPrefix: string;
  decision?: FindingDecision;
  /** the service's public web address (`SCANNER_PUBLIC_URL`): links to it in finding text stay links */
  publicUrl?: string | undefined;
  /** the service's notes on the finding (`disclosure: full` only), shown collapsed */
  notes?: readonly FindingNoteView[];
  /** a dismissal waiting for a second person's approval (`triage.approval`) */
  pendingApproval?: PendingApprovalView;
}

/** A dismissal request waiting for approval, as the finding comment shows it. */
export interface PendingApprovalView {
  resolutionStatus: string;
  reason?: string;
  /** GitHub login of the requester */
  requestedBy: string;
  /** ISO 8601 date-time */
  requestedAt: string;
  /** least repository role of an approver */
  approvers: string;
}

export interface FindingMarker {
  id: string;
  /**
   * 64 lower-case hex characters, see `fingerprint` in src/domain/identity.ts; in a version 1 marker,
   * a fingerprint of the first rule, which never equals a current one (the comment pairs by id only)
   */
  fingerprint: string;
  /** the shape key (`shapeKey` in src/domain/identity.ts); version 2 markers only */
  shape?: string;
  /** 1: `fp=` only (the first fingerprint rule, before shapes); 2: `v=2 fp= shape=` */
  version: 1 | 2;
}

const HEX64 = /^[0-9a-f]{64}$/;
const MARKER_V2 =
  /^<!-- diffward:finding=([A-Za-z0-9%._~-]{1,600}) v=2 fp=([0-9a-f]{64}) shape=([0-9a-f]{64}) -->(?:\r?\n|$)/;
const MARKER_V1 = /^<!-- diffward:finding=([A-Za-z0-9%._~-]{1,600}) fp=([0-9a-f]{64}) -->(?:\r?\n|$)/;

/**
 * The hidden marker line, version 2: `<!-- diffward:finding=<id> v=2 fp=<fingerprint> shape=<shape> -->`
 * (id URI-encoded; both hashes 64 lower-case hex characters, src/domain/identity.ts).
 *
 * @throws DomainInputError when a hash is not 64 lower-case hex characters.
 */
export function findingMarker(id: string, fp: string, shape: string): string {
  if (!HEX64.test(fp) || !HEX64.test(shape))
    throw new DomainInputError("invalid fingerprint", [`expected 64 hex characters`]);
  return `<!-- diffward:finding=${encodeURIComponent(id)} v=${FINGERPRINT_VERSION} fp=${fp} shape=${shape} -->`;
}

/**
 * Reads the marker of a diffward finding comment. The marker must be the very first line of the body
 * (where {@link renderFindingComment} puts it), so a marker-like text further down, such as finding
 * text (sanitized anyway: raw HTML in it is shown as text), never parses. Callers must also check
 * that the comment's author is diffward's own bot account.
 *
 * Both versions are read: a comment diffward posted before the marker carried a version
 * (`<!-- diffward:finding=<id> fp=<fingerprint> -->`) parses as version 1, without a shape.
 *
 * @returns `{ id, fingerprint, shape?, version }`, or `undefined` when the body does not start with a
 * valid marker.
 */
export function parseFindingMarker(body: string | null | undefined): FindingMarker | undefined {
  if (typeof body !== "string") return undefined;
  const text = body.replace(/^\uFEFF/, "");
  const v2 = MARKER_V2.exec(text);
  const m = v2 ?? MARKER_V1.exec(text);
  if (!m) return undefined;
  try {
    const id = decodeURIComponent(m[1]!);
    if (id === "") return undefined;
    return v2
      ? { id, fingerprint: v2[2]!, shape: v2[3]!, version: 2 }
      : { id, fingerprint: m[2]!, version: 1 };
  } catch {
    return undefined;
  }
}

/** The reply commands, listed once in the review body (see ./review-body.ts and src/commands/table.ts). */
export const REPLY_COMMANDS_HINT =
  "Reply to this comment with `/resolve`, `/fp`, `/wontfix`, `/mitigate`, `/duplicate`, `/in-progress` or " +
  "`/reopen` (optionally followed by a reason code or a note), `/severity <level>`, `/note <text>`, or `/help`.";

/**
 * The body of the review comment for one finding: hidden marker (first line), severity badge, label,
 * category and location (`path:line`, see `locationMarkdown`), the title, the description, the
 * recommended fix, triage status with confirmation evidence and resolution status (glossary words), and
 * the team's decision when there is one. The reply commands are not repeated here: the review body
 * lists them once. The title is escaped as one line; description, fix and note go through
 * {@link safeMarkdown} (code kept exactly, no HTML, image, mention or reference). The body is cut to
 * 65,536 characters (the marker stays, as it comes first). The PoC report is left out on purpose:
 * exploit steps do not belong in a pull request that may be public.
 *
 * @throws DomainInputError when the finding has an empty id.
 */
export function renderFindingComment(f: ReportFinding, options: FindingCommentOptions): string {
  if (!f.id) throw new DomainInputError("invalid finding", ["id: must not be empty"]);
  const identity = identityOf(f);
  const marker = findingMarker(f.id, identity.fingerprint, identity.shape);
  const trusted = { trustedOrigin: options.publicUrl };
  const header = `${severityBadge(f.severity)} · ${labelCode(f.id, options.labelPrefix)}${f.category ? ` · ${neutralize(f.category)}` : ""} · ${locationMarkdown(f.location)}`;
  const status =
    `**Triage:** ${triageText(f.triageStatus)}` +
    (f.confirmationEvidence ? ` (${evidenceText(f.confirmationEvidence)})` : "") +
    ` · **Resolution:** ${resolutionText(f.resolutionStatus)}` +
    (f.matchedTo ? ` (earlier decision ${matchedByText(f.matchedTo, options.labelPrefix)})` : "");
  const body = sections(
    marker,
    header,
    `**${findingTitle(f.title)}**`,
    f.description?.trim() && safeMarkdown(f.description, trusted),
    f.recommendedFix?.trim() && `**Recommended fix**\n\n${safeMarkdown(f.recommendedFix, trusted)}`,
    status,
    options.decision && decisionLine(options.decision, options.publicUrl),
    options.pendingApproval && pendingLine(options.pendingApproval),
    options.notes && renderFindingNotes(options.notes, options.publicUrl),
  );
  return truncateChars(
    body,
    COMMENT_BODY_MAX_CHARS,
    `_… cut to fit GitHub's 65,536-character limit. The full finding is ${labelCode(f.id, options.labelPrefix)} in the scanning service._`,
  );
}

function decisionLine(d: FindingDecision, publicUrl: string | undefined): string {
  const reason = d.reason ? ` (${inlineCode(d.reason)})` : "";
  const when = /^\d{4}-\d{2}-\d{2}/.test(d.at) ? d.at.slice(0, 10) : neutralize(d.at);
  const until = d.expiresAt
    ? ` · accepted until **${expiryText(d.expiresAt)}** by ${inlineCode(`@${d.by}`)}`
    : "";
  const line = `**Decision:** ${statusMarkdown(d.resolutionStatus)}${reason} by ${inlineCode(`@${d.by}`)}${d.approvedBy ? `, approved by ${inlineCode(`@${d.approvedBy}`)}` : ""} on ${when}${until}`;
  const safe = d.note?.trim() ? safeMarkdown(d.note, { trustedOrigin: publicUrl }) : "";
  const note = safe ? `\n\n${safe.replace(/^/gm, "> ").replace(/^> $/gm, ">")}` : "";
  return `${line}${note}`;
}

function pendingLine(p: PendingApprovalView): string {
  const reason = p.reason ? ` (${inlineCode(p.reason)})` : "";
  const when = /^\d{4}-\d{2}-\d{2}/.test(p.requestedAt) ? p.requestedAt.slice(0, 10) : "";
  return (
    `⏳ **Dismissal awaiting approval:** ${statusMarkdown(p.resolutionStatus)}${reason}, requested by ` +
    `${inlineCode(`@${p.requestedBy}`)}${when ? ` on ${when}` : ""}. A different user with the ` +
    `${inlineCode(p.approvers)} role or above can reply \`/approve\` (or \`/reject\`); the check is unchanged until then.`
  );
}
