import type { Job, Queue, Worker } from "bullmq";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { ResponseInfo } from "../scanner/transport.js";
import type { Logger } from "pino";
import { QUEUE_NAMES } from "./names.js";
import { VERSION } from "./version.js";

/** Job states whose counts {@link DiffwardMetrics} exports as queue depth (BullMQ `getJobCounts`). */
export const QUEUE_DEPTH_STATES = ["waiting", "active", "delayed", "prioritized", "failed"] as const;

/** What the scanning-service probe found (`src/ops/health.ts`); one `diffward_service_probe` series each. */
export const SERVICE_PROBE_RESULTS = ["ok", "unauthorized", "unreachable", "not-configured"] as const;
export type ServiceProbeResult = (typeof SERVICE_PROBE_RESULTS)[number];

/** The service route diffward polls (spec §Scans, `GET /projects/{projectId}/scans/{scanId}`). */
const POLL_ROUTE = "/projects/{projectId}/scans/{scanId}";

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** the queues whose depth is read at each scrape (`getJobCounts`, one Redis round trip per queue) */
  queues?: Record<string, Pick<Queue, "getJobCounts">>;
  /** pinged at each scrape for `diffward_redis_up` (1 s timeout); without it the gauge is not exported */
  redis?: { ping(): Promise<string> };
  /** the service probe of `/healthz` (`serviceReachability`, cached), read at each scrape for `diffward_service_probe` */
  serviceHealth?: () => Promise<{ service: ServiceProbeResult }>;
  /** also export Node's default process metrics (CPU, RSS, event loop lag); default true */
  defaultMetrics?: boolean;
}

/**
 * diffward's Prometheus metrics, one {@link Registry} per process (never prom-client's global one, so
 * several runtimes in one test process never collide). Names follow Prometheus' naming guide: a
 * `diffward_` prefix, `_total` for counters, base units (seconds) in the name.
 */
