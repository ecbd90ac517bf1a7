import { createHash } from "node:crypto";

/**
 * BullMQ queues (which jobs each holds: `src/job-catalogue/catalogue.ts`). Launches, polls and reports each
 * have their own queue, so a burst of launches never delays a report, and reports waiting for GitHub's write
 * lane never hold the slots that poll running scans (docs/benchmarks.md measures both).
 */
export const QUEUE_NAMES = {
  events: "diffward-events",
  launch: "diffward-launch",
  scans: "diffward-scans",
  reports: "diffward-reports",
} as const;

/**
 * A BullMQ job id from parts: BullMQ refuses ids containing `:` and ids made only of digits
 * (stack facts, BullMQ 6), so every part is reduced to `[A-Za-z0-9._-]` and the id starts with a word.
 */
export function jobId(kind: string, ...parts: Array<string | number>): string {
  return [kind, ...parts.map((p) => String(p).replace(/[^A-Za-z0-9._-]/g, "_"))].join("-");
}

/** `owner/repo#number`: the key of a pull request in diffward's Redis state. */
export function pullKey(owner: string, repo: string, pullNumber: number): string {
  return `${owner}/${repo}#${pullNumber}`;
}

/**
 * `owner/repo@<head sha>`: the key of a merge group in diffward's Redis state. A merge group's head SHA is
 * its identity (GitHub "Webhook events and payloads", `merge_group.head_sha`: the commit to report on).
 */
export function groupKey(owner: string, repo: string, headSha: string): string {
  return `${owner}/${repo}@${headSha}`;
}

/**
 * `owner/repo^baseline`: the key of a repository's default-branch baseline in diffward's Redis state and its
 * lock (one baseline in flight per repository: a newer commit supersedes an older one).
 */
export function baselineKey(owner: string, repo: string): string {
  return `${owner}/${repo}^baseline`;
}

/**
 * The id of the BullMQ job scheduler of a repository's scheduled baseline (`baseline.on: schedule`): one per
 * repository, so an upsert replaces its pattern and a removal ends it (BullMQ "Job Schedulers").
 */
export function baselineSchedulerId(owner: string, repo: string): string {
  return jobId("baseline", `${owner}/${repo}`);
}

/**
 * The identity of an automatic launch: the same service repository, head SHA, merge base and preset always
 * collapse into one scan, so a scan is never paid twice (README "Operations"). An explicit request adds a
 * `nonce` (the check run it was asked from) and so launches anew.
 */
export function launchKey(parts: {
  repositoryId: string;
  headSha: string;
  mergeBase: string | null;
  presetRef: string;
  auditAreaKeys?: readonly string[];
  nonce?: string;
}): string {
  const h = createHash("sha256");
  h.update(
    JSON.stringify([
      parts.repositoryId,
      parts.headSha,
      parts.mergeBase,
      parts.presetRef,
      [...(parts.auditAreaKeys ?? [])].sort(),
      parts.nonce ?? "",
    ]),
  );
  return h.digest("hex").slice(0, 32);
}

/**
 * {@link launchKey} of a scan under a repository's config: its service repository (`repositoryId`) and its
 * audit areas' keys, with the scan's head, merge base, preset and, for an explicit request, nonce.
 */
export function configLaunchKey(
  config: { repositoryId: string; auditAreas?: readonly string[] },
  scan: { headSha: string; mergeBase: string | null; presetRef: string; nonce?: string },
): string {
  return launchKey({
    repositoryId: config.repositoryId,
    ...scan,
    ...(config.auditAreas ? { auditAreaKeys: config.auditAreas } : {}),
  });
}

/**
 * Every Redis key diffward writes itself, by kind: `prefix` says which key prefix it sits under (`state`:
 * diffward's state prefix, `{dw}` by default; `queue`: BullMQ's queue prefix, `{diffward}` by default, for a key a
 * script must read beside BullMQ's job hashes) and `pattern` the rest of the key, `<…>` standing for a variable
 * part. Each has an owner and an end: a TTL, or its deletion when the flow that wrote it ends (docs/architecture.md
 * "Redis keys" says which, and test/e2e/key-lifetimes.test.ts checks every key after real flows against this
 * list). BullMQ's own keys are not listed: their end is each job's `removeOnComplete`/`removeOnFail`.
 */
