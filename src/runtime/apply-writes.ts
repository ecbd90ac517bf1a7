import type { CheckRunUpdate } from "../github/check-runs.js";
import { sendWrite, type ApplyWrites, type GitHubWrite, type WriteResult } from "../github/writes.js";
import type { Runtime } from "./runtime.js";
import type { LanePriority, LaneRequest } from "./write-lane.js";

/** The lane priority of a planned write's purpose (`src/runtime/write-lane.ts`, {@link LANE_PRIORITY}). */
const PRIORITY_OF: Record<GitHubWrite["purpose"], LanePriority> = {
  complete: "complete",
  create: "create",
  // a person who just acted waits for it: first feedback, like a pull request's first check run
  answer: "create",
  update: "update",
  review: "review",
  "code-scanning": "review",
  progress: "progress",
};

/**
 * What the installation's write lane is asked for one planned write: its priority; for a check-run update,
 * the check run (a pending coalescible update of it is taken over); an update without conclusion and
 * without annotations (`progress`, `update`) may itself be taken over (GitHub appends annotations, so a
 * write carrying some is never dropped). Progress has the lowest priority: it goes out only when no other
 * write of the installation waits, and at most one per check run waits (coalesced).
 */
export function laneRequestOf(w: GitHubWrite): LaneRequest {
  if (w.kind !== "update-check-run") return { priority: PRIORITY_OF[w.purpose] };
  const coalescible =
    (w.purpose === "progress" || w.purpose === "update") &&
    !w.check.conclusion &&
    !(w.check.output?.annotations?.length ?? 0);
  return {
    priority: PRIORITY_OF[w.purpose],
    checkRunId: w.checkRunId,
    coalescible,
    fields: { ...w.check },
  };
}

/**
 * Thrown by a runtime's write guard (`Runtime.writeGuard`) when the writes' subject is no longer wanted (a
 * report of a head diffward stopped following): the write is not sent, nor any later one, `bestEffort` or not.
 */
export class WritesWithdrawnError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WritesWithdrawnError";
  }
}

/**
 * The one apply step of every job's planned GitHub writes (`src/github/writes.ts`): sends them for one
 * installation, in the order given, each after the previous one answered. With a write lane
 * (`rt.lane`, shared by every process through Redis), each write first waits for its slot in the
 * installation's lane ({@link laneRequestOf}): a write taken over by a later update of the same check run
 * yields `{ kind: "coalesced" }`; progress is skipped (`{ kind: "skipped" }`) while the hourly budget is tight
 * ({@link progressOff}), except a write that links a check run to its scan ({@link skippable}). A `bestEffort`
 * write that fails is logged and yields `{ kind: "failed" }`; the next writes still go out. The runtime's
 * write guard (`Runtime.writeGuard`), when set, runs right before each write is sent.
 * @returns one result per write, in order (the ids of created check runs and reviews).
 * @throws Octokit's `RequestError` of the first other write that failed, or the write guard's
 *   {@link WritesWithdrawnError}; later writes are not sent.
 */
export async function applyWrites(
  rt: Runtime,
  installationId: number,
  writes: readonly GitHubWrite[],
): Promise<WriteResult[]> {
  if (writes.length === 0) return [];
  const octokit = await rt.octokit(installationId);
  const results: WriteResult[] = [];
  for (const w of writes) {
    try {
      if (skippable(w) && (await progressOff(rt, installationId))) {
        results.push({ kind: "skipped" });
        continue;
      }
      results.push(await sendRetrying(rt, octokit, installationId, w));
    } catch (error) {
      if (!w.bestEffort || error instanceof WritesWithdrawnError) throw error;
      const message = (error as Error).message;
      rt.log.warn({ err: error, write: w.kind, installation: installationId }, "GitHub write failed");
      results.push({ kind: "failed", message });
    }
  }
  return results;
}

/** {@link applyWrites} bound to one installation: what the jobs' steps are handed to write with. */
export function writesOf(rt: Runtime, installationId: number): ApplyWrites {
  return (writes) => applyWrites(rt, installationId, writes);
}

/**
 * Sends one write (through the installation's lane when there is one). A write GitHub answered with a 5xx (or
 * did not answer: Octokit reports it as a 5xx) after Octokit's own retries is sent again after each of
 * `settings.writeRetryDelaysMs`, taking a new lane slot each time so the installation's other writes are not
 * held; a check-run update keeps the fields of the updates it took over, so none is lost. Only writes that
 * are safe to repeat are sent again: a check-run update (PATCH sets the same fields), a review-comment update and
 * a SARIF upload (GitHub keeps the latest analysis per commit, ref and category). A create (check run, review)
 * is not: a 5xx may hide one GitHub made, so it goes back to its job, whose next attempt adopts or looks up
 * what exists before creating (GitHub REST "Troubleshooting": 5xx, retry with backoff). Also repeatable: an
 * alert's state (PATCH), a thread's resolution (GraphQL sets it), a reaction (GitHub answers 200 with the
 * existing one: REST "Create reaction for an issue comment"); a comment or a reply is a create.
 * @throws the last error: Octokit's `RequestError`, or the write guard's {@link WritesWithdrawnError}.
 */