export interface DiffwardMetrics {
  registry: Registry;
  /** `diffward_launches_total{outcome}`: launch jobs by what they did (`launched`, `found-existing`, …, `error`) */
  launches: Counter<"outcome">;
  /** `diffward_polls_total{status}`: scan reads sent to the service (`GET …/scans/{scanId}`) by HTTP status */
  polls: Counter<"status">;
  /** `diffward_service_rate_limited_total{method,route}`: 429 answers received from the service */
  serviceRateLimited: Counter<"method" | "route">;
  /** `diffward_service_requests_total{method,route,status}`: every answered request to the service */
  serviceRequests: Counter<"method" | "route" | "status">;
  /** `diffward_report_delay_seconds`: scan terminal (service `completedAt`) → check run completed */
  reportDelay: Histogram;
  /** `diffward_queue_depth{queue,state}`: BullMQ job counts, read at scrape time */
  queueDepth: Gauge<"queue" | "state">;
  /** `diffward_job_failures_total{queue,name,final}`: failed job attempts (`final` = no attempt left) */
  jobFailures: Counter<"queue" | "name" | "final">;
  /**
   * `diffward_tokens_file_rejected_total{reason}`: reloads of `SCANNER_TOKENS_FILE` refused (`invalid`,
   * `empty`), the last good tokens kept
   */
  tokensFileRejected: Counter<"reason">;
  /**
   * `diffward_unhandled_rejections_total`: promise rejections nothing handled, caught by the process-level
   * handler ({@link guardProcess}); each is a bug, logged with its stack
   */
  unhandledRejections: Counter;
  /**
   * `diffward_webhooks_total{event,status}`: webhook deliveries answered by the web server, by event (`X-GitHub-Event`
   * of a delivery whose signature verified, else `unverified`) and HTTP status
   */
  webhooks: Counter<"event" | "status">;
  /**
   * `diffward_webhook_duration_seconds{event}`: from a webhook request's arrival at the web server to its
   * answer sent, in seconds, by event as {@link webhooks} labels it (GitHub ends a delivery unanswered after
   * 10 s: "Handling webhook deliveries", https://docs.github.com/en/webhooks/using-webhooks/handling-webhook-deliveries)
   */
  webhookDuration: Histogram<"event">;
  /** `diffward_jobs_completed_total{queue,name}`: jobs that completed */
  jobsCompleted: Counter<"queue" | "name">;
  /**
   * `diffward_job_wait_seconds{queue}`: from when a job was due (added, plus its delay) to when a worker first
   * took it
   */
  jobWait: Histogram<"queue">;
  /** `diffward_write_lane_wait_seconds{priority}`: from asking an installation's GitHub write lane to the grant */
  writeLaneWait: Histogram<"priority">;
  /**
   * `diffward_credits_spent_total`: the settled spend of diffward's scans (usage ledger: deductions less
   * refunds), counted when diffward reads it (at the report, or a later settle look; a retried report may count
   * a scan again)
   */
  creditsSpent: Counter;
  /**
   * `diffward_deliveries_failed_found_total`: webhook events found with only failed deliveries (GitHub's
   * deliveries of the App's webhook), each counted once when first found
   */
  deliveriesFailedFound: Counter;
  /** `diffward_deliveries_redelivered_total`: redeliveries diffward asked GitHub for (answered 202) */
  deliveriesRedelivered: Counter;
  /**
   * `diffward_deliveries_given_up_total{reason}`: events diffward stopped redelivering without a successful
   * delivery: `attempts` (redelivered as often as allowed), `window` (older than GitHub's redelivery window),
   * `refused` (GitHub refused the redelivery)
   */
  deliveriesGivenUp: Counter<"reason">;
  /**
   * `diffward_service_breaker_open{tenant}`: 1 while this process saw the service tenant's circuit breaker open
   * (5xx, timeout, no answer), 0 once a probe it sent or saw closed it (`src/stores/service-breaker.ts`);
   * `tenant` is a hash of the token, never the token
   */
  breakerOpen: Gauge<"tenant">;
  /** `diffward_service_breaker_probes_total{tenant,result}`: half-open probes sent, by result (`ok`, `failed`) */
  breakerProbes: Counter<"tenant" | "result">;
  /** the scanner client's `onResponse` hook: counts polls, 429s and requests */
  onScannerResponse(info: ResponseInfo): void;
  /**
   * Records one report's delay.
   * @param seconds from the scan becoming terminal to its check run completed, in seconds (clamped at 0)
   */
  observeReportDelay(seconds: number): void;
  /** counts launch outcomes and failures from the workers' `completed` and `failed` events */
  instrumentWorkers(workers: Worker[]): void;
  /** Prometheus text exposition format (version 0.0.4) of every metric */
  render(): Promise<string>;
  contentType: string;
}

/**
 * Builds the process's metrics. Queue depth is a gauge collected on scrape from BullMQ's
 * `getJobCounts` (a scrape while Redis is down leaves the last values and never fails the scrape).
 */
export function createMetrics(opts: MetricsOptions = {}): DiffwardMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: "diffward_" });
  registerProbes(registry, opts);
  const m = createTableMetrics(registry, { queueDepth: queueDepthCollector(opts.queues ?? {}) });
  const { serviceRequests, polls, serviceRateLimited, reportDelay } = m;
  return {
    registry,
    ...m,
    contentType: registry.contentType,
    onScannerResponse(info) {
      serviceRequests.inc({ method: info.method, route: info.route, status: String(info.status) });
      if (info.method === "GET" && info.route === POLL_ROUTE) polls.inc({ status: String(info.status) });
      if (info.status === 429) serviceRateLimited.inc({ method: info.method, route: info.route });
    },
    observeReportDelay(seconds) {
      if (Number.isFinite(seconds)) reportDelay.observe(Math.max(0, seconds));
    },
    instrumentWorkers: (workers) => instrumentWorkers(workers, m),
    render: () => registry.metrics(),
  };
}

/**
 * The gauges read at scrape time: the build's identity, Redis' answer to PING and the scanning-service
 * probe (the last two only with a Redis connection and a probe).
 */
