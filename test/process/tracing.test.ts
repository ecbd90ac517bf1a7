import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, devPrivateKey, type HeadlessHarness } from "../../dev/harness/harness.js";
import { sendWebhook } from "../../dev/github-standin/index.js";
import { freePort } from "../support/redis-server.js";
import { startEntry as start } from "../support/entry.js";
import { seedPull, sha, type SeededPull } from "../support/pr.js";

/** One span as OTLP/HTTP JSON carries it (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: Record<string, unknown> }[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}
/** A span with the service that sent it and its attributes as plain values. */
interface Received extends OtlpSpan {
  service: string;
  pid: number;
  attrs: Record<string, unknown>;
}

const value = (v: Record<string, unknown>): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const flat = (a: OtlpSpan["attributes"]) => Object.fromEntries((a ?? []).map((x) => [x.key, value(x.value)]));

/** An OTLP/HTTP receiver: collects every span POSTed to `/v1/traces` as JSON (`http/json`). */
async function startReceiver(): Promise<{ url: string; spans: Received[]; close(): Promise<void> }> {
  const spans: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport;
        for (const rs of body.resourceSpans) {
          const resource = flat(rs.resource.attributes);
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              spans.push({
                ...s,
                service: String(resource["service.name"]),
                pid: Number(resource["process.pid"]),
                attrs: flat(s.attributes),
              });
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

// The entry's queues and state use the default key prefixes: a Redis database of this test's own keeps them
// apart from every other test's.
const REDIS_DB = 13;
const REDIS_URL = `${process.env.REDIS_URL ?? "redis://127.0.0.1:6379"}/${REDIS_DB}`;
const SCANNER_TOKEN = "sandbox-token";

async function cleanDefaultPrefixes(): Promise<void> {
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    for (const pattern of ["{diffward}:*", "{dw}:*"]) {
      let cursor = "0";
      do {
        const [next, keys] = await r.scan(cursor, "MATCH", pattern, "COUNT", 1000);
        cursor = next;
        if (keys.length) await r.del(...keys);
      } while (cursor !== "0");
    }
  } finally {
    r.disconnect();
  }
}

describe("OpenTelemetry traces across the web and worker processes", () => {
  let h: HeadlessHarness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    await cleanDefaultPrefixes();
    h = await startHarness({ web: false, workers: false });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
    await cleanDefaultPrefixes();
  });

  it("one pull request's delivery, jobs and GitHub and service requests form one trace, with its identifiers and no secret", async () => {
    const port = await freePort();
    const common = {
      NODE_ENV: "production",
      APP_ID: "1",
      PRIVATE_KEY: devPrivateKey(),
      WEBHOOK_SECRET: h.webhookSecret,
      SCANNER_API_URL: h.sandbox.url,
      SCANNER_TOKEN,
      GHE_HOST: h.github.host,
      GHE_PROTOCOL: "http",
      HOST: "127.0.0.1",
      LOG_LEVEL: "debug",
      REDIS_URL,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "200",
    };
    const web = start({
      ...common,
      DIFFWARD_ROLE: "web",
      PORT: String(port),
      OTEL_SERVICE_NAME: "diffward-web",
    });
    const worker = start({ ...common, DIFFWARD_ROLE: "worker", OTEL_SERVICE_NAME: "diffward-worker" });
    const head = sha(0x0738);
    const deliveryId = randomUUID();
    let pr!: SeededPull;
    try {
      const base = `http://127.0.0.1:${port}`;
      await h.waitFor(
        () =>
          fetch(`${base}/readyz`)
            .then((r) => r.ok)
            .catch(() => false),
        30_000,
        "the web process",
      );
      await h.waitFor(() => worker.output().includes("queue workers started"), 30_000, "the worker process");
      // seeded once both run: the worker's reconciliation at start-up finds nothing to resume
      pr = seedPull(h, { head });
      const ack = await sendWebhook({
        url: `${base}/api/github/webhooks`,
        secret: h.webhookSecret,
        name: "pull_request",
        payload: pr.payload,
        id: deliveryId,
      });
      expect(ack.status).toBeLessThan(300);
      await h.waitFor(
        () =>
          h.github.state
            .checkRuns(pr.owner, pr.repo)
            .find((c) => c.headSha === head && c.status === "completed"),
        60_000,
        "the report",
      );
    } catch (error) {
      throw new Error(
        `${String(error)}\n--- web:\n${web.output().slice(-4000)}\n--- worker:\n${worker.output().slice(-8000)}`,
      );
    } finally {
      web.child.kill("SIGTERM");
      worker.child.kill("SIGTERM");
    }
    // SIGTERM: each process flushes its last spans before it exits
    expect(await web.exited).toBe(0);
    expect(await worker.exited).toBe(0);

    const webhook = receiver.spans.find(
      (s) => s.service === "diffward-web" && s.attrs["diffward.delivery.guid"] === deliveryId,
    );
    expect(webhook, "the webhook request's span").toBeDefined();
    const traceId = webhook!.traceId;
    const trace = receiver.spans.filter((s) => s.traceId === traceId);
    // both processes (by service name and by process id) in the one trace
    expect(new Set(trace.map((s) => s.service))).toEqual(new Set(["diffward-web", "diffward-worker"]));
    expect(new Set(trace.map((s) => s.pid)).size).toBe(2);
    // one tree: every span's parent is in the trace, one root (the webhook request)
    const ids = new Set(trace.map((s) => s.spanId));
    expect(trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual([
      webhook!.name,
    ]);
    expect(webhook!.attrs).toMatchObject({
      "diffward.installation.id": pr.payload.installation.id,
      "diffward.repository": `${pr.owner}/${pr.repo}`,
      "diffward.pull_request.number": pr.number,
      "diffward.head_sha": head,
    });
    // the jobs it caused, processed by the worker (bullmq-otel's `process <queue>` spans, with the job's name)
    const jobs = trace.filter(
      (s) => s.service === "diffward-worker" && s.attrs["bullmq.job.name"] !== undefined,
    );
    const jobNames = new Set(jobs.map((s) => s.attrs["bullmq.job.name"]));
    for (const name of ["pull-request", "launch", "poll", "report"]) expect(jobNames, name).toContain(name);
    const scan = [...h.sandbox.state.scans.values()].find((s) => s.commitHash === head)!;
    const job = (name: string) =>
      jobs.find((s) => s.attrs["bullmq.job.name"] === name && s.kind === 5)?.attrs;
    expect(job("pull-request")).toMatchObject({
      "diffward.delivery.guid": deliveryId,
      "diffward.head_sha": head,
    });
    expect(job("poll")).toMatchObject({
      "diffward.scan.id": scan.id,
      "diffward.installation.id": pr.payload.installation.id,
    });
    expect(job("report")).toMatchObject({
      "diffward.scan.id": scan.id,
      "diffward.pull_request.number": pr.number,
    });
    // requests to GitHub and to the service (undici's client spans, `url.full`)
    const urls = trace.filter((s) => s.kind === 3).map((s) => String(s.attrs["url.full"]));
    expect(urls.some((u) => u.startsWith(h.github.url))).toBe(true);
    expect(urls.some((u) => u.startsWith(h.sandbox.url))).toBe(true);

    // never a token nor a finding's text, in any span received
    const findings = [...h.sandbox.state.findings.values()].filter((f) => f.scanId === scan.id);
    expect(findings.length).toBeGreaterThan(0);
    const values = receiver.spans.flatMap((s) => Object.values(s.attrs).map(String));
    for (const v of values) {
      expect(v).not.toContain(SCANNER_TOKEN);
      expect(v).not.toMatch(/gh[sup]_[A-Za-z0-9]/);
      for (const f of findings) expect(v).not.toContain(f.title);
    }
    // log lines inside a span carry its trace and span ids
    const logged = `${web.output()}\n${worker.output()}`
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { trace_id?: string; span_id?: string });
    expect(logged.some((l) => l.trace_id === traceId && typeof l.span_id === "string")).toBe(true);
  }, 120_000);
});
