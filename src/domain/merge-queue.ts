/**
 * Merge queues (GitHub `merge_group` webhook): which pull request a merge group names, and whether a
 * pull request's report may stand for the group's `diffward` check. Pure.
 */

/** What {@link parseMergeGroupRef} reads from `merge_group.head_ref`. */
export interface MergeGroupRef {
  /** the branch the queue merges into, e.g. `main` or `release/2.x` (may contain slashes) */
  baseBranch: string;
  /** the pull request the group was created for */
  pullNumber: number;
  /**
   * the SHA GitHub writes after the number; GitHub does not document which commit it is, so diffward never
   * takes it for the pull request's head (it reads the head from GitHub instead)
   */
  refSha: string;
}

const QUEUE_REF =
  /^(?:refs\/heads\/)?gh-readonly-queue\/(.+)\/pr-([1-9]\d{0,9})-([0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * Parses a merge group's `head_ref`, `refs/heads/gh-readonly-queue/<base>/pr-<number>-<sha>` (GitHub
 * "Webhook events and payloads", `merge_group`: `head_ref` is "the full ref of the merge group"; the
 * branch naming is GitHub's merge queue's, e.g. `refs/heads/gh-readonly-queue/main/pr-104-929f82…`).
 * The base branch may contain slashes: the last `/pr-<n>-<sha>` segment names the pull request. The
 * `refs/heads/` prefix is optional.
 * @returns the parts, or `undefined` when the ref is not a merge-queue ref (never throws).
 */
export function parseMergeGroupRef(headRef: string): MergeGroupRef | undefined {
  const m = QUEUE_REF.exec(headRef);
  if (!m) return undefined;
  const pullNumber = Number(m[2]);
  if (!Number.isSafeInteger(pullNumber)) return undefined;
  return { baseBranch: m[1]!, pullNumber, refSha: m[3]! };
}

/** Conclusions of a completed report that a merge group may reuse (not an error, a cancel or a wait). */
export const REUSABLE_CONCLUSIONS = ["success", "neutral", "failure"] as const;
export type ReusableConclusion = (typeof REUSABLE_CONCLUSIONS)[number];

/** What {@link decideReuse} looks at, all read fresh from GitHub except diffward's own report record. */
export interface ReuseInput {
  /** the pull request as GitHub returns it now (`GET /repos/{owner}/{repo}/pulls/{pull_number}`) */
  pull: { number: number; headSha: string };
  /** diffward's record of the pull request's last completed scan report, if any */
  report?: { scanId: string; headSha: string; checkRunId: number };
  /**
   * diffward's check runs on the pull request's current head, newest first (GitHub "List check runs
   * for a Git reference" with `check_name=diffward`)
   */
  checkRuns: ReadonlyArray<{
    id: number;
    status: string;
    conclusion: string | null;
    externalId: string | null;
  }>;
}

export type ReuseDecision =
  | {
      kind: "reuse";
      conclusion: ReusableConclusion;
      pullNumber: number;
      headSha: string;
      scanId: string;
      checkRunId: number;
    }
  | { kind: "scan"; why: "no-report" | "head-moved" | "newer-check-run" | "not-completed" | "not-reusable" };

/**
 * Whether the pull request's report stands for its merge group (`mergeQueue: reuse`, README "Merge queues"):
 * only when diffward reported a completed scan on the pull request's **current** head (as GitHub says now),
 * that report's check run is the newest `diffward` check run on the head (a later re-run or rescan replaces
 * it), it is completed, and its conclusion is `success`, `neutral` or `failure` (the current one, so triage
 * decisions count). Anything else (no report, head moved, an error, a cancel, a wait for approval, a run
 * still in progress) means the group is scanned instead.
 */
export function decideReuse(input: ReuseInput): ReuseDecision {
  const { pull, report } = input;
  if (!report) return { kind: "scan", why: "no-report" };
  if (report.headSha !== pull.headSha) return { kind: "scan", why: "head-moved" };
  const newest = input.checkRuns[0];
  if (!newest || newest.id !== report.checkRunId) return { kind: "scan", why: "newer-check-run" };
  if (newest.status !== "completed") return { kind: "scan", why: "not-completed" };
  const conclusion = REUSABLE_CONCLUSIONS.find((c) => c === newest.conclusion);
  if (!conclusion || (newest.externalId !== null && newest.externalId !== report.scanId))
    return { kind: "scan", why: "not-reusable" };
  return {
    kind: "reuse",
    conclusion,
    pullNumber: pull.number,
    headSha: pull.headSha,
    scanId: report.scanId,
    checkRunId: report.checkRunId,
  };
}