function registerProbes(registry: Registry, opts: MetricsOptions): void {
  // The build's identity as labels of a constant 1 (Prometheus' `*_build_info` convention), so dashboards
  // and alerts can tell versions apart during a rolling upgrade.
  new Gauge({
    name: "diffward_build_info",
    help: "Always 1; the labels name this process's diffward version and Node.js version.",
    labelNames: ["version", "node"] as const,
    registers: [registry],
  }).set({ version: VERSION, node: process.versions.node }, 1);
  const redis = opts.redis;
  if (redis)
    new Gauge({
      name: "diffward_redis_up",
      help: "1 when Redis answered PING within a second at this scrape, else 0.",
      registers: [registry],
      async collect() {
        const pong = await Promise.race([
          redis.ping().catch(() => "error"),
          new Promise<string>((r) => setTimeout(() => r("timeout"), 1000).unref()),
        ]);
        this.set(pong === "PONG" ? 1 : 0);
      },
    });
  const serviceHealth = opts.serviceHealth;
  if (serviceHealth)
    new Gauge({
      name: "diffward_service_probe",
      help: "The scanning-service probe of /healthz (GET /token with SCANNER_TOKEN, cached 5 s): 1 for the current result (ok, unauthorized, unreachable, not-configured), 0 for the others.",
      labelNames: ["result"] as const,
      registers: [registry],
      async collect() {
        const { service } = await serviceHealth().catch(() => ({ service: "unreachable" as const }));
        for (const result of SERVICE_PROBE_RESULTS) this.set({ result }, result === service ? 1 : 0);
      },
    });
}

/**
 * How one metric of {@link METRIC_TABLE} is declared: its prom-client type, exposed name (Prometheus' naming
 * guide, https://prometheus.io/docs/practices/naming/), help text, label names and, for a histogram, its
 * bucket upper bounds (in the unit the name gives, seconds).
 */
interface MetricDeclaration {
  kind: "counter" | "gauge" | "histogram";
  name: string;
  help: string;
  labelNames?: readonly string[];
  buckets?: readonly number[];
}

/** The labels of a request to the scanning service: its method and route template ({@link ResponseInfo}). */
const SERVICE_ROUTE_LABELS = ["method", "route"] as const;
/** The labels of a job's metric: its BullMQ queue and job name. */
const JOB_LABELS = ["queue", "name"] as const;

/**
 * Every metric created from a declaration, keyed by its {@link DiffwardMetrics} field and registered in this
 * order. Dashboards and alerts read these names, types, help texts, labels and buckets: the exposition test
 * (`test/runtime/metrics.test.ts`) pins them, so change them only together with docs/operations.md.
 */
