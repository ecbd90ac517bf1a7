import { botLoginOnce } from "./github/app-identity.js";
import type { Worker } from "bullmq";
import type { Logger } from "pino";
import { Probot, type ProbotOctokit } from "probot";
import {
  assertClusterPrefixes,
  createRedis,
  DEFAULT_QUEUE_PREFIX,
  DEFAULT_STATE_PREFIX,
} from "./runtime/connection.js";
import { createQueues } from "./runtime/queues.js";
import type { Runtime } from "./runtime/runtime.js";
import { DEFAULT_SETTINGS, type Settings } from "./config/settings.js";
import { createStores } from "./stores/index.js";
import { WriteLane, GITHUB_WRITE_LIMITS, type LaneLimits } from "./runtime/write-lane.js";
import { createMetrics, type DiffwardMetrics } from "./runtime/metrics.js";
import { DiffwardOctokit, withWriteLane } from "./runtime/octokit.js";
import { serviceReachability } from "./runtime/health.js";
import { createScannerAccess } from "./tenants/index.js";
import { startWorkers, type WorkerConcurrency, type WorkerTiming } from "./workers/workers.js";
import { enqueueReconcile, reconcile, type ReconcileSummary } from "./recovery/reconcile/index.js";
import {
  recoverDeliveries,
  scheduleDeliveryRecovery,
  type RecoverySummary,
} from "./recovery/recover-deliveries.js";
import { VERSION } from "./runtime/version.js";

/** Everything a diffward process needs to start; built from the environment by `src/index.ts`. */
export interface BootConfig {
  appId?: number | string;
  /** the GitHub App's private key, PEM text */
  privateKey?: string;
  webhookSecret: string;
  /** GitHub API base URL; GHE: `<protocol>://<host>/api/v3` */
  githubBaseUrl?: string;
  /** `redis://` or `rediss://` URL (user, password, db in the URL); ignored when `redisClusterNodes` is set */
  redisUrl: string;
  /** Redis Cluster seed nodes (`host:port` or URLs, `REDIS_CLUSTER_NODES`) */
  redisClusterNodes?: readonly string[];
  /**
   * BullMQ key prefix and diffward's state prefix (tests use their own); defaults `{diffward}` and `{dw}`.
   * On a cluster both must contain a hash tag.
   */
  queuePrefix?: string;
  statePrefix?: string;
  scannerApiUrl: string;
  scannerToken?: string;
  scannerTokens?: () => Record<string, string>;
  settings?: Partial<Settings>;
  concurrency?: Partial<WorkerConcurrency>;
  log: Logger;
  /** Octokit class override (tests turn retry/throttling delays down) */
  Octokit?: typeof ProbotOctokit;
  /** BullMQ lock and stalled-check timing (tests shorten them); the pull lock's TTL follows `lockDuration` */
  workerTiming?: WorkerTiming;
  /**
   * the installations' write lane limits (default GitHub's: 1 s apart, 80 a minute, 500 an hour); `false`
   * sends writes without a lane (each process paced by Octokit's throttling plugin alone)
   */
  writeLimits?: Partial<LaneLimits> | false;
  /** enqueue a reconciliation (`src/recovery/reconcile/`) when workers start; default false */
  reconcileOnStart?: boolean;
  /**
   * when workers start: register the recurring recovery of missed webhook deliveries and run it once now
   * (`src/recovery/recover-deliveries.ts`, every `settings.redeliveryIntervalMs`); default false
   */
  recoverDeliveries?: boolean;
}

/** A started runtime and how to stop it. */
export interface Booted {
  rt: Runtime;
  probot: Probot;
  /** a Probot class bound to this configuration, for Probot's `Server` */
  ProbotClass: typeof Probot;
  workers: Worker[];
  /** this process's Prometheus registry and counters (served at `/metrics` by `startWebServer`) */
  metrics: DiffwardMetrics;
  startWorkers(): Worker[];
  /** runs a reconciliation now, in this process (`src/recovery/reconcile/`) */
  reconcile(): Promise<ReconcileSummary>;
  /** runs a recovery of missed webhook deliveries now, in this process (`src/recovery/recover-deliveries.ts`) */
  recoverDeliveries(): Promise<RecoverySummary>;
  /**
   * closes workers (letting running jobs finish; a job that can stop early is asked to through its BullMQ
   * abort signal), queues and Redis connections
   */
  close(): Promise<void>;
}

/**
 * Connects Redis, opens the queues and builds the {@link Runtime}. Workers start only when asked
 * (`DIFFWARD_ROLE` worker or all).
 */
