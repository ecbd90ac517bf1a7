import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeMiddleware, type Probot } from "probot";
import type { ApplicationFunction } from "probot";
import type { Runtime } from "./runtime/runtime.js";
import { VERSION } from "./runtime/version.js";
import { serveAudit, type AuditAccess } from "./web/audit.js";
import { servedConfigSchema } from "./web/config-schema.js";
import { hasBearer } from "./web/bearer.js";
import { readBody } from "./web/body.js";
import type { PageRoutes } from "./web/routes.js";

/**
 * The largest webhook body accepted, in bytes: GitHub caps payloads at 25 MB ("Webhook events and
 * payloads": "Payloads are capped at 25 MB"; larger events are not delivered).
 */
export const MAX_WEBHOOK_BYTES = 25 * 1024 * 1024;

/** `X-Hub-Signature-256: sha256=<64 hex>` (GitHub "Validating webhook deliveries"). */
const SIGNATURE_256 = /^sha256=[0-9a-f]{64}$/;

/** Answers a webhook request without reading its body: the rest of the body is drained, never buffered. */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error }));
  req.resume();
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The webhook body as text when it is exactly the bytes GitHub signed: valid UTF-8 (so the HMAC over the
 * text's UTF-8 encoding is the HMAC over the raw bytes) and verified against `X-Hub-Signature-256` with
 * `@octokit/webhooks`' `verify` (HMAC-SHA256 with the app's webhook secret, constant-time compare).
 * No JSON is parsed before this returns.
 */
async function verifiedText(
  webhooks: { verify(payload: string, signature: string): Promise<boolean> },
  raw: Buffer,
  signature: string,
): Promise<string | undefined> {
  try {
    const text = UTF8.decode(raw);
    // `verify` throws on an empty payload: no event is empty, so that is a refusal too.
    return text !== "" && (await webhooks.verify(text, signature)) ? text : undefined;
  } catch {
    return undefined;
  }
}

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** Options of {@link startWebServer}. */
export interface WebOptions {
  probot: Probot;
  app: ApplicationFunction;
  rt: Pick<Runtime, "redis" | "log"> & Partial<Pick<Runtime, "metrics" | "serviceHealth">>;
  /** 0 picks a free port */
  port: number;
  host?: string;
  /** Probot's default: `/api/github/webhooks` */
  webhookPath?: string;
  /** extra checks shown by `/healthz`; default `rt.serviceHealth` (service reachability); never fail the probe */
  healthDetails?: () => Promise<Record<string, unknown>>;
  /**
   * How `/metrics` is served on this port: `open` (the default when `rt.metrics` is set; development and
   * tests), behind a bearer token (`{ token }`, `METRICS_TOKEN`), or `off` (404: served on a port of its
   * own, {@link startMetricsServer}, or not at all).
   */
  metrics?: MetricsAccess;
  /**
   * The organization's page and its sign-in (`orgPageRoutes`, `src/web/routes.ts`), tried before the
   * webhook middleware; unset when sign-in is off (no `GITHUB_CLIENT_ID` / `GITHUB_CLIENT_SECRET`).
   */
  pages?: PageRoutes;
  /**
   * `GET /audit` (the audit trail as JSON Lines, `src/web/audit.ts`) behind this bearer token
   * (`DIFFWARD_ADMIN_TOKEN`); unset, `/audit` answers 404 like any unknown path.
   */
  audit?: AuditAccess;
}

/** Who may read `/metrics`: anyone, holders of a bearer token, or nobody on this port. */
export type MetricsAccess = "open" | "off" | { token: string };

/**
 * Answers `GET /metrics` (Prometheus text format, `src/runtime/metrics.ts`) under `access`: 401 with
 * `WWW-Authenticate: Bearer` when a token is required and missing or wrong (RFC 6750 §3).
 */
async function serveMetrics(
  rt: Pick<Runtime, "log"> & Partial<Pick<Runtime, "metrics">>,
  access: Exclude<MetricsAccess, "off">,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (typeof access === "object" && !hasBearer(req, access.token)) {
    res
      .writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer realm="metrics"' })
      .end(JSON.stringify({ error: "a bearer token (METRICS_TOKEN) is required" }));
    return;
  }
  try {
    const text = await rt.metrics!.render();
    res.writeHead(200, { "content-type": rt.metrics!.contentType }).end(text);
  } catch (error) {
    rt.log.warn({ err: error }, "metrics could not be collected");
    if (!res.headersSent)
      res.writeHead(500, { "content-type": "application/json" }).end('{"error":"metrics unavailable"}');
  }
}

