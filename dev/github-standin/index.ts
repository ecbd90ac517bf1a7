import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { GraphqlBody, handleGraphql } from "./graphql.js";
import { GraphqlPoints } from "./graphql-exec.js";
import { HttpError, type RouteContext, type RouteReply } from "./http.js";
import {
  ContentCreationLimiter,
  Faults,
  PrimaryLimiter,
  SECONDARY_RATE_LIMIT_MESSAGE,
  StandInLimits,
} from "./limits.js";
import { OpenApiSubset, OpenApiValidator } from "./openapi.js";
import { ROUTES } from "./routes.js";
import { OAUTH_ROUTES } from "./oauth.js";
import { CODE_SCANNING_ROUTES } from "./code-scanning.js";
import { DELIVERY_ROUTES } from "./deliveries.js";
import { TEAM_ROUTES } from "./teams.js";
import { CONTENTS_ROUTES } from "./contents.js";
import type { DeliveryResult, WebhookTarget } from "./webhook-deliveries.js";
import { StandInState } from "./state.js";

export { StandInState, StandInStateError, blobSha } from "./state.js";
export { OAuthUsers, OAuthUserInput } from "./oauth-users.js";
export { OrgTeams, TeamMembershipState, TeamRole } from "./team-memberships.js";
export { codeownersErrors, CODEOWNERS_PATHS } from "./teams.js";
export { decodeSarifUpload, sarifSchemaErrors, sarifSchemaPath, SARIF_UPLOAD_MAXIMUMS } from "./sarif.js";
export type {
  Account,
  CodeScanningAlertRecord,
  SarifUploadRecord,
  AddInstallationInput,
  AddPullRequestInput,
  AddRepositoryInput,
  CheckRun,
  Installation,
  IssueComment,
  MergeGroup,
  AddMergeGroupInput,
  PullRequest,
  PullRequestFile,
  Reaction,
  Repository,
  Review,
  ReviewComment,
  ReviewThread,
  RoleName,
  UpdatePullRequestHeadInput,
} from "./state.js";
export { Faults, StandInLimits, ContentCreationLimit, SECONDARY_RATE_LIMIT_MESSAGE } from "./limits.js";
export { OpenApiValidator, OpenApiSubset, loadOpenApiSubset } from "./openapi.js";
export { parsePatch, type PatchLines } from "./diff.js";
export {
  seedFromPullRequestEvent,
  seedOrganization,
  SeedExtra,
  SeedOrganizationInput,
  type SeededPullRequest,
} from "./seed.js";
export { mergeGroupPayload } from "./merge-group.js";
export { pushPayload, type PushInput } from "./push.js";
export {
  postDelivery,
  sendWebhook,
  signDelivery,
  SendWebhookOptions,
  type SendWebhookResult,
  type SignedDelivery,
} from "./webhooks.js";
export {
  WebhookDeliveries,
  DELIVERY_TIMEOUT_MS,
  type DeliveryResult,
  type WebhookDeliveryRecord,
  type WebhookTarget,
} from "./webhook-deliveries.js";

/** One request the stand-in received. `openapiErrors` is empty for a request GitHub would accept. */
export const RecordedRequest = z.object({
  method: z.string(),
  /** Path without the `/api/v3` prefix and without the query string. */
  path: z.string(),
  /** The OpenAPI path template, or `null` for an unknown route. */
  route: z.string().nullable(),
  operationId: z.string().nullable(),
  query: z.record(z.string(), z.string()),
  /** Parsed JSON body, the raw text when not JSON, or `undefined` when empty. */
  body: z.unknown(),
  status: z.number().int(),
  installationId: z.number().int().optional(),
  /** Receive time, epoch milliseconds. */
  at: z.number(),
  openapiErrors: z.array(z.string()),
  /** points a GraphQL query cost (GitHub's `rateLimit.cost`), when it ran */
  graphqlCost: z.number().int().optional(),
});
export type RecordedRequest = z.infer<typeof RecordedRequest>;