const METRIC_TABLE = {
  webhooks: {
    kind: "counter",
    name: "diffward_webhooks_total",
    help: "Webhook deliveries answered, by event (unverified when the signature did not verify) and HTTP status.",
    labelNames: ["event", "status"],
  },
  webhookDuration: {
    kind: "histogram",
    name: "diffward_webhook_duration_seconds",
    help: "Seconds from a webhook request's arrival to its answer, by event (GitHub gives up after 10 s).",
    labelNames: ["event"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  },
  jobsCompleted: {
    kind: "counter",
    name: "diffward_jobs_completed_total",
    help: "Jobs completed, by queue and job name.",
    labelNames: JOB_LABELS,
  },
  jobWait: {
    kind: "histogram",
    name: "diffward_job_wait_seconds",
    help: "Seconds from when a job was due (added, plus its delay) to when a worker first took it, by queue.",
    labelNames: ["queue"],
    buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 3600],
  },
  writeLaneWait: {
    kind: "histogram",
    name: "diffward_write_lane_wait_seconds",
    help: "Seconds a GitHub write waited for its installation's write lane (1 write/s, 80/min, 500/h), by priority.",
    labelNames: ["priority"],
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900],
  },
  creditsSpent: {
    kind: "counter",
    name: "diffward_credits_spent_total",
    help: "Settled spend of diffward's scans in credits (usage ledger: deductions less refunds), counted when read.",
  },
  deliveriesFailedFound: {
    kind: "counter",
    name: "diffward_deliveries_failed_found_total",
    help: "Webhook events found with only failed deliveries to diffward (GitHub's App webhook deliveries), counted once each.",
  },
  deliveriesRedelivered: {
    kind: "counter",
    name: "diffward_deliveries_redelivered_total",
    help: "Redeliveries of missed webhook events diffward asked GitHub for (answered 202).",
  },
  deliveriesGivenUp: {
    kind: "counter",
    name: "diffward_deliveries_given_up_total",
    help: "Missed webhook events diffward stopped redelivering without a successful delivery, by reason (attempts, window, refused).",
    labelNames: ["reason"],
  },
  breakerOpen: {
    kind: "gauge",
    name: "diffward_service_breaker_open",
    help: "1 while the scanning service tenant's circuit breaker is open (5xx, timeouts, unreachable), else 0; tenant is a hash of the token.",
    labelNames: ["tenant"],
  },
  breakerProbes: {
    kind: "counter",
    name: "diffward_service_breaker_probes_total",
    help: "Half-open probes of an unavailable scanning service tenant, by result (ok, failed).",
    labelNames: ["tenant", "result"],
  },
  launches: {
    kind: "counter",
    name: "diffward_launches_total",
    help: "Launch jobs by outcome (launched, found-existing, already-launched, superseded, concluded, no-token, error).",
    labelNames: ["outcome"],
  },
  polls: {
    kind: "counter",
    name: "diffward_polls_total",
    help: "Scan reads (GET /projects/{projectId}/scans/{scanId}) sent to the scanning service, by HTTP status.",
    labelNames: ["status"],
  },
  serviceRateLimited: {
    kind: "counter",
    name: "diffward_service_rate_limited_total",
    help: "429 answers received from the scanning service, by route template.",
    labelNames: SERVICE_ROUTE_LABELS,
  },
  serviceRequests: {
    kind: "counter",
    name: "diffward_service_requests_total",
    help: "Answered requests to the scanning service, by method, route template and status.",
    labelNames: [...SERVICE_ROUTE_LABELS, "status"],
  },
  reportDelay: {
    kind: "histogram",
    name: "diffward_report_delay_seconds",
    help: "Delay from a scan becoming terminal (service completedAt) to its check run completed, in seconds.",
    buckets: [0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 300],
  },
  queueDepth: {
    kind: "gauge",
    name: "diffward_queue_depth",
    help: "Jobs per BullMQ queue and state (waiting, active, delayed, prioritized, failed), read at scrape.",
    labelNames: ["queue", "state"],
  },
  jobFailures: {
    kind: "counter",
    name: "diffward_job_failures_total",
    help: "Failed job attempts by queue and job name; final=true when no attempt is left.",
    labelNames: [...JOB_LABELS, "final"],
  },
  tokensFileRejected: {
    kind: "counter",
    name: "diffward_tokens_file_rejected_total",
    help: "Reloads of SCANNER_TOKENS_FILE refused (invalid or naming no account); the last good tokens are kept.",
    labelNames: ["reason"],
  },
  unhandledRejections: {
    kind: "counter",
    name: "diffward_unhandled_rejections_total",
    help: "Promise rejections nothing handled (each one a bug, logged with its stack); the process keeps running.",
  },
} as const satisfies Record<string, MetricDeclaration>;

/** The label names a declaration allows (`string` when it declares none, prom-client's default). */
type LabelsOf<D> = D extends { labelNames: readonly (infer L extends string)[] } ? L : string;
/** The prom-client metric a declaration creates, typed with its label names. */
type MetricOf<D> = D extends { kind: "counter" }
  ? Counter<LabelsOf<D>>
  : D extends { kind: "gauge" }
    ? Gauge<LabelsOf<D>>
    : Histogram<LabelsOf<D>>;