export function boot(config: BootConfig): Booted {
  const cluster = (config.redisClusterNodes?.length ?? 0) > 0;
  const queuePrefix = config.queuePrefix ?? DEFAULT_QUEUE_PREFIX;
  const statePrefix = config.statePrefix ?? DEFAULT_STATE_PREFIX;
  assertClusterPrefixes(cluster, { "queue prefix": queuePrefix, "state prefix": statePrefix });
  const { redis, onRedisError } = connectRedis(config, cluster);
  const lane =
    config.writeLimits === false
      ? undefined
      : new WriteLane(redis, statePrefix, { ...GITHUB_WRITE_LIMITS, ...config.writeLimits });
  const { probot, ProbotClass } = createProbot(config, lane);
  const queues = createQueues({ connection: redis, prefix: queuePrefix });
  // A BullMQ queue without an error listener prints each connection error with its stack (console.error):
  // log them as the connection's, one line per distinct error.
  for (const q of Object.values(queues)) q.on("error", onRedisError);
  const serviceHealth = serviceReachability({
    baseUrl: config.scannerApiUrl,
    ...(config.scannerToken ? { token: config.scannerToken } : {}),
  });
  const metrics = createMetrics({ queues, redis, serviceHealth });
  if (lane) lane.onGrant = (ms, priority) => metrics.writeLaneWait.observe({ priority }, ms / 1000);
  const scanner = createScannerAccess({
    onResponse: (info) => metrics.onScannerResponse(info),
    baseUrl: config.scannerApiUrl,
    ...(config.scannerToken ? { defaultToken: config.scannerToken } : {}),
    ...(config.scannerTokens ? { tokens: config.scannerTokens } : {}),
    userAgent: `diffward/${VERSION}`,
  });
  const settings = { ...DEFAULT_SETTINGS, ...config.settings };
  const stores = createStores(redis, statePrefix, {
    settings,
    now: () => rt.now(),
    log: config.log,
    lockTtlMs: config.workerTiming?.lockDuration ?? 60_000,
  });
  const rt: Runtime = {
    redis,
    stores,
    queues,
    octokit: (installationId) =>
      probot.auth(installationId) as Promise<Awaited<ReturnType<Runtime["octokit"]>>>,
    appOctokit: () => probot.auth(),
    scanner,
    botLogin: botLoginOnce(() => probot.auth()),
    settings,
    log: config.log,
    now: () => Date.now(),
    ...(lane ? { lane } : {}),
    metrics,
    serviceHealth,
  };
  const workers: Worker[] = [];
  const booted: Booted = {
    rt,
    probot,
    ProbotClass,
    workers,
    metrics,
    startWorkers() {
      const started = startAllWorkers(config, rt, { connection: redis, prefix: queuePrefix });
      workers.push(...started);
      return started;
    },
    reconcile: () => reconcile(rt),
    recoverDeliveries: () => recoverDeliveries(rt),
    async close() {
      // A job that can stop early (the recovery of missed deliveries) keeps its progress and frees its lock.
      for (const w of workers) w.cancelAllJobs("shutting down");
      await Promise.all(workers.map((w) => w.close()));
      lane?.close();
      await Promise.all(Object.values(queues).map((q) => q.close()));
      redis.disconnect();
    },
  };
  return booted;
}

/**
 * Starts the workers of this process (every job of the catalogue, `src/job-catalogue/`, each run by its
 * processor, `src/workers/processors.ts`), counts their jobs in the metrics, and enqueues the reconciliation
 * and the delivery recovery when the config asks for them.
 */
function startAllWorkers(
  config: BootConfig,
  rt: Runtime,
  queue: { connection: ReturnType<typeof createRedis>; prefix: string },
): Worker[] {
  const started = startWorkers(rt, {
    ...queue,
    ...(config.concurrency ? { concurrency: config.concurrency } : {}),
    ...(config.workerTiming ? { timing: config.workerTiming } : {}),
  });
  rt.metrics?.instrumentWorkers(started);
  if (config.reconcileOnStart)
    void enqueueReconcile(rt).catch((e: Error) => config.log.warn({ err: e }, "reconcile not enqueued"));
  if (config.recoverDeliveries)
    void scheduleDeliveryRecovery(rt).catch((e: Error) =>
      config.log.warn({ err: e }, "recovery of missed deliveries not scheduled"),
    );
  return started;
}

/**
 * The Redis connection (one node, or a cluster), logging one line per distinct connection error (a Redis
 * restart, an unreachable node) instead of ioredis's "Unhandled error event" stack traces, and one line
 * when the connection is back. `onRedisError` serves the queues' connections too.
 */
function connectRedis(
  config: BootConfig,
  cluster: boolean,
): { redis: ReturnType<typeof createRedis>; onRedisError: (e: Error) => void } {
  const redis = createRedis({
    url: config.redisUrl,
    ...(cluster ? { clusterNodes: config.redisClusterNodes } : {}),
  });
  let redisError: string | undefined;
  const onRedisError = (e: Error) => {
    if (e.message === redisError) return;
    redisError = e.message;
    config.log.warn({ err: e }, "Redis connection error; retrying");
  };
  redis.on("error", onRedisError);
  redis.on("ready", () => {
    if (redisError !== undefined) config.log.info("Redis connection restored");
    redisError = undefined;
  });
  return { redis, onRedisError };
}

/** The Probot app class and instance, its Octokit sending writes through the write lane when there is one. */
function createProbot(
  config: BootConfig,
  lane: WriteLane | undefined,
): { probot: Probot; ProbotClass: typeof Probot } {
  const Octokit = config.Octokit ?? DiffwardOctokit;
  const probotOptions = {
    ...(config.appId !== undefined ? { appId: config.appId } : {}),
    ...(config.privateKey ? { privateKey: config.privateKey } : {}),
    secret: config.webhookSecret,
    ...(config.githubBaseUrl ? { baseUrl: config.githubBaseUrl } : {}),
    log: config.log,
    Octokit: lane ? withWriteLane(Octokit, lane) : Octokit,
  };
  const ProbotClass = Probot.defaults(probotOptions) as typeof Probot;
  const probot = new ProbotClass();
  return { probot, ProbotClass };
}
