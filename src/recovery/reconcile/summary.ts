/** What one reconciliation found and did: its summary, the job's result, and the line it logs. */
import type { Runtime } from "../../runtime/runtime.js";

/** What one reconciliation found and did; the job's result. */
export interface ReconcileSummary {
  /**
   * `in-flight`: diffward's state was intact (its marker found) and only what it says is in flight was looked
   * at; `full-sweep`: the marker was gone and every installation's repositories were swept
   */
  mode: "in-flight" | "full-sweep";
  /** installations swept, or (in-flight) installations with scans in flight */
  installations: number;
  /** repositories swept (with a config), in either mode */
  repositories: number;
  /** repositories of the full sweep skipped: no `.github/diffward.yml` of their own nor their owner's */
  skippedWithoutConfig: number;
  pulls: number;
  /** merge groups found in a merge queue (GitHub's `gh-readonly-queue/…` branches that exist now) */
  mergeGroups: number;
  /** in-flight scans whose poll job was recreated (or a failed one retried) */
  resumed: string[];
  /** in-flight scans whose poll job was still there: nothing done */
  alreadyFollowed: string[];
  /**
   * diffward's unfinished check runs without a scan id that nothing followed, whose head's launch is decided
   * again (a `pull-request` job with `resume`): launched once, the scan found in the service followed, or
   * the check run concluded
   */
  redecided: number[];
  /**
   * diffward's unfinished baseline check runs on older commits of the default branch, concluded as superseded
   * by the head (their scan cancelled when it still ran): the state that would have stopped them was lost
   */
  superseded: number[];
  /** scans diffward's state counted in flight whose check run GitHub shows completed: no longer counted */
  finished: string[];
  /** GraphQL queries of the full sweep's walk, and the points they cost (each answer's `rateLimit.cost`) */
  graphqlQueries: number;
  graphqlPoints: number;
  /** waits of the full sweep for an installation's rate-limit reset (REST or GraphQL), and their total in ms */
  rateWaits: number;
  rateWaitedMs: number;
  /** installations or repositories that could not be read (suspended, 5xx after Octokit's retries) */
  errors: number;
}

/** A summary with nothing counted yet, in `mode`. */
export function emptySummary(mode: ReconcileSummary["mode"]): ReconcileSummary {
  return {
    mode,
    installations: 0,
    repositories: 0,
    skippedWithoutConfig: 0,
    pulls: 0,
    mergeGroups: 0,
    resumed: [],
    alreadyFollowed: [],
    redecided: [],
    superseded: [],
    finished: [],
    graphqlQueries: 0,
    graphqlPoints: 0,
    rateWaits: 0,
    rateWaitedMs: 0,
    errors: 0,
  };
}

/** Logs the summary of a reconciliation that ended: its counts (the lists as their lengths). */
export function logSummary(log: Runtime["log"], summary: ReconcileSummary): void {
  log.info(
    {
      mode: summary.mode,
      installations: summary.installations,
      repositories: summary.repositories,
      skippedWithoutConfig: summary.skippedWithoutConfig,
      pulls: summary.pulls,
      mergeGroups: summary.mergeGroups,
      resumed: summary.resumed.length,
      alreadyFollowed: summary.alreadyFollowed.length,
      redecided: summary.redecided.length,
      finished: summary.finished.length,
      graphqlQueries: summary.graphqlQueries,
      graphqlPoints: summary.graphqlPoints,
      rateWaits: summary.rateWaits,
      rateWaitedMs: summary.rateWaitedMs,
      errors: summary.errors,
    },
    "reconciliation done",
  );
}