type TableMetrics = { [K in keyof typeof METRIC_TABLE]: MetricOf<(typeof METRIC_TABLE)[K]> };
/** Functions run at each scrape to set a metric's values (prom-client's `collect`), by table key. */
type Collectors = { [K in keyof TableMetrics]?: (this: TableMetrics[K]) => Promise<void> };

/** Creates and registers every metric of {@link METRIC_TABLE}, in the table's order. */
function createTableMetrics(registry: Registry, collectors: Collectors): TableMetrics {
  const entries = Object.entries(METRIC_TABLE).map(([key, d]: [string, MetricDeclaration]) => {
    // Each collector's `this` is typed by its key in Collectors; here every metric is the same shape.
    const collect = collectors[key as keyof Collectors] as ((this: unknown) => Promise<void>) | undefined;
    const config = {
      name: d.name,
      help: d.help,
      registers: [registry],
      ...(d.labelNames && { labelNames: d.labelNames }),
      ...(collect && { collect }),
    };
    if (d.kind === "counter") return [key, new Counter(config)];
    if (d.kind === "gauge") return [key, new Gauge(config)];
    return [key, new Histogram({ ...config, ...(d.buckets && { buckets: [...d.buckets] }) })];
  });
  return Object.fromEntries(entries) as TableMetrics;
}

/** Sets `diffward_queue_depth` at scrape from BullMQ's `getJobCounts` (a queue whose read fails keeps its last values). */
function queueDepthCollector(queues: NonNullable<MetricsOptions["queues"]>): Collectors["queueDepth"] {
  return async function () {
    await Promise.all(
      Object.entries(queues).map(async ([name, q]) => {
        const counts = await q.getJobCounts(...QUEUE_DEPTH_STATES).catch(() => undefined);
        if (!counts) return;
        for (const state of QUEUE_DEPTH_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
      }),
    );
  };
}

/**
 * Counts each worker's jobs: wait before the first run, completions, launch outcomes (the results of the launch
 * queue's jobs, which are all launches), failures.
 */
function instrumentWorkers(
  workers: readonly Worker[],
  m: Pick<TableMetrics, "jobWait" | "jobsCompleted" | "launches" | "jobFailures">,
): void {
  const { jobWait, jobsCompleted, launches, jobFailures } = m;
  for (const w of workers) {
    // A job's first run only: a job that waits again (a poll's next read, a retry's backoff) was not
    // waiting for a worker in the meantime.
    w.on("active", (job: Job) => {
      if (job.attemptsStarted > 1) return;
      const due = job.timestamp + (job.opts.delay ?? 0);
      jobWait.observe({ queue: w.name }, Math.max(0, ((job.processedOn ?? Date.now()) - due) / 1000));
    });
    w.on("completed", (job: Job, result: unknown) => {
      jobsCompleted.inc({ queue: w.name, name: job.name });
      if (w.name === QUEUE_NAMES.launch && typeof result === "string") launches.inc({ outcome: result });
    });
    w.on("failed", (job: Job | undefined) => {
      if (!job) return;
      const final = job.attemptsMade >= (job.opts.attempts ?? 1);
      jobFailures.inc({ queue: w.name, name: job.name, final: String(final) });
      if (w.name === QUEUE_NAMES.launch && final) launches.inc({ outcome: "error" });
    });
  }
}

/**
 * Installs the process-level `unhandledRejection` handler: a rejection nothing handled is logged at error
 * level with its stack (pino's `err` serializer) and counted in
 * `diffward_unhandled_rejections_total`, and the process keeps running (Node's default since v15 is to
 * exit: https://nodejs.org/api/process.html#event-unhandledrejection). Errors are handled where they
 * happen; this only makes sure none is ever silent or fatal. Returns a function that removes the handler.
 */
export function guardProcess(
  log: Pick<Logger, "error">,
  metrics?: Pick<DiffwardMetrics, "unhandledRejections">,
): () => void {
  const onRejection = (reason: unknown) => {
    metrics?.unhandledRejections.inc();
    log.error({ err: reason }, "unhandled promise rejection");
  };
  process.on("unhandledRejection", onRejection);
  return () => void process.off("unhandledRejection", onRejection);
}