async function sendRetrying(
  rt: Runtime,
  octokit: Awaited<ReturnType<Runtime["octokit"]>>,
  installationId: number,
  w: GitHubWrite,
): Promise<WriteResult> {
  // the fields of coalesced updates this write took over in earlier tries: their writers count them as sent
  let carried: Record<string, unknown> | undefined;
  const send = async (fields: Record<string, unknown> | undefined) => {
    await rt.writeGuard?.();
    if (fields) carried = { ...carried, ...fields };
    return sendWrite(
      octokit,
      w.kind === "update-check-run" && carried ? { ...w, check: merged(w.check, carried) } : w,
    );
  };
  const delays = rt.settings.writeRetryDelaysMs ?? [];
  for (let attempt = 0; ; attempt++) {
    try {
      if (!rt.lane) return await send(undefined);
      return await rt.lane.run(installationId, laneRequestOf(w), send);
    } catch (error) {
      const delay = delays[attempt];
      if (delay === undefined || !repeatable(w) || !isGitHubServerError(error)) throw error;
      rt.log.warn(
        { err: error, write: w.kind, installation: installationId, retryInMs: delay, attempt: attempt + 1 },
        "GitHub answered a write with a server error: sending it again",
      );
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/** The writes that sending again cannot make a second object on GitHub ({@link sendRetrying}). */
const REPEATABLE: Record<GitHubWrite["kind"], boolean> = {
  "create-check-run": false,
  "update-check-run": true,
  "create-review": false,
  "update-review-comment": true,
  "upload-sarif": true,
  "create-issue-comment": false,
  "reply-to-review-comment": false,
  "add-reaction": true,
  "set-review-thread-resolved": true,
  "update-code-scanning-alert": true,
};

/** Whether sending the write again cannot make a second object on GitHub. */
function repeatable(w: GitHubWrite): boolean {
  return REPEATABLE[w.kind];
}

/** A GitHub 5xx (Octokit's `RequestError` also reports no answer at all as a 500). */
function isGitHubServerError(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && status >= 500;
}

/**
 * Whether the hourly budget may leave a write out: progress only, and never a write that sets a check run's
 * `external_id`. That write links the check run to its paid scan; after diffward's Redis state is lost,
 * reconciliation finds the scan by it (`src/recovery/reconcile/`).
 */
function skippable(w: GitHubWrite): boolean {
  return w.purpose === "progress" && !(w.kind === "update-check-run" && w.check.externalId !== undefined);
}

/**
 * A check-run update with the fields of the pending updates it took over merged under its own; a
 * concluding update drops a taken-over `status` (GitHub: a conclusion sets the status to `completed`).
 */
function merged(check: CheckRunUpdate, fields: Record<string, unknown>): CheckRunUpdate {
  const out = { ...fields, ...check } as CheckRunUpdate;
  if (check.conclusion && check.status === undefined) delete out.status;
  return out;
}

/**
 * The installation's hourly write budget now: GitHub's per-hour limit, the writes sent in the last hour plus
 * those waiting in the lane (every process), and its scans in flight. `undefined` without a lane.
 */
export async function writeBudget(
  rt: Runtime,
  installationId: number,
): Promise<{ perHour: number; used: number; inFlight: number } | undefined> {
  if (!rt.lane) return undefined;
  const [usage, inFlight] = await Promise.all([
    rt.lane.usage(installationId),
    rt.stores.scans.inflightCount(installationId),
  ]);
  return { perHour: rt.lane.limits.perHour, used: usage.lastHour + usage.waiting, inFlight };
}

/**
 * Progress is the first thing a tight hourly budget turns off: true when the writes left
 * this hour could not give every scan in flight its completion and its review.
 */
export async function progressOff(rt: Runtime, installationId: number): Promise<boolean> {
  const b = await writeBudget(rt, installationId);
  return b !== undefined && b.perHour - b.used < 2 * b.inFlight;
}

/** The id of the check run a list of results created, if any. */
export function createdCheckRunId(results: readonly WriteResult[]): number | undefined {
  for (const r of results) if (r.kind === "create-check-run") return r.checkRunId;
  return undefined;
}
