/**
 * Findings that close themselves on GitHub, written: the thread writes {@link planNotReported} decided are
 * applied through the installation's write path (the comment edited, the review thread resolved or
 * reopened) and audited.
 */
import type { Logger } from "pino";
import { listReviewComments, type ExistingReviewComment } from "../../github/reviews.js";
import { listReviewThreads } from "../../github/threads.js";
import type { InstallationOctokit, PullRef } from "../../github/octokit-types.js";
import type { ApplyWrites, GitHubWrite } from "../../github/writes.js";
import type { Runtime } from "../../runtime/runtime.js";
import { findingLabel } from "../../scanner/labels.js";
import { planNotReported, type ReportedScan, type ThreadWrite } from "../decide/closing.js";
import { postedFindingComments } from "../decide/posted.js";

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
