/**
 * Findings that close themselves on GitHub. After a scan that completed with full
 * coverage, a finding diffward commented on and that the scan no longer reports gets its comment edited
 * to "Not reported by the scan of <sha>" and its review thread resolved; when a later scan reports it
 * again, the thread is reopened (and the report refreshes the comment). diffward never sets `RESOLVED` on
 * the service by itself: only GitHub changes here.
 *
 * Planning is pure ({@link planNotReported}); {@link applyThreadWrites} is the short apply step.
 */
import type { Logger } from "pino";
import { classifyFindings } from "../domain/identity.js";
import { OPEN_RESOLUTIONS } from "../domain/verdict.js";
import { listReviewComments, type ExistingReviewComment } from "../github/reviews.js";
import { listReviewThreads } from "../github/threads.js";
import type { InstallationOctokit, PullRef } from "../github/types.js";
import type { ApplyWrites, GitHubWrite } from "../github/writes.js";
import { parseNotReportedMarker, renderNotReportedComment } from "../render/not-reported.js";
import type { Runtime } from "../runtime/runtime.js";
import { findingLabel } from "../scanner/labels.js";
import { postedFindingComments, type PostedFindingComment } from "./posted.js";

/** What a scan looked at, as far as coverage goes: its preset and its audit areas (empty = everything). */
export interface ReportScope {
  presetRef: string;
  auditAreas: readonly string[];
}

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

/** What {@link applyThreadWrites} did. */
export interface ThreadWritesDone {
  closed: number;
  reopened: number;
  /** the closes whose comment was edited and the reopens whose thread was reopened, in order */
  applied: ThreadWrite[];
}

/**
 * Applies planned thread writes through the installation's write path (`apply`): edits the comment (GitHub
 * REST "Update a review comment for a pull request") and resolves its thread, or unresolves a thread (GraphQL
 * `resolveReviewThread` / `unresolveReviewThread`; threads read once with `listReviewThreads`). A comment
 * edit failure is thrown (the job retries; writes are idempotent: an edited comment is skipped by the next
 * plan); a thread change is a best-effort write: its failure is logged and skipped, like the command job's
 * thread sync.
 *
 * @returns how many threads were closed and reopened, and the writes applied (each edited comment; each
 * reopened thread).
 */
export async function applyThreadWrites(
  octokit: InstallationOctokit,
  apply: ApplyWrites,
  pull: PullRef,
  writes: readonly ThreadWrite[],
  log: Logger,
): Promise<ThreadWritesDone> {
  const done: ThreadWritesDone = { closed: 0, reopened: 0, applied: [] };
  if (writes.length === 0) return done;
  const closes = writes.filter((w) => w.kind === "close");
  await apply(
    closes.map((w) => ({
      kind: "update-review-comment",
      repo: pull,
      commentId: w.commentId,
      body: w.body,
      purpose: "review",
    })),
  );
  done.applied.push(...closes);
  let threads: Map<number, { id: string; isResolved: boolean }>;
  try {
    threads = await listReviewThreads(octokit, pull);
  } catch (error) {
    log.warn({ err: error }, "review threads not read: not-reported threads left as they are");
    return done;
  }
  const found = writes.flatMap((w) => {
    const thread = threads.get(w.commentId);
    if (!thread) log.warn({ commentId: w.commentId }, "review thread not found");
    return thread ? [{ w, thread, resolved: w.kind === "close" }] : [];
  });
  const changes = found.filter((t) => t.thread.isResolved !== t.resolved);
  const results = await apply(changes.map((t) => threadChange(t.thread.id, t.resolved)));
  for (const t of found) {
    const result = results[changes.indexOf(t)];
    if (result?.kind === "failed") {
      log.warn(
        { err: result.message, commentId: t.w.commentId, resolved: t.resolved },
        "could not change the review thread: ignored",
      );
      continue;
    }
    if (t.resolved) done.closed += 1;
    else {
      done.reopened += 1;
      done.applied.push(t.w);
    }
  }
  return done;
}

/** A thread resolved or reopened by the report: best effort (a failure leaves the thread as it is). */
function threadChange(threadId: string, resolved: boolean): GitHubWrite {
  return { kind: "set-review-thread-resolved", threadId, resolved, purpose: "review", bestEffort: true };
}

/**
 * Lists the pull request's review comments and applies {@link planNotReported} for a reported scan:
 * the entry point of the report job (with the comments it already read) and of the settlement job (when
 * the settlement that proves full coverage lands after the report).
 */
export async function syncNotReported(
  octokit: InstallationOctokit,
  apply: ApplyWrites,
  pull: PullRef,
  input: ReportedScan & {
    /** the review comments as read before this report's own review was posted, if already read */
    comments?: readonly ExistingReviewComment[];
    /** diffward's own bot login (`<app slug>[bot]`): only its comments are finding threads */
    botLogin: string;
  },
  log: Logger,
): Promise<ThreadWritesDone> {
  const comments = input.comments ?? (await listReviewComments(octokit, pull));
  const writes = planNotReported({
    posted: postedFindingComments(comments, input.botLogin),
    findings: input.findings,
    coverage: input.coverage,
    scan: input.scan,
  });
  const done = await applyThreadWrites(octokit, apply, pull, writes, log);
  if (writes.length > 0 || !input.coverage.complete)
    log.info(
      {
        closed: done.closed,
        reopened: done.reopened,
        coverage: input.coverage.complete ? "full" : input.coverage.why,
      },
      "not-reported findings synced",
    );
  return done;
}

/**
 * Appends an audit entry (`src/stores/audit-log.ts`, source `auto-close`, actor diffward's bot) for each
 * applied write: `auto-close` for a finding the scan no longer reports (its comment marked, its thread
 * resolved), `reopen` for one reported again. The service's resolution is not changed by either. Never throws.
 */
export async function auditThreadWrites(
  rt: Pick<Runtime, "redis" | "stores" | "settings" | "log" | "now">,
  on: { installationId: number; pull: PullRef; botLogin: string; scan: { id: string; headSha: string } },
  applied: readonly ThreadWrite[],
): Promise<void> {
  const { pull, scan } = on;
  for (const w of applied)
    await rt.stores.audit.append({
      installationId: on.installationId,
      repository: `${pull.owner}/${pull.repo}`,
      pullNumber: pull.pullNumber,
      findingId: w.findingId,
      findingLabel: findingLabel(w.findingId, rt.settings.labelPrefix),
      actor: on.botLogin,
      action: w.kind === "close" ? "auto-close" : "reopen",
      source: "auto-close",
      outcome: "applied",
      detail:
        w.kind === "close"
          ? `not reported by the scan ${scan.id} of ${scan.headSha}: comment marked, review thread resolved`
          : `reported again by the scan ${scan.id} of ${scan.headSha}: review thread reopened`,
    });
}