/** Options of {@link startGitHubStandIn}. */
export const GitHubStandInOptions = z.object({
  /** TCP port; 0 (default) picks a free one. */
  port: z.number().int().min(0).max(65_535).default(0),
  host: z.string().default("127.0.0.1"),
  limits: StandInLimits.default({}),
  faults: Faults.default({}),
  /** Pre-seeded state; a fresh one by default. */
  state: z.instanceof(StandInState).optional(),
  /** OpenAPI subset; `fixtures/openapi/github-subset.json` by default. */
  subset: OpenApiSubset.optional(),
});
export type GitHubStandInOptions = z.input<typeof GitHubStandInOptions>;

/** A running stand-in. */
export interface GitHubStandIn {
  /** `http://127.0.0.1:PORT` (routes are served at `/` and under `/api/v3`). */
  readonly url: string;
  /** `127.0.0.1:PORT`, for `GHE_HOST` (with `GHE_PROTOCOL=http`). */
  readonly host: string;
  readonly state: StandInState;
  /** Every request, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Requests GitHub would refuse or the stand-in does not know (`openapiErrors` not empty). */
  violations(): RecordedRequest[];
  /** Current faults (a copy). */
  faults(): Faults;
  /** Replaces the faults; counters (`next5xx`, `next429`) count down as they fire. @throws ZodError */
  setFaults(faults: Faults): void;
  /** Sets where webhooks go: the App's webhook URL and secret. */
  setWebhookTarget(target: WebhookTarget): void;
  /**
   * Sends a webhook to the target and records the delivery (`state.deliveries`), as GitHub does; a
   * delivery to an app that is down is recorded as failed (status 0 here), not thrown.
   * @throws Error when no target is set.
   */
  deliver(name: string, payload: Record<string, unknown>, guid?: string): Promise<DeliveryResult>;
  /** Writes (POST/PATCH/PUT/DELETE, GraphQL mutations) accepted for an installation. */
  writes(installationId: number): number;
  close(): Promise<void>;
}

const JWT = /^[\w-]+\.[\w-]+\.[\w-]*$/;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, reply: RouteReply): void {
  const headers: Record<string, string> = {
    "x-github-media-type": "github.v3; format=json",
    "x-github-request-id": randomUUID(),
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "4999",
    "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
    ...reply.headers,
  };
  if (reply.raw !== undefined) {
    res.writeHead(reply.status, {
      ...headers,
      "content-type": reply.contentType ?? "text/plain; charset=utf-8",
    });
    res.end(reply.raw);
    return;
  }
  const payload = reply.body === undefined ? "" : JSON.stringify(reply.body);
  res.writeHead(reply.status, { ...headers, "content-type": "application/json; charset=utf-8" });
  res.end(payload);
}

/**
 * Starts a local stand-in of the GitHub REST and GraphQL APIs on `node:http` (127.0.0.1, port 0 by default).
 *
 * Each request is matched against GitHub's OpenAPI description (`fixtures/openapi/github-subset.json`):
 * unknown routes answer 404; path/query parameters and JSON bodies are validated with ajv and a failing
 * request answers 422 (`{ message: "Invalid request.\n\n…" }`) as GitHub does; both are recorded in
 * `requests` with `openapiErrors` and returned by `violations()`.
 *
 * Auth (docs: "Authenticating as a GitHub App installation"): `/app/*` routes take any `Bearer` JWT
 * (401 without); `POST /app/installations/{id}/access_tokens` issues a `ghs_…` token valid 1 hour for that
 * installation; other routes take `token ghs_…`/`Bearer ghs_…` (401 "Bad credentials" for unknown tokens)
 * and see only that installation's repositories (404 otherwise, as GitHub hides them). Unauthenticated
 * reads of public repositories are allowed.
 *
 * Primary rate limit (`limits.primary`): each request made with an installation's token counts in its window;
 * every answer carries `x-ratelimit-limit`, `-remaining`, `-used`, `-reset` and `-resource`, and a request over
 * the limit answers 403 "API rate limit exceeded".
 *
 * Order: route → faults (latency, 429, 5xx) → auth → primary rate limit → OpenAPI validation → secondary rate
 * limit → handler.
 * @throws ZodError for invalid options.
 */
