import { readFileSync } from "node:fs";
import type { Counter, Gauge, Histogram } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { serviceReachability } from "../../src/runtime/health.js";
import { createMetrics, guardProcess } from "../../src/runtime/metrics.js";
import { startMetricsServer } from "../../src/web.js";
import { applyFaults } from "../../dev/sandbox/index.js";
import { expectExactlyOnce } from "../support/faults.js";
import { completedRun, seedPull } from "../support/pr.js";

/** The value of one sample line of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]] as const),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

describe("/metrics and /healthz", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 2_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("counts launches, polls, the service's 429s, report delay, queue depth and job failures", async () => {
    // A 429 storm on scan reads: diffward waits each Retry-After, and counts every 429.
    applyFaults(h.sandbox.state, {
      rateLimits: { count: 3, retryAfterSeconds: 1, route: "^GET /projects/[^/]+/scans/[^/]+$" },
    });
    const head = "d".repeat(39) + "1";
    const pr = seedPull(h, { head });
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    await completedRun(h, pr.owner, pr.repo, head);
    expectExactlyOnce(h, pr, head);

    // The delay is observed right after the check run completes: wait for the poll job to finish.
    await h.waitFor(
      async () => sample(await h.booted.metrics.render(), "diffward_report_delay_seconds_count") === 1,
      5_000,
      "report delay observed",
    );
    const res = await fetch(`${h.web.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(sample(text, "diffward_launches_total", { outcome: "launched" })).toBe(1);
    expect(sample(text, "diffward_polls_total", { status: "429" })).toBe(3);
    expect(sample(text, "diffward_polls_total", { status: "200" })).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, "diffward_service_rate_limited_total", {
        method: "GET",
        route: "/projects/{projectId}/scans/{scanId}",
      }),
    ).toBe(3);
    expect(sample(text, "diffward_report_delay_seconds_count")).toBe(1);
    expect(
      sample(text, "diffward_build_info", { version: PACKAGE_VERSION, node: process.versions.node }),
    ).toBe(1);
    expect(sample(text, "diffward_webhooks_total", { event: "pull_request", status: "200" })).toBe(1);
    expect(sample(text, "diffward_webhook_duration_seconds_count", { event: "pull_request" })).toBe(1);
    expect(
      sample(text, "diffward_webhook_duration_seconds_bucket", { event: "pull_request", le: "10" }),
    ).toBe(1);
    expect(
      sample(text, "diffward_jobs_completed_total", { queue: "diffward-events", name: "pull-request" }),
    ).toBe(1);
    expect(sample(text, "diffward_job_wait_seconds_count", { queue: "diffward-launch" })).toBe(1);
    expect(
      sample(text, "diffward_write_lane_wait_seconds_count", { priority: "complete" }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, "diffward_redis_up")).toBe(1);
    expect(sample(text, "diffward_service_probe", { result: "ok" })).toBe(1);
    expect(sample(text, "diffward_service_probe", { result: "unreachable" })).toBe(0);
    // the scan settled before its report: its spend is counted once
    expect(sample(text, "diffward_credits_spent_total")).toBeGreaterThan(0);
    // a poll re-run after each 429 (moved to delayed) waited for the service, not for a worker: first runs only
    expect(sample(text, "diffward_job_wait_seconds_count", { queue: "diffward-scans" })).toBe(1);
    const delay = sample(text, "diffward_report_delay_seconds_sum")!;
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(sample(text, "diffward_queue_depth", { queue: "scans", state: "delayed" })).toBe(0);
    expect(sample(text, "diffward_queue_depth", { queue: "events", state: "waiting" })).toBe(0);
    expect(sample(text, "diffward_job_failures_total", { queue: "diffward-scans" })).toBeUndefined();
    // The sandbox agrees about the 429s it answered.
    const reads = Object.entries(h.sandbox.state.stats.requests).filter(([k]) =>
      /^GET \/projects\/[^/]+\/scans\/[^/]+$/.test(k),
    );
    expect(reads.reduce((n, [, byStatus]) => n + (byStatus["429"] ?? 0), 0)).toBe(3);
  });

  it("diffward_redis_up and diffward_service_probe follow what Redis and the service answer at scrape", async () => {
    const m = createMetrics({
      defaultMetrics: false,
      redis: { ping: () => Promise.reject(new Error("connect ECONNREFUSED")) },
      serviceHealth: async () => ({ service: "unauthorized" as const }),
    });
    const text = await m.render();
    expect(sample(text, "diffward_redis_up")).toBe(0);
    expect(sample(text, "diffward_service_probe", { result: "unauthorized" })).toBe(1);
    expect(sample(text, "diffward_service_probe", { result: "ok" })).toBe(0);
    const hung = createMetrics({
      defaultMetrics: false,
      redis: { ping: () => new Promise<string>(() => {}) },
    });
    expect(sample(await hung.render(), "diffward_redis_up")).toBe(0); // after its 1 s timeout
  });

  it("an unsigned or wrongly signed webhook is counted without its claimed event name", async () => {
    const url = `${h.web.url}/api/github/webhooks`;
    const headers = { "content-type": "application/json", "x-github-event": "made_up" };
    await fetch(url, { method: "POST", headers, body: "{}" });
    await fetch(url, {
      method: "POST",
      headers: { ...headers, "x-hub-signature-256": `sha256=${"0".repeat(64)}` },
      body: "{}",
    });
    const text = await (await fetch(`${h.web.url}/metrics`)).text();
    expect(sample(text, "diffward_webhooks_total", { event: "unverified", status: "400" })).toBe(2);
    expect(text).not.toContain('event="made_up"');
  });

  it("queue depth is read at scrape time; job failures are counted per queue and name", async () => {
    await h.booted.rt.queues.launch.add("launch", {}, { delay: 60_000, jobId: "metrics-probe" });
    // A job no processor knows fails at once (attempts 1): counted as a final failure.
    await h.booted.rt.queues.events.add("no-such-job", {}, { jobId: "metrics-fail" });
    await h.waitFor(async () => (await h.booted.rt.queues.events.getFailedCount()) === 1, 5_000, "failure");
    const text = await (await fetch(`${h.web.url}/metrics`)).text();
    expect(sample(text, "diffward_queue_depth", { queue: "launch", state: "delayed" })).toBe(1);
    expect(
      sample(text, "diffward_job_failures_total", {
        queue: "diffward-events",
        name: "no-such-job",
        final: "true",
      }),
    ).toBe(1);
    expect(sample(text, "diffward_queue_depth", { queue: "events", state: "failed" })).toBe(1);
    await (await h.booted.rt.queues.launch.getJob("metrics-probe"))?.remove();
  });

  it("/healthz shows Redis and service reachability, probing GET /token at most once per cache window", async () => {
    const tokenReads = () => h.sandbox.state.stats.requests["GET /token"]?.["200"] ?? 0;
    const first = await (await fetch(`${h.web.url}/healthz`)).json();
    const before = tokenReads();
    const second = await (await fetch(`${h.web.url}/healthz`)).json();
    expect(first).toMatchObject({ status: "ok", redis: "ok", service: "ok", version: PACKAGE_VERSION });
    expect(second).toMatchObject({ status: "ok", redis: "ok", service: "ok" });
    expect(tokenReads()).toBe(before); // cached
    expect(JSON.stringify(first)).not.toContain("sandbox-token");
    const ready = await fetch(`${h.web.url}/readyz`);
    expect(ready.status).toBe(200);
  });

  it("the service probe says unreachable, unauthorized or not-configured, with a short timeout", async () => {
    const down = serviceReachability({ baseUrl: "http://127.0.0.1:9/api/v1", token: "t", timeoutMs: 500 });
    expect(await down()).toMatchObject({ service: "unreachable" });
    const bad = serviceReachability({ baseUrl: h.sandbox.url, token: "not-a-token" });
    expect(await bad()).toMatchObject({ service: "unauthorized", serviceDetail: "401" });
    const none = serviceReachability({ baseUrl: h.sandbox.url });
    expect(await none()).toEqual({ service: "not-configured" });
    let clock = 0;
    const cached = serviceReachability({ baseUrl: h.sandbox.url, token: "sandbox-token", now: () => clock });
    const n0 = h.sandbox.state.stats.requests["GET /token"]?.["200"] ?? 0;
    await cached();
    await cached();
    clock += 5_000;
    await cached();
    expect((h.sandbox.state.stats.requests["GET /token"]?.["200"] ?? 0) - n0).toBe(2);
  });

  it("the operations port's /healthz fails (503) when a started queue worker's loop has ended", async () => {
    const workers = [{ isRunning: () => true }, { isRunning: () => true }];
    const ops = await startMetricsServer({
      rt: h.booted.rt as Required<typeof h.booted.rt>,
      port: 0,
      workers: () => workers,
    });
    try {
      const live = await fetch(`${ops.url}/healthz`);
      expect(live.status).toBe(200);
      expect(await live.json()).toMatchObject({
        status: "ok",
        redis: "ok",
        workers: { running: 2, total: 2 },
      });
      workers[1] = { isRunning: () => false };
      const dead = await fetch(`${ops.url}/healthz`);
      expect(dead.status).toBe(503);
      expect(await dead.json()).toMatchObject({
        status: "workers stopped",
        workers: { running: 1, total: 2 },
      });
      expect((await fetch(`${ops.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${ops.url}/api/github/webhooks`)).status).toBe(404);
    } finally {
      await ops.close();
    }
  });
});

/**
 * The exposition dashboards and alerts read (docs/operations.md "Metrics"): every metric's name, type, help
 * text, label names and histogram buckets, in registration order. A change here breaks them.
 */
