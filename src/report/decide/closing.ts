/**
 * Findings that close themselves on GitHub, decided. After a scan that completed with full
 * coverage, a finding diffward commented on and that the scan no longer reports gets its comment edited
 * to "Not reported by the scan of <sha>" and its review thread resolved; when a later scan reports it
 * again, the thread is reopened (and the report refreshes the comment). diffward never sets `RESOLVED` on
 * the service by itself: only GitHub changes here.
 *
 * Pure: the coverage ({@link closingCoverage}) and the thread writes ({@link planNotReported}); the report's
 * write step applies them (`src/report/write/closing-threads.ts`).
 */
import { classifyFindings } from "../../domain/identity.js";
import { OPEN_RESOLUTIONS } from "../../domain/verdict.js";
import { parseNotReportedMarker, renderNotReportedComment } from "../../render/not-reported.js";
import type { ReportScope } from "../../stores/stored-report.js";
import type { PostedFindingComment } from "./posted.js";

/**
 * True when a scan of scope `current` looks at least where the earlier scan of scope `previous` looked:
 * the same preset (another preset runs other analyses, spec "Scan preset"), and either no audit areas
 * (the whole change) or every earlier area (spec "Audit area": `auditAreaKeys` scope a scan). No earlier
 * scope known → false: nothing is closed on a guess.
 */
export function scopeCovers(current: ReportScope, previous: ReportScope | undefined): boolean {
  if (!previous || current.presetRef !== previous.presetRef) return false;
  if (current.auditAreas.length === 0) return true;
  if (previous.auditAreas.length === 0) return false;
  const now = new Set(current.auditAreas);
  return previous.auditAreas.every((a) => now.has(a));
}

/**
 * Whether a completed scan had full coverage: not short of budget (spec "What the service does": a scan
 * that runs short of budget stops early and its coverage is partial; known once its spend is settled,
 * `ranShort` from the usage ledger) and a scope that covers the earlier one ({@link scopeCovers}).
 */
export type Coverage =
  { complete: true } | { complete: false; why: "ran-short" | "not-settled" | "scope-changed" };

/** Decides {@link Coverage} from `ranShort` (undefined: settlement not in yet) and the scope rule. */
export function decideCoverage(input: { ranShort: boolean | undefined; scopeCovers: boolean }): Coverage {
  if (!input.scopeCovers) return { complete: false, why: "scope-changed" };
  if (input.ranShort === undefined) return { complete: false, why: "not-settled" };
  if (input.ranShort) return { complete: false, why: "ran-short" };
  return { complete: true };
}

/** Most scopes remembered per pull request (a long-lived pull request that keeps changing scope). */
export const MAX_REMEMBERED_SCOPES = 20;

/** A scope no scan covers: remembered when older scopes had to be forgotten, so nothing closes on a guess. */
const FORGOTTEN_SCOPE: ReportScope = { presetRef: "*forgotten*", auditAreas: [] };

/**
 * The coverage of a new report against the pull request's earlier reports (pure): the scope must cover
 * every scope reported before ({@link scopeCovers}); no earlier report known (a first report, or state
 * lost) → not covered: comments of unknown scans are never closed. The scan must not have run short.
 * @returns the coverage and the scopes to remember (distinct, oldest first). Past
 * {@link MAX_REMEMBERED_SCOPES}, the oldest are replaced by a scope nothing covers, which turns closing
 * off for that pull request rather than closing on a guess.
 */
export function closingCoverage(
  previous:
    { presetRef: string; config: { auditAreas?: string[] | undefined }; scopes?: ReportScope[] } | undefined,
  current: { scope: ReportScope; ranShort: boolean | undefined },
): { coverage: Coverage; scopes: ReportScope[] } {
  const earlier: ReportScope[] = previous
    ? (previous.scopes ?? [{ presetRef: previous.presetRef, auditAreas: previous.config.auditAreas ?? [] }])
    : [];
  const covers = previous !== undefined && earlier.every((s) => scopeCovers(current.scope, s));
  const key = (s: ReportScope) => JSON.stringify([s.presetRef, [...s.auditAreas].sort()]);
  let scopes = [...earlier.filter((s) => key(s) !== key(current.scope)), current.scope];
  if (scopes.length > MAX_REMEMBERED_SCOPES)
    scopes = [FORGOTTEN_SCOPE, ...scopes.slice(-(MAX_REMEMBERED_SCOPES - 1))];
  return { coverage: decideCoverage({ ranShort: current.ranShort, scopeCovers: covers }), scopes };
}

/** A reported scan as {@link planNotReported} reads it: its findings (identity and resolution), coverage and head. */
export interface ReportedScan {
  findings: ReadonlyArray<{
    id: string;
    fingerprint: string;
    shape?: string;
    triageStatus?: string;
    resolutionStatus: string;
  }>;
  coverage: Coverage;
  scan: { id: string; headSha: string };
}

/** A planned GitHub write of {@link planNotReported}. */
export type ThreadWrite =
  | { kind: "close"; commentId: number; findingId: string; body: string }
  | { kind: "reopen"; commentId: number; findingId: string };

/**
 * Plans the writes (pure):
 * - `close`: a posted finding comment that matches no finding of the scan (identity: equal id, then
 *   equal fingerprint, then recognised shape; one-to-one, src/domain/identity.ts) and is not already in the not-reported state, only with full coverage;
 *   the edited body is {@link renderNotReportedComment};
 * - `reopen`: a comment in the not-reported state whose finding the scan reports again and whose
 *   resolution is open (`NOT_STARTED`, `IN_PROGRESS`); whatever the coverage. A finding reported again
 *   with a closing resolution keeps its thread resolved.
 */
export function planNotReported(
  input: ReportedScan & { posted: readonly PostedFindingComment[] },
): ThreadWrite[] {
  const previous = input.posted.map((p) => ({
    id: p.findingId,
    fingerprint: p.fingerprint,
    shape: p.shape,
    legacy: p.version === 1 ? ("comment" as const) : undefined,
    p,
  }));
  const { matched, gone } = classifyFindings(previous, input.findings);
  const writes: ThreadWrite[] = [];
  if (input.coverage.complete) {
    for (const { p } of gone) {
      if (parseNotReportedMarker(p.body) !== undefined) continue;
      writes.push({
        kind: "close",
        commentId: p.commentId,
        findingId: p.findingId,
        body: renderNotReportedComment(p.body, input.scan),
      });
    }
  }
  for (const m of matched) {
    if (parseNotReportedMarker(m.previous.p.body) === undefined) continue;
    if (!OPEN_RESOLUTIONS.includes(m.current.resolutionStatus)) continue;
    writes.push({ kind: "reopen", commentId: m.previous.p.commentId, findingId: m.current.id });
  }
  return writes;
}
