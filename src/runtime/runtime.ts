import type { Queue } from "bullmq";
import type { RedisConnection } from "./connection.js";
import type { Logger } from "pino";
import type { InstallationOctokit } from "../github/types.js";
import type { ScannerAccess } from "../tenants/index.js";
import type { StateStore } from "./state.js";
import type { DiffwardMetrics } from "./metrics.js";
import type { WriteLane } from "./write-lane.js";

/** App-wide settings the jobs read (from the environment; see `src/config/env.ts`). */
export interface Settings {
  /** the diff preset's ref when a repository's config names none (`SCANNER_DIFF_PRESET`) */
  defaultPreset: string;
  /** two-letter label prefix shown before finding labels (`SCANNER_LABEL_PREFIX`) */
  labelPrefix: string;
  /** path of the committed guidance file (`SCANNER_GUIDANCE_FILE`) */
  guidanceFile: string;
  /** public site of the service, for links to findings and published artifacts (`SCANNER_PUBLIC_URL`) */
  publicUrl?: string;
  /** added to every `Retry-After` wait for clock differences, in ms (at most 250) */
  pollMarginMs: number;
  /** the least time between two progress updates of one check run, in ms (10,000) */
  progressIntervalMs: number;
  /** wait before the first poll of a freshly launched scan when no `Retry-After` is known, in ms (≥ 1,000) */
  firstPollDelayMs: number;
  /**
   * the least wait between two reads of one running scan, in ms (1,000). The spec's `Retry-After` is whole
   * seconds (spec §Scans, `GET /projects/{projectId}/scans/{scanId}`), so a header of `0` or none waits this
   * floor. Only tests lower it (with the sandbox's `retryAfterSeconds: 0`), to run many lifecycles quickly.
   */
  pollFloorMs: number;
  /** how long a launch keeps retrying `repository_initializing`, in ms (30 minutes) */
  initializingWindowMs: number;
  /** first wait after `repository_initializing`, in ms (15 s; doubles per try, at most 5 minutes) */
  initializingBaseDelayMs: number;
  /** wait between two looks at the ledger for a reported scan's settlement, in ms (30 s) */
  settleDelayMs: number;
  /** attempts of one report job before its check run is concluded `failure` (10) */
  reportAttempts: number;
  /** first wait between report attempts, doubling each time, in ms (1,000: 10 attempts span about 17 minutes) */
  reportBackoffMs: number;
  /**
   * how long a poll or report job waits for its account's scanner token to come back (a tokens file being
   * rewritten, an entry removed for a moment) before it concludes the check run, in ms (10 minutes)
   */
  tokenGapWaitMs: number;
  /**
   * how often the App's webhook deliveries are checked for missed ones, in ms (5 minutes,
   * `DIFFWARD_REDELIVERY_INTERVAL_SECONDS`; 0: never, not even at start-up)
   */
  redeliveryIntervalMs: number;
  /**
   * how far back deliveries are listed and redelivered at most, in ms (3 days, GitHub's redelivery window:
   * docs "Redelivering webhooks"; `DIFFWARD_REDELIVERY_WINDOW_HOURS`)
   */
  redeliveryWindowMs: number;
  /** redeliveries one run asks for at most (50, `DIFFWARD_REDELIVERY_MAX_PER_RUN`) */
  redeliveryMaxPerRun: number;
  /** pages of 100 deliveries one run lists at most (20, `DIFFWARD_REDELIVERY_MAX_PAGES`); the next run goes on */
  redeliveryMaxPages: number;
  /** redeliveries of one event before diffward gives up on it (3) */
  redeliveryAttempts: number;
  /** how long a redelivery asked for counts as pending: the event is not redelivered again meanwhile, in ms (10 minutes) */
  redeliveryPendingMs: number;
  /** the least time between two redelivery requests, in ms (1,000: GitHub's pace for mutative requests) */
  redeliveryPaceMs: number;
  /**
   * how long a launch waits for an unavailable scanning service (5xx, timeout, no answer) before its check run
   * concludes by the repository's `onServiceOutage`, in ms (60 minutes, `DIFFWARD_SERVICE_OUTAGE_MAX_WAIT`)
   */
  serviceOutageMaxWaitMs: number;
  /**
   * waits before sending again a check-run update, review-comment update or SARIF upload GitHub answered with a
   * 5xx after Octokit's own retries, in ms (5 s, 20 s, 60 s; `src/runtime/writes.ts`)
   */
  writeRetryDelaysMs: readonly number[];
  /**
   * how long audit entries are kept, in days (400, `DIFFWARD_AUDIT_RETENTION_DAYS`; `src/runtime/audit-log.ts`):
   * older entries are trimmed at each append
   */
  auditRetentionDays: number;
}

/** The defaults each {@link Settings} field names. */
export const DEFAULT_SETTINGS: Settings = {
  defaultPreset: "diff-standard",
  labelPrefix: "SC",
  guidanceFile: "SCANNER.md",
  pollMarginMs: 200,
  progressIntervalMs: 10_000,
  firstPollDelayMs: 1_000,
  pollFloorMs: 1_000,
  initializingWindowMs: 30 * 60_000,
  initializingBaseDelayMs: 15_000,
  settleDelayMs: 30_000,
  reportAttempts: 10,
  reportBackoffMs: 1_000,
  tokenGapWaitMs: 10 * 60_000,
  redeliveryIntervalMs: 5 * 60_000,
  redeliveryWindowMs: 72 * 3_600_000,
  redeliveryMaxPerRun: 50,
  redeliveryMaxPages: 20,
  redeliveryAttempts: 3,
  redeliveryPendingMs: 10 * 60_000,
  redeliveryPaceMs: 1_000,
  serviceOutageMaxWaitMs: 60 * 60_000,
  writeRetryDelaysMs: [5_000, 20_000, 60_000],
  auditRetentionDays: 400,
};

/** Everything a job needs, built once per process. */
export interface Runtime {
  redis: RedisConnection;
  state: StateStore;
  queues: { events: Queue; launch: Queue; scans: Queue; reports: Queue };
  /** an Octokit authenticated as the installation (Probot's `auth(installationId)`) */
  octokit(installationId: number): Promise<InstallationOctokit>;
  scanner: ScannerAccess;
  settings: Settings;
  log: Logger;
  /**
   * diffward's own bot login, `<app slug>[bot]` (`GET /app`, read once per process): only its comments'
   * finding markers are trusted (anyone can paste a marker into a comment).
   */
  botLogin(): Promise<string>;
  /** ms since epoch; replaced in tests */
  now(): number;
  /**
   * the installations' write lanes, shared through Redis (`write-lane.ts`); absent in unit tests, where
   * writes go out directly
   */
  lane?: WriteLane;
  /**
   * Called by `applyWrites` (`src/runtime/writes.ts`) right before each GitHub write is sent (inside its
   * write-lane slot); throws `WritesWithdrawnError` when the writes' subject is no longer wanted (the report
   * of a head diffward stopped following), so that write and every later one are not sent. Set on a copy of
   * the runtime by the job whose writes it guards.
   */
  writeGuard?: () => Promise<void>;
  /** the process's Prometheus metrics (`src/runtime/metrics.ts`); absent in unit tests */
  metrics?: DiffwardMetrics;
  /** `/healthz` details: the scanning service's reachability (`src/runtime/health.ts`), cached */
  serviceHealth?: () => Promise<Record<string, unknown>>;
}