const EXPOSITION: ReadonlyArray<
  [name: string, type: string, help: string, labels: string[], buckets?: number[]]
> = [
  [
    "diffward_build_info",
    "gauge",
    "Always 1; the labels name this process's diffward version and Node.js version.",
    ["version", "node"],
  ],
  ["diffward_redis_up", "gauge", "1 when Redis answered PING within a second at this scrape, else 0.", []],
  [
    "diffward_service_probe",
    "gauge",
    "The scanning-service probe of /healthz (GET /token with SCANNER_TOKEN, cached 5 s): 1 for the current result (ok, unauthorized, unreachable, not-configured), 0 for the others.",
    ["result"],
  ],
  [
    "diffward_webhooks_total",
    "counter",
    "Webhook deliveries answered, by event (unverified when the signature did not verify) and HTTP status.",
    ["event", "status"],
  ],
  [
    "diffward_webhook_duration_seconds",
    "histogram",
    "Seconds from a webhook request's arrival to its answer, by event (GitHub gives up after 10 s).",
    ["event"],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  ],
  ["diffward_jobs_completed_total", "counter", "Jobs completed, by queue and job name.", ["queue", "name"]],
  [
    "diffward_job_wait_seconds",
    "histogram",
    "Seconds from when a job was due (added, plus its delay) to when a worker first took it, by queue.",
    ["queue"],
    [0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 3600],
  ],
  [
    "diffward_write_lane_wait_seconds",
    "histogram",
    "Seconds a GitHub write waited for its installation's write lane (1 write/s, 80/min, 500/h), by priority.",
    ["priority"],
    [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900],
  ],
  [
    "diffward_credits_spent_total",
    "counter",
    "Settled spend of diffward's scans in credits (usage ledger: deductions less refunds), counted when read.",
    [],
  ],
  [
    "diffward_deliveries_failed_found_total",
    "counter",
    "Webhook events found with only failed deliveries to diffward (GitHub's App webhook deliveries), counted once each.",
    [],
  ],
  [
    "diffward_deliveries_redelivered_total",
    "counter",
    "Redeliveries of missed webhook events diffward asked GitHub for (answered 202).",
    [],
  ],
  [
    "diffward_deliveries_given_up_total",
    "counter",
    "Missed webhook events diffward stopped redelivering without a successful delivery, by reason (attempts, window, refused).",
    ["reason"],
  ],
  [
    "diffward_service_breaker_open",
    "gauge",
    "1 while the scanning service tenant's circuit breaker is open (5xx, timeouts, unreachable), else 0; tenant is a hash of the token.",
    ["tenant"],
  ],
  [
    "diffward_service_breaker_probes_total",
    "counter",
    "Half-open probes of an unavailable scanning service tenant, by result (ok, failed).",
    ["tenant", "result"],
  ],
  [
    "diffward_launches_total",
    "counter",
    "Launch jobs by outcome (launched, found-existing, already-launched, superseded, concluded, no-token, error).",
    ["outcome"],
  ],
  [
    "diffward_polls_total",
    "counter",
    "Scan reads (GET /projects/{projectId}/scans/{scanId}) sent to the scanning service, by HTTP status.",
    ["status"],
  ],
  [
    "diffward_service_rate_limited_total",
    "counter",
    "429 answers received from the scanning service, by route template.",
    ["method", "route"],
  ],
  [
    "diffward_service_requests_total",
    "counter",
    "Answered requests to the scanning service, by method, route template and status.",
    ["method", "route", "status"],
  ],
  [
    "diffward_report_delay_seconds",
    "histogram",
    "Delay from a scan becoming terminal (service completedAt) to its check run completed, in seconds.",
    [],
    [0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 300],
  ],
  [
    "diffward_queue_depth",
    "gauge",
    "Jobs per BullMQ queue and state (waiting, active, delayed, prioritized, failed), read at scrape.",
    ["queue", "state"],
  ],
  [
    "diffward_job_failures_total",
    "counter",
    "Failed job attempts by queue and job name; final=true when no attempt is left.",
    ["queue", "name", "final"],
  ],
  [
    "diffward_tokens_file_rejected_total",
    "counter",
    "Reloads of SCANNER_TOKENS_FILE refused (invalid or naming no account); the last good tokens are kept.",
    ["reason"],
  ],
  [
    "diffward_unhandled_rejections_total",
    "counter",
    "Promise rejections nothing handled (each one a bug, logged with its stack); the process keeps running.",
    [],
  ],
];