export const REDIS_KEYS = {
  pull: { prefix: "state", pattern: "pr:<owner>/<repo>#<number>" },
  group: { prefix: "state", pattern: "mg:<owner>/<repo>@<headSha>" },
  baseline: { prefix: "state", pattern: "bl:<owner>/<repo>^baseline" },
  baselineLock: { prefix: "state", pattern: "lock:<owner>/<repo>^baseline" },
  baselineReport: { prefix: "state", pattern: "baseline-report:<owner>/<repo>" },
  pullLock: { prefix: "state", pattern: "lock:<owner>/<repo>#<number>" },
  groupLock: { prefix: "state", pattern: "lock:<owner>/<repo>@<headSha>" },
  launch: { prefix: "state", pattern: "launch:<launchKey>" },
  scanLink: { prefix: "state", pattern: "scan:<scanId>" },
  scanEnd: { prefix: "state", pattern: "scanend:<scanId>" },
  inflight: { prefix: "state", pattern: "inflight:<installationId>" },
  report: { prefix: "state", pattern: "report:<owner>/<repo>#<number>" },
  completed: { prefix: "state", pattern: "completed:<scanId>" },
  sarif: { prefix: "state", pattern: "sarif:<owner>/<repo>@<scanId>" },
  decisions: { prefix: "state", pattern: "decisions:<owner>/<repo>#<number>" },
  approvals: { prefix: "state", pattern: "approvals:<owner>/<repo>#<number>" },
  expiries: { prefix: "state", pattern: "expiries:<installationId>" },
  checkRunOwner: { prefix: "state", pattern: "checkrun:<owner>/<repo>/<checkRunId>" },
  once: { prefix: "state", pattern: "once:<kind>:<key>" },
  uninstalled: { prefix: "state", pattern: "uninstalled:<installationId>" },
  undecided: { prefix: "state", pattern: "undecided:<owner>/<repo>#<number>" },
  installedAs: { prefix: "state", pattern: "installed:<accountLogin>" },
  closedAt: { prefix: "state", pattern: "closed-at:<owner>/<repo>#<number>" },
  throttle: { prefix: "state", pattern: "throttle:<key>" },
  commandClaim: { prefix: "state", pattern: "cmd:<owner>/<repo>:<form>:<commentId>" },
  commandSent: { prefix: "state", pattern: "cmdsent:<owner>/<repo>:<form>:<commentId>" },
  suppressionFile: { prefix: "state", pattern: "supfile:<owner>/<repo>@<headSha>:<path>" },
  suppressionSent: { prefix: "state", pattern: "supsent:<owner>/<repo>@<headSha>" },
  capMonth: { prefix: "state", pattern: "cap:<projectId>:<repositoryId>:<YYYY-MM>" },
  capScan: { prefix: "state", pattern: "capscan:<scanId>" },
  laneQueue: { prefix: "state", pattern: "lane:<installationId>:q" },
  laneAlive: { prefix: "state", pattern: "lane:<installationId>:alive" },
  laneSeq: { prefix: "state", pattern: "lane:<installationId>:seq" },
  laneFate: { prefix: "state", pattern: "lane:<installationId>:fate" },
  laneCheckRun: { prefix: "state", pattern: "lane:<installationId>:cr" },
  lanePayload: { prefix: "state", pattern: "lane:<installationId>:payload" },
  laneCheckRunOf: { prefix: "state", pattern: "lane:<installationId>:crof" },
  laneSent: { prefix: "state", pattern: "lane:<installationId>:sent" },
  swept: { prefix: "state", pattern: "swept" },
  fairPending: { prefix: "queue", pattern: "<queue>:fairq:<installationId>" },
  installationJobs: { prefix: "queue", pattern: "<queue>:jobsof:<installationId>" },
  deliveriesRun: { prefix: "state", pattern: "deliveries:run" },
  deliveriesScan: { prefix: "state", pattern: "deliveries:scan" },
  deliveriesTracked: { prefix: "state", pattern: "deliveries:tracked" },
  deliveriesSettled: { prefix: "state", pattern: "deliveries:settled:<guid>" },
  deliveriesPending: { prefix: "state", pattern: "deliveries:pending:<guid>" },
  deliveriesAccepted: { prefix: "state", pattern: "deliveries:accepted:<guid>" },
  breaker: { prefix: "state", pattern: "breaker:<tenant>" },
  breakerProbe: { prefix: "state", pattern: "breaker:<tenant>:probe" },
  breakerWaiting: { prefix: "state", pattern: "breaker:<tenant>:waiting" },
  audit: { prefix: "state", pattern: "audit" },
  session: { prefix: "state", pattern: "session:<sessionIdHash>" },
  signInState: { prefix: "state", pattern: "oauthstate:<nonce>" },
  spendMonth: { prefix: "state", pattern: "spend:<installationId>:<YYYY-MM>" },
  reportLog: { prefix: "state", pattern: "reportlog:<installationId>" },
  configProblems: { prefix: "state", pattern: "configproblems:<installationId>" },
  policies: { prefix: "state", pattern: "policies:<installationId>" },
  approvalsHeld: { prefix: "state", pattern: "approvals-held:<owner>" },
} as const satisfies Record<string, { prefix: "state" | "queue"; pattern: string }>;

/** A key kind of {@link REDIS_KEYS}. */
export type RedisKeyKind = keyof typeof REDIS_KEYS;

/**
 * A regular expression matching the keys of a {@link REDIS_KEYS} pattern under `prefix` (each `<…>` matches one
 * or more characters).
 */
export function redisKeyRegExp(prefix: string, pattern: string): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const body = pattern
    .split(/<[^>]+>/)
    .map(esc)
    .join(".+");
  return new RegExp(`^${esc(prefix)}:${body}$`);
}