/** Whether Redis answers PING within a second (never throws). */
async function redisAnswers(redis: Pick<Runtime["redis"], "ping">): Promise<boolean> {
  try {
    return (
      (await Promise.race([redis.ping(), new Promise((r) => setTimeout(() => r("timeout"), 1000))])) ===
      "PONG"
    );
  } catch {
    return false;
  }
}

/** A started web server. */
export interface WebServer {
  server: Server;
  url: string;
  /** stops taking new connections and waits for open requests */
  close(): Promise<void>;
}

/**
 * Serves GitHub webhooks, untrusted input checked cheapest first: a request without a
 * well-formed `X-Hub-Signature-256` is answered 400 before its body is read; a declared or actual body
 * over {@link MAX_WEBHOOK_BYTES} is answered 413 (never buffered past the cap); the signature is then
 * verified over the raw bytes (`@octokit/webhooks`' `verify`; 400 when it does not match) **before any
 * JSON.parse**; only a verified body is parsed (400 unless a JSON object) and handed to Probot's
 * middleware (which verifies again and runs the handlers), `/healthz` (the process is up; Redis and
 * service reachability as details) and `/readyz` (Redis answers: GitHub never redelivers a webhook on its
 * own, so a service outage must not take the webhook endpoint out of rotation) and `/metrics` (`rt.metrics`
 * in Prometheus text format, `src/runtime/metrics.ts`), and `GET /diffward.schema.json` (the JSON Schema of
 * `.github/diffward.yml` this deployment applies, for editors: `src/web/config-schema.ts`).
 */
export async function startWebServer(opts: WebOptions): Promise<WebServer> {
  const webhookPath = opts.webhookPath ?? "/api/github/webhooks";
  const metricsAccess = opts.metrics ?? "open";
  const middleware = await createNodeMiddleware(opts.app, { probot: opts.probot, webhooksPath: webhookPath });
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };
  const redisOk = () => redisAnswers(opts.rt.redis);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/readyz") {
      const ok = await redisOk();
      return json(res, ok ? 200 : 503, { ready: ok, redis: ok ? "ok" : "unreachable" });
    }
    if (req.method === "GET" && path === "/metrics" && opts.rt.metrics && metricsAccess !== "off")
      return serveMetrics(opts.rt, metricsAccess, req, res);
    if (req.method === "GET" && path === "/audit" && opts.audit) {
      const access = { log: opts.rt.log, access: opts.audit };
      return serveAudit({ ...access, hasBearer: (token) => hasBearer(req, token) }, req, res);
    }
    if (servedConfigSchema(req, res, path)) return;
    if (req.method === "GET" && path === "/healthz") {
      const healthDetails = opts.healthDetails ?? opts.rt.serviceHealth;
      const details = {
        redis: (await redisOk()) ? "ok" : "unreachable",
        ...(await healthDetails?.().catch(() => ({}))),
      };
      return json(res, 200, { status: "ok", version: VERSION, ...details });
    }
    if (opts.pages && path !== webhookPath && (await opts.pages(req, res))) return;
    if (req.method === "POST" && path === webhookPath) {
      // Counted once answered: the event name only once the signature verified (an unsigned header is anyone's).
      let event = "unverified";
      meterWebhook(opts.rt, res, () => event);
      // Cheapest checks first, and no JSON.parse of anything unsigned.
      const signature = req.headers["x-hub-signature-256"];
      if (typeof signature !== "string" || !SIGNATURE_256.test(signature))
        return refuse(req, res, 400, "missing or malformed X-Hub-Signature-256");
      const declared = Number(req.headers["content-length"]);
      if (Number.isFinite(declared) && declared > MAX_WEBHOOK_BYTES)
        return refuse(req, res, 413, "payload too large");
      let raw: Buffer | undefined;
      try {
        raw = await readBody(req, MAX_WEBHOOK_BYTES);
      } catch (error) {
        // The sender aborted or the connection broke mid-body: nothing to answer, nothing was delivered.
        opts.rt.log.warn({ err: error }, "webhook request body could not be read");
        return void res.destroy();
      }
      if (raw === undefined) return json(res, 413, { error: "payload too large" });
      const text = await verifiedText(opts.probot.webhooks, raw, signature);
      if (text === undefined) return json(res, 400, { error: "signature does not match" });
      const name = req.headers["x-github-event"];
      event = typeof name === "string" && /^[a-z_]{1,64}$/.test(name) ? name : "invalid";
      // GitHub sends every event's payload as a JSON object.
      if (!isJsonObject(text)) return json(res, 400, { error: "payload must be a JSON object" });
      // @octokit/webhooks' middleware reads a string `body` instead of the consumed stream.
      (req as IncomingMessage & { body?: string }).body = text;
    }
    try {
      const handled = await middleware(req, res, () => json(res, 404, { error: "not found" }));
      if (handled === false && !res.headersSent) json(res, 404, { error: "not found" });
    } catch (error) {
      opts.rt.log.error({ err: error }, "request failed");
      if (!res.headersSent) json(res, 500, { error: "internal error" });
    }
  };
  // Every request's errors end here: a broken request is answered (or its socket closed) and logged, and
  // never becomes an unhandled rejection that ends the process.
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.on("error", () => undefined); // read errors are handled where the body is read
    res.on("error", () => undefined); // a peer gone while answering: nothing more to do
    handle(req, res).catch((error: unknown) => {
      opts.rt.log.error({ err: error }, "request failed");
      if (!res.headersSent) json(res, 500, { error: "internal error" });
      else res.destroy();
    });
  });
  return listen(server, opts.port, opts.host);
}