export async function startGitHubStandIn(options: GitHubStandInOptions = {}): Promise<GitHubStandIn> {
  const opts = GitHubStandInOptions.parse(options);
  const state = opts.state ?? new StandInState();
  const validator = new OpenApiValidator(opts.subset);
  const limiter = new ContentCreationLimiter(opts.limits.contentCreation);
  const primary = new PrimaryLimiter(opts.limits.primary);
  const graphqlPoints = new GraphqlPoints(opts.limits.graphql);
  const requests: RecordedRequest[] = [];
  let faults: Faults = { ...opts.faults };
  let baseUrl = "";

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const url = new URL(req.url ?? "/", baseUrl);
    const method = (req.method ?? "GET").toUpperCase();
    let prefix = "";
    let path = url.pathname;
    if (path === "/api/graphql") {
      prefix = "/api";
      path = "/graphql";
    } else if (path.startsWith("/api/v3/") || path === "/api/v3") {
      prefix = "/api/v3";
      path = path.slice(prefix.length) || "/";
    }
    if (path.length > 1) path = path.replace(/\/+$/, "");
    const query = Object.fromEntries(url.searchParams.entries());
    const text = await readBody(req);
    let body: unknown = undefined;
    let badJson = false;
    if (text.trim() !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        badJson = true;
      }
    }
    const match = validator.match(method, path);
    const record: RecordedRequest = {
      method,
      path,
      route: match?.compiled.op.path ?? null,
      operationId: match?.compiled.op.operationId ?? null,
      query,
      body,
      status: 0,
      at,
      openapiErrors: [],
    };
    requests.push(record);
    let rateHeaders: Record<string, string> = {};
    const reply = (r: RouteReply): void => {
      record.status = r.status;
      send(res, { ...r, headers: { ...rateHeaders, ...r.headers } });
    };
    if (match === undefined) {
      record.openapiErrors.push(`unknown route: ${method} ${path} is not an operation the stand-in knows`);
      return reply(notFoundReply());
    }
    const op = match.compiled.op;

    // ---- faults
    const hit = faults.route === undefined || faults.route.test(path);
    if (hit && (faults.latencyMs ?? 0) > 0) await sleep(faults.latencyMs);
    if (hit && (faults.next429 ?? 0) > 0) {
      faults = { ...faults, next429: (faults.next429 ?? 1) - 1 };
      return reply(
        new HttpError(429, "API rate limit exceeded (injected by the GitHub stand-in).", undefined, {
          "retry-after": "1",
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000) + 1),
        }).toReply(),
      );
    }
    if (hit && (faults.next5xx ?? 0) > 0) {
      faults = { ...faults, next5xx: (faults.next5xx ?? 1) - 1 };
      return reply(
        new HttpError(faults.status ?? 502, "Server Error (injected by the GitHub stand-in)").toReply(),
      );
    }

    // ---- auth
    const auth = /^(?:token|bearer)\s+(\S+)$/i.exec(String(req.headers["authorization"] ?? "").trim())?.[1];
    let installationId: number | undefined;
    let user: string | undefined;
    const isAppRoute = op.path.startsWith("/app/") || op.path === "/app";
    if (isAppRoute) {
      if (auth === undefined || !JWT.test(auth)) {
        return reply(new HttpError(401, "A JSON web token could not be decoded").toReply());
      }
      if (op.operationId === "apps/create-installation-access-token") {
        const id = Number(match.params["installation_id"]);
        if (Number.isInteger(id)) installationId = id;
      }
    } else if (auth !== undefined) {
      installationId = state.tokenInstallation(auth);
      user = installationId === undefined ? state.oauth.tokenUser(auth) : undefined;
      if (installationId === undefined && user === undefined)
        return reply(new HttpError(401, "Bad credentials").toReply());
    } else if (op.operationId === "graphql" || op.path === "/installation/repositories") {
      return reply(new HttpError(401, "Requires authentication").toReply());
    }
    if (installationId !== undefined) record.installationId = installationId;

    // ---- primary rate limit (requests made with an installation's token)
    // GraphQL has its own budget in points (graphql.ts), apart from the REST requests counted here
    const rate = primary.take(
      isAppRoute || op.operationId === "graphql" ? undefined : installationId,
      Date.now(),
    );
    rateHeaders = rate.headers;
    if (rate.over) {
      return reply(
        new HttpError(403, `API rate limit exceeded for installation ID ${installationId}.`).toReply(),
      );
    }

    // ---- OpenAPI validation
    if (badJson) {
      record.openapiErrors.push("body is not valid JSON");
      return reply(new HttpError(400, "Problems parsing JSON").toReply());
    }
    const paramErrors = validator.validateParameters(match.compiled, match.params, query);
    const bodyErrors = validator.validateBody(match.compiled, body);
    if (paramErrors.length + bodyErrors.length > 0) {
      record.openapiErrors.push(...paramErrors, ...bodyErrors);
      const pathNames = op.parameters.filter((p) => p.in === "path").map((p) => p.name);
      const onPath = paramErrors.some((e) => pathNames.some((n) => e.startsWith(`parameters/${n} `)));
      return reply(
        onPath
          ? notFoundReply()
          : new HttpError(422, `Invalid request.\n\n${[...paramErrors, ...bodyErrors].join("\n")}`).toReply(),
      );
    }

    // ---- secondary rate limit (content creation)
    const graphqlMutation =
      op.operationId === "graphql" && /^\s*mutation\b/.test(GraphqlBody.safeParse(body).data?.query ?? "");
    const isWrite = !isAppRoute && (graphqlMutation || (op.operationId !== "graphql" && method !== "GET"));
    if (isWrite && installationId !== undefined) {
      const taken = limiter.take(installationId, Date.now());
      if (!taken.ok) {
        return reply(
          new HttpError(403, SECONDARY_RATE_LIMIT_MESSAGE, undefined, {
            "retry-after": String(taken.retryAfterSeconds),
          }).toReply(),
        );
      }
      state.countWrite(installationId);
    }

    // ---- handler
    const ctx: RouteContext = {
      method,
      path,
      params: match.params,
      query,
      body,
      headers: req.headers,
      apiBase: `${baseUrl}${prefix === "/api" ? "/api/v3" : prefix}`,
      origin: baseUrl,
      installationId,
      user,
      state,
    };
    try {
      if (op.operationId === "graphql") {
        const result = handleGraphql(ctx, GraphqlBody.parse(body), graphqlPoints);
        if (result.unsupported !== undefined) record.openapiErrors.push(result.unsupported);
        if (result.cost !== undefined) record.graphqlCost = result.cost;
        return reply(result.reply);
      }
      const handler =
        ROUTES[op.operationId] ??
        CODE_SCANNING_ROUTES[op.operationId] ??
        DELIVERY_ROUTES[op.operationId] ??
        TEAM_ROUTES[op.operationId] ??
        CONTENTS_ROUTES[op.operationId] ??
        OAUTH_ROUTES[op.operationId];
      if (handler === undefined) {
        record.openapiErrors.push(`stand-in has no handler for ${op.operationId}`);
        return reply(
          new HttpError(501, `Not implemented by the GitHub stand-in: ${op.operationId}`).toReply(),
        );
      }
      const r = handler(ctx);
      return reply({ ...r, status: r.status });
    } catch (error) {
      if (error instanceof HttpError) {
        if (error.status === 422)
          record.openapiErrors.push(`${error.message} ${JSON.stringify(error.errors ?? [])}`);
        return reply(error.toReply());
      }
      record.openapiErrors.push(`stand-in error: ${error instanceof Error ? error.message : String(error)}`);
      return reply(new HttpError(500, "Internal error in the GitHub stand-in").toReply());
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, new HttpError(500, `stand-in: ${String(error)}`).toReply());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = `${opts.host}:${address.port}`;
  baseUrl = `http://${host}`;
  return {
    url: baseUrl,
    host,
    state,
    requests,
    violations: () => requests.filter((r) => r.openapiErrors.length > 0),
    faults: () => ({ ...faults }),
    setFaults: (next) => {
      faults = Faults.parse(next);
    },
    writes: (id) => state.writes(id),
    setWebhookTarget: (target) => {
      state.deliveries.target = { ...target };
    },
    deliver: (name, payload, guid) => state.deliveries.deliver(name, payload, guid ? { guid } : {}),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function notFoundReply(): RouteReply {
  return new HttpError(404, "Not Found").toReply();
}
