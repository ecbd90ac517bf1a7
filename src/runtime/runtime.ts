import type { Queue } from "bullmq";
import type { RedisConnection } from "./connection.js";
import type { Logger } from "pino";
import type { ProbotOctokit } from "probot";
import type { InstallationOctokit } from "../github/octokit-types.js";
import type { ScannerAccess } from "../tenants/index.js";
import type { Stores } from "../stores/index.js";
import type { DiffwardMetrics } from "./metrics.js";
import type { WriteLane } from "./write-lane.js";
import type { Settings } from "../config/settings.js";

/** Everything a job needs, built once per process. */
export interface Runtime {
  redis: RedisConnection;
  /** diffward's Redis records, one store each (`src/stores/`), built once per process */
  stores: Stores;
  queues: { events: Queue; launch: Queue; scans: Queue; reports: Queue };
  /** an Octokit authenticated as the installation (Probot's `auth(installationId)`) */
  octokit(installationId: number): Promise<InstallationOctokit>;
  /**
   * an Octokit authenticated as the App itself (its JWT: Probot's `auth()` without an installation id), for
   * the App's own endpoints: its installations (reconciliation) and its webhook deliveries (their recovery)
   */
  appOctokit(): Promise<ProbotOctokit>;
  scanner: ScannerAccess;
  /** the runtime settings (`src/config/settings.ts`): durations in ms */
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
   * Called by `applyWrites` (`src/runtime/apply-writes.ts`) right before each GitHub write is sent (inside its
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