describe("the metrics exposition", () => {
  it("keeps every metric's name, type, help, labels and buckets, each listed in docs/operations.md", async () => {
    const metrics = createMetrics({
      defaultMetrics: false,
      queues: { "diffward-events": { getJobCounts: async () => ({ waiting: 1 }) } },
      redis: { ping: async () => "PONG" },
      serviceHealth: async () => ({ service: "ok" }),
    });
    // One labelled sample of every metric, so the exposition names each label and every histogram bucket.
    for (const [name, type, , labels] of EXPOSITION) {
      const metric = metrics.registry.getSingleMetric(name);
      const values = Object.fromEntries(labels.map((l) => [l, "x"]));
      if (type === "counter") (metric as Counter).inc(values, 1);
      else if (type === "gauge") (metric as Gauge).set(values, 1);
      else (metric as Histogram).observe(values, 1);
    }
    const text = await metrics.render();
    const docs = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");
    const helpLines = text.split("\n").filter((l) => l.startsWith("# HELP "));
    expect(helpLines).toEqual(EXPOSITION.map(([name, , help]) => `# HELP ${name} ${help}`));
    for (const [name, type, , labels, buckets] of EXPOSITION) {
      expect(text).toContain(`# TYPE ${name} ${type}\n`);
      expect(docs).toMatch(new RegExp(`^\\| \`${name}\` \\| ${type}`, "m"));
      const series = type === "histogram" ? `${name}_count` : name;
      const line = text.split("\n").find((l) => l.startsWith(`${series}{`) || l.startsWith(`${series} `));
      expect(line, name).toBeDefined();
      const got = [...(/\{(.*)\}/.exec(line!)?.[1] ?? "").matchAll(/(\w+)="/g)].map((m) => m[1]);
      expect(got, name).toEqual(labels);
      const les = text
        .split("\n")
        .filter((l) => l.startsWith(`${name}_bucket{`))
        .map((l) => /le="([^"]+)"/.exec(l)![1]);
      expect(les, name).toEqual(buckets ? [...buckets.map(String), "+Inf"] : []);
    }
  });
});

describe("guardProcess: no unhandled rejection is silent or fatal", () => {
  it("logs the rejection with its stack and counts it in diffward_unhandled_rejections_total", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const logged: Array<{ err: unknown }> = [];
    const unguard = guardProcess(
      { error: (obj: { err: unknown }) => void logged.push(obj) } as never,
      metrics,
    );
    try {
      const bug = new Error("nothing awaited this");
      void Promise.reject(bug);
      await new Promise((r) => setTimeout(r, 20));
      expect(logged.map((l) => l.err)).toContain(bug);
      expect(sample(await metrics.render(), "diffward_unhandled_rejections_total")).toBe(1);
    } finally {
      unguard();
    }
  });
});
