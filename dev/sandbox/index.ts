/**
 * The sandbox: a spec-faithful, in-memory stand-in of the scanning service (spec
 * `scanning-service-api.md`), served over `node:http` for the demo, tests, benchmarks and development.
 * A DEVELOPMENT TOOL: never what production points at.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { SandboxApiError, badRequest, type ErrorCode } from "./errors.js";
import { ROUTES, compileRoutes, parseInput, type CompiledRoute, type RouteResult } from "./routes.js";
import { CompleteScanInput, FaultsInput } from "./schemas.js";
import { SandboxState, type StateOptions } from "./state.js";

export { SandboxState } from "./state.js";
export type {
  AddRepositoryInput,
  CreateTokenInput,
  FindingRecord,
  LedgerEvent,
  RepositoryRecord,
  ScanRecord,
  TokenRecord,
  Faults,
  Stats,
} from "./state.js";
export { DEFAULT_PRESETS, DEFAULT_FLOOR_CREDITS, monthBounds } from "./state.js";
export { SandboxApiError, SandboxConfigError, ERROR_CODES, type ErrorCode } from "./errors.js";
export { loadScenario, generateFindings, SCENARIOS_DIR } from "./findings-source.js";
export { Scenario, ScenarioFinding, FaultsInput, SCOPES, type ScenarioInput } from "./schemas.js";

/** The default seed's tokens, project and repository (README "Default seed"). */
export const SANDBOX_DEFAULTS = {
  token: "sandbox-token",
  projectId: "prj_demo",
  repositoryId: "repo_demo",
  organizationSlug: "acme",
  otherToken: "sandbox-token-2",
  otherProjectId: "prj_other",
  otherRepositoryId: "repo_other",
} as const;

/** Options of {@link startSandbox}. Durations in milliseconds, `retryAfterSeconds` in seconds. */
export interface SandboxOptions extends StateOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
}