/**
 * Counts a webhook delivery once answered (`diffward_webhooks_total{event,status}`) and times it from now, its
 * arrival, to its answer sent (`diffward_webhook_duration_seconds{event}`, seconds); `event` is read then.
 */
function meterWebhook(rt: Pick<Runtime, "metrics">, res: ServerResponse, event: () => string): void {
  const arrived = performance.now();
  res.on("finish", () => {
    rt.metrics?.webhooks.inc({ event: event(), status: String(res.statusCode) });
    rt.metrics?.webhookDuration.observe({ event: event() }, (performance.now() - arrived) / 1000);
  });
}

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  rt: Pick<Runtime, "log" | "redis"> & Required<Pick<Runtime, "metrics">>;
  /** 0 picks a free port */
  port: number;
  host?: string;
  /** when set, `Authorization: Bearer <token>` is required for `/metrics` (never for the probes) */
  token?: string;
  /** this process's queue workers, read at each `/healthz` (none for a web process) */
  workers?: () => ReadonlyArray<{ isRunning(): boolean }>;
}

/**
 * The operations port (`METRICS_PORT`): `GET /metrics` on a port of its own, so the scrape endpoint can stay
 * inside the network while the webhook port is public, and the probes of a process that has no webhook port
 * (a worker): `GET /healthz` (liveness: 200 `{ status: "ok", version, redis, workers: { running, total } }`,
 * 503 with `status: "workers stopped"` when a started queue worker's loop has ended; Redis is a detail, since
 * restarting a worker never brings Redis back) and `GET /readyz` (Redis answers: 200, else 503). Every other
 * path answers 404.
 */
export async function startMetricsServer(opts: MetricsServerOptions): Promise<WebServer> {
  const access: Exclude<MetricsAccess, "off"> = opts.token ? { token: opts.token } : "open";
  const json = (res: ServerResponse, status: number, body: unknown) =>
    void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const health = async (res: ServerResponse) => {
    const workers = opts.workers?.() ?? [];
    const running = workers.filter((w) => w.isRunning()).length;
    const live = running === workers.length;
    const redis = (await redisAnswers(opts.rt.redis)) ? "ok" : "unreachable";
    json(res, live ? 200 : 503, {
      status: live ? "ok" : "workers stopped",
      version: VERSION,
      redis,
      workers: { running, total: workers.length },
    });
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/metrics") return void serveMetrics(opts.rt, access, req, res);
    if (req.method === "GET" && path === "/healthz") return void health(res);
    if (req.method === "GET" && path === "/readyz")
      return void redisAnswers(opts.rt.redis).then((ok) =>
        json(res, ok ? 200 : 503, { ready: ok, redis: ok ? "ok" : "unreachable" }),
      );
    json(res, 404, { error: "not found" });
  });
  return listen(server, opts.port, opts.host);
}

/**
 * Seconds-level bounds on one request, so a slow or stalled client cannot hold a connection (or a
 * shutdown) open: GitHub gives up on a delivery after 10 s ("Best practices for using webhooks": respond
 * within 10 seconds, https://docs.github.com/en/webhooks/using-webhooks/best-practices-for-using-webhooks).
 * In milliseconds.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
const HEADERS_TIMEOUT_MS = 10_000;
/** How long `close()` waits for open requests before closing their connections, in milliseconds. */
const CLOSE_GRACE_MS = 10_000;

/** Listens on `host:port` (0 picks a free port; host defaults to loopback) and returns the server's handle. */
async function listen(server: Server, port: number, host = "127.0.0.1"): Promise<WebServer> {
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound, address } = server.address() as AddressInfo;
  const shown = address.includes(":") ? `[${address}]` : address;
  return {
    server,
    url: `http://${shown}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // A request still open after the grace period has timed out for GitHub already.
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}