/** A running sandbox. `url` ends in `/api/v1` (the spec's `{base_url}`). */
export interface Sandbox {
  url: string;
  port: number;
  state: SandboxState;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 2 * 1024 * 1024;
const API_PREFIX = "/api/v1";

const SandboxOptionsSchema = z.object({
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().min(1).optional(),
  seed: z.number().int().optional(),
  retryAfterSeconds: z.number().int().min(0).optional(),
  analyzingMs: z.number().min(0).optional(),
  settlementDelayMs: z.number().min(0).optional(),
  labelPrefix: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "labelPrefix must be two letters")
    .optional(),
});

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function errorBody(code: ErrorCode, message: string): { error: { code: ErrorCode; message: string } } {
  return { error: { code, message } };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw badRequest(`request body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(buf);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw badRequest("request body is not valid JSON");
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function count(state: SandboxState, key: string, status: number): void {
  const row = (state.stats.requests[key] ??= {});
  row[String(status)] = (row[String(status)] ?? 0) + 1;
}

/** Answers `/_sandbox/*` admin routes (no token; sandbox only). */
async function handleAdmin(
  state: SandboxState,
  method: string,
  path: string,
  req: IncomingMessage,
): Promise<RouteResult> {
  if (method === "GET" && path === "/_sandbox/stats") {
    const scans: Record<string, unknown> = {};
    for (const s of state.scans.values()) {
      scans[s.id] = {
        status: state.statusOf(s),
        polls: s.polls,
        createdAt: new Date(s.createdAtMs).toISOString(),
        terminalAt: s.final ? new Date(s.final.atMs).toISOString() : null,
        terminalAtMs: s.final ? s.final.atMs : null,
      };
    }
    return {
      status: 200,
      body: {
        requests: state.stats.requests,
        earlyPoll429s: state.stats.earlyPoll429s,
        scans,
        faults: describeFaults(state),
      },
    };
  }
  if (method === "POST" && path === "/_sandbox/reset") {
    state.reset();
    return { status: 200, body: { reset: true } };
  }
  if (method === "POST" && path === "/_sandbox/faults") {
    const input = parseInput(FaultsInput, (await readBody(req)) ?? {}, "faults body");
    applyFaults(state, input);
    return { status: 200, body: { faults: describeFaults(state) } };
  }
  const m = /^\/_sandbox\/scans\/([^/]+)\/complete$/.exec(path);
  if (method === "POST" && m?.[1]) {
    const input = parseInput(CompleteScanInput, (await readBody(req)) ?? {}, "complete body");
    if (!state.scans.has(m[1])) throw new SandboxApiError(404, "not_found", `scan ${m[1]} not found`);
    const scan = state.completeNow(m[1], input.outcome);
    return { status: 200, body: { scanId: scan.id, status: state.statusOf(scan) } };
  }
  throw new SandboxApiError(404, "not_found", `no sandbox admin route ${method} ${path}`);
}

/** Replaces the fault settings named in `input` (others unchanged); `null` clears one. */
export function applyFaults(state: SandboxState, input: FaultsInput): void {
  if (input.latencyMs !== undefined) state.faults.latencyMs = input.latencyMs;
  if (input.delays !== undefined)
    state.faults.delays = input.delays && {
      remaining: input.delays.count,
      ms: input.delays.ms,
      route: input.delays.route ? new RegExp(input.delays.route) : null,
    };
  if (input.errors !== undefined) {
    state.faults.errors =
      input.errors === null
        ? null
        : {
            remaining: input.errors.count,
            statuses: input.errors.statuses ?? [input.errors.status ?? 500],
            route: input.errors.route ? new RegExp(input.errors.route) : null,
            served: 0,
          };
  }
  if (input.lostAnswers !== undefined) {
    state.faults.lostAnswers =
      input.lostAnswers === null
        ? null
        : {
            remaining: input.lostAnswers.count,
            status: input.lostAnswers.status ?? 504,
            route: input.lostAnswers.route ? new RegExp(input.lostAnswers.route) : null,
            served: 0,
          };
  }
  if (input.outage !== undefined) {
    state.faults.outage =
      input.outage === null
        ? null
        : {
            untilMs: state.now() + input.outage.durationMs,
            status: input.outage.status ?? 503,
            ...(input.outage.retryAfterSeconds !== undefined
              ? { retryAfterSeconds: input.outage.retryAfterSeconds }
              : {}),
            requests: 0,
          };
  }
  if (input.rateLimits !== undefined) {
    state.faults.rateLimits =
      input.rateLimits === null
        ? null
        : {
            remaining: input.rateLimits.count,
            retryAfterSeconds: input.rateLimits.retryAfterSeconds,
            route: input.rateLimits.route ? new RegExp(input.rateLimits.route) : null,
          };
  }
}

function describeFaults(state: SandboxState): unknown {
  const f = state.faults;
  return {
    latencyMs: f.latencyMs,
    delays: f.delays && {
      remaining: f.delays.remaining,
      ms: f.delays.ms,
      route: f.delays.route?.source ?? null,
    },
    errors: f.errors && {
      remaining: f.errors.remaining,
      statuses: f.errors.statuses,
      route: f.errors.route?.source ?? null,
    },
    rateLimits: f.rateLimits && {
      remaining: f.rateLimits.remaining,
      retryAfterSeconds: f.rateLimits.retryAfterSeconds,
      route: f.rateLimits.route?.source ?? null,
    },
    lostAnswers: f.lostAnswers && {
      remaining: f.lostAnswers.remaining,
      status: f.lostAnswers.status,
      route: f.lostAnswers.route?.source ?? null,
      served: f.lostAnswers.served,
    },
    outage: f.outage && {
      untilMs: f.outage.untilMs,
      active: state.now() < f.outage.untilMs,
      status: f.outage.status,
      retryAfterSeconds: f.outage.retryAfterSeconds ?? null,
      requests: f.outage.requests,
    },
  };
}

/**
 * The lost-answer fault for one API request that was carried out (`target`: `METHOD /path`): the error that
 * replaces its answer, or undefined to answer as usual.
 */
function lostAnswer(state: SandboxState, target: string): SandboxApiError | undefined {
  const l = state.faults.lostAnswers;
  if (!l || l.remaining <= 0 || (l.route && !l.route.test(target))) return undefined;
  l.remaining -= 1;
  l.served += 1;
  return new SandboxApiError(
    l.status,
    "internal",
    `injected lost answer: ${l.status} after the request was carried out`,
  );
}

/** How long one API request is held by the `delays` fault, in ms (0: not held); counted on arrival. */
function delayOf(state: SandboxState, target: string): number {
  const d = state.faults.delays;
  if (!d || d.remaining <= 0 || (d.route && !d.route.test(target))) return 0;
  d.remaining -= 1;
  return d.ms;
}

/** Injected faults for one API request, or undefined to go on. */
function injectedFault(state: SandboxState, target: string): SandboxApiError | undefined {
  const o = state.faults.outage;
  if (o && state.now() < o.untilMs) {
    o.requests += 1;
    return new SandboxApiError(o.status, "internal", `injected outage: ${o.status}`, o.retryAfterSeconds);
  }
  const e = state.faults.errors;
  if (e && e.remaining > 0 && (!e.route || e.route.test(target))) {
    e.remaining -= 1;
    const status = e.statuses[e.served % e.statuses.length] ?? 500;
    e.served += 1;
    return new SandboxApiError(status, "internal", `injected fault: ${status}`);
  }
  const r = state.faults.rateLimits;
  if (r && r.remaining > 0 && (!r.route || r.route.test(target))) {
    r.remaining -= 1;
    return new SandboxApiError(429, "rate_limited", "injected fault: too many requests", r.retryAfterSeconds);
  }
  return undefined;
}

function authenticate(
  state: SandboxState,
  header: string | undefined,
): NonNullable<ReturnType<SandboxState["tokens"]["get"]>> {
  const m = /^Bearer ([^\s]+)$/.exec(header ?? "");
  if (!m?.[1])
    throw new SandboxApiError(
      401,
      "unauthorized",
      "missing or malformed Authorization header; send `Authorization: Bearer <token>`",
    );
  const token = state.tokens.get(m[1]);
  if (!token || token.revoked) throw new SandboxApiError(401, "unauthorized", "unknown or revoked token");
  if (token.expiresAtMs !== null && state.now() >= token.expiresAtMs)
    throw new SandboxApiError(401, "unauthorized", "token expired");
  return token;
}

async function handle(
  state: SandboxState,
  routes: CompiledRoute[],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", "http://sandbox.invalid");
  let statsKey = `${method} ${url.pathname}`;
  let status = 500;
  try {
    let result: RouteResult;
    if (url.pathname.startsWith("/_sandbox/")) {
      statsKey = `${method} ${url.pathname.replace(/\/scans\/[^/]+\//, "/scans/:scanId/")}`;
      result = await handleAdmin(state, method, url.pathname, req);
    } else {
      if (!url.pathname.startsWith(`${API_PREFIX}/`))
        throw new SandboxApiError(
          404,
          "not_found",
          `no route ${method} ${url.pathname}; the API lives under ${API_PREFIX}`,
        );
      const path = url.pathname.slice(API_PREFIX.length);
      const target = `${method} ${path}`;
      const wait = state.faults.latencyMs + delayOf(state, target);
      if (wait > 0) await sleep(wait);
      let route: CompiledRoute | undefined;
      let match: RegExpExecArray | null = null;
      for (const r of routes) {
        if (r.method !== method) continue;
        match = r.regex.exec(path);
        if (match) {
          route = r;
          break;
        }
      }
      if (route) statsKey = `${method} ${route.pattern}`;
      const fault = injectedFault(state, target);
      if (fault) throw fault;
      if (!route || !match) throw new SandboxApiError(404, "not_found", `no route ${method} ${path}`);
      const token = authenticate(state, req.headers.authorization);
      if (route.scope && !token.scopes.includes(route.scope)) {
        throw new SandboxApiError(403, "forbidden", `this operation needs scope ${route.scope}`);
      }
      const params: Record<string, string> = {};
      for (const [i, name] of route.names.entries()) {
        try {
          params[name] = decodeURIComponent(match[i + 1] ?? "");
        } catch {
          throw badRequest(`path parameter ${name} is not valid percent-encoding`);
        }
      }
      const body = method === "GET" || method === "DELETE" ? undefined : await readBody(req);
      result = route.handle({ state, token, params, query: url.searchParams, body });
      const lost = lostAnswer(state, target);
      if (lost) throw lost;
    }
    status = result.status;
    send(res, result.status, result.body, result.headers);
  } catch (err) {
    if (err instanceof SandboxApiError) {
      status = err.status;
      const headers: Record<string, string> =
        err.retryAfterSeconds === undefined ? {} : { "Retry-After": String(err.retryAfterSeconds) };
      send(res, err.status, errorBody(err.code, err.message), headers);
    } else {
      status = 500;
      console.error("sandbox: unexpected error", err);
      send(res, 500, errorBody("internal", "internal sandbox error"));
    }
  } finally {
    count(state, statsKey, status);
  }
}

/**
 * Starts a sandbox on `host:port` (default `127.0.0.1:0`, a random free port) with the default seed
 * (README "Default seed"). Resolves once it listens.
 *
 * @param options scan timing in ms (`scanDurationMs`, default 8000; `analyzingMs`, default 0;
 *   `settlementDelayMs`, default 0), `retryAfterSeconds` (integer seconds, default 2), `seed`, `scenario`
 *   (a file name in `fixtures/scenarios/` or an inline scenario), `labelPrefix` (default "SC"), `now` (clock).
 * @throws SandboxConfigError for a bad scenario; an Error with the zod message for bad options; the
 *   `listen` error (e.g. EADDRINUSE).
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const checked = SandboxOptionsSchema.safeParse(options);
  if (!checked.success) throw new Error(`invalid sandbox options: ${z.prettifyError(checked.error)}`);
  const state = new SandboxState(options);
  const routes = compileRoutes(ROUTES);
  const server = createServer((req, res) => void handle(state, routes, req, res));
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${API_PREFIX}`,
    port,
    state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
