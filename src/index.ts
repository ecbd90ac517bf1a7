#!/usr/bin/env node
// first: with tracing on, the OpenTelemetry SDK starts before anything else opens a server or a connection
import { tracing } from "./tracing.js";
import { run } from "probot";
import { boot, type Booted } from "./boot.js";
import { describeEnv, EnvError, loadDotEnv, loadEnv, type AppEnv } from "./config/env.js";
import { diffwardApp, handlerDeps } from "./handlers/index.js";
import { watchTokensFile, type TokensFileRejection } from "./tenants/tokens-file.js";
import { createLogger } from "./runtime/logger.js";
import { guardProcess } from "./runtime/metrics.js";
import { VERSION } from "./runtime/version.js";
import { startMetricsServer, startWebServer, type MetricsAccess, type WebServer } from "./web.js";
import { orgPageFor, type SignInConfig } from "./web/org-page.js";

/**
 * diffward's entry: reads `.env` from the working directory when there is one (variables already in the
 * environment win: Probot's setup flow writes `APP_ID`, `PRIVATE_KEY` and `WEBHOOK_SECRET` there),
 * validates the environment (one error listing every bad variable), then runs the roles of
 * `DIFFWARD_ROLE`: `web` (webhooks), `worker` (queue workers) or `all` (both, the default).
 * Outside production with no `APP_ID`, Probot's setup flow (from `app.yml`) runs instead.
 * SIGTERM/SIGINT: stop taking webhooks, let running jobs finish (BullMQ `worker.close()`), then exit.
 * `--version` prints diffward's version (package.json) and exits.
 */
async function main(): Promise<void> {
  if (process.argv.slice(2).includes("--version")) {
    console.log(VERSION);
    return;
  }
  const env = readEnv();
  if (env.setupMode) {
    console.log("No APP_ID: starting Probot's GitHub App setup flow (app.yml). Open the printed URL.");
    await run(() => undefined);
    return;
  }
  // Every line (Probot's and Octokit's too) goes through the redacting logger: no URL password, no token.
  const log = createLogger({ level: env.logLevel, name: "diffward" });
  log.info({ version: VERSION, node: process.version, ...describeEnv(env) }, "starting");
  let onTokensRejected = (_reason: TokensFileRejection): void => undefined;
  const tokensFile = env.scannerTokensFile
    ? watchTokensFile(env.scannerTokensFile, log, undefined, (reason) => onTokensRejected(reason))
    : undefined;
  const booted = bootFromEnv(env, log, tokensFile);
  onTokensRejected = (reason) => booted.metrics.tokensFileRejected.inc({ reason });
  guardProcess(log, booted.metrics);
  const { web, metricsServer } = await startServers(env, booted, log);
  if (env.role !== "web") {
    booted.startWorkers();
    log.info("queue workers started");
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: no new webhooks, letting running jobs finish");
    await web?.close();
    await metricsServer?.close();
    tokensFile?.close();
    await booted.close();
    await tracing?.shutdown().catch((err: unknown) => log.warn({ err }, "exporting the last spans failed"));
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

/** The environment, `.env` read first; an invalid one prints every problem and exits 1. */
function readEnv(): AppEnv {
  try {
    loadDotEnv();
    return loadEnv();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

/** Boots the runtime from the environment (settings, Redis, the service, GitHub Enterprise's API). */
function bootFromEnv(
  env: Extract<AppEnv, { setupMode: false }>,
  log: ReturnType<typeof createLogger>,
  tokensFile: ReturnType<typeof watchTokensFile> | undefined,
): Booted {
  return boot({
    appId: env.appId,
    privateKey: env.privateKey,
    webhookSecret: env.webhookSecret,
    ...(env.gheHost ? { githubBaseUrl: `${env.gheProtocol}://${env.gheHost}/api/v3` } : {}),
    redisUrl: env.redisUrl,
    ...(env.redisClusterNodes ? { redisClusterNodes: env.redisClusterNodes } : {}),
    scannerApiUrl: env.scannerApiUrl,
    ...(env.scannerToken ? { scannerToken: env.scannerToken } : {}),
    ...(tokensFile ? { scannerTokens: tokensFile.tokens } : {}),
    settings: env.settings,
    concurrency: { scans: env.workerConcurrency },
    // after a Redis flush or a long outage, rebuild in-flight scans from GitHub's check runs
    reconcileOnStart: true,
    // events GitHub could not deliver while no process ran are redelivered (GitHub never does on its own)
    recoverDeliveries: true,
    log,
  });
}

/**
 * The organization's page's sign-in, from the environment: the App's OAuth client, the page's public origin
 * (`DIFFWARD_PUBLIC_URL`, which `loadEnv` requires with the client), GitHub's API and web addresses
 * (`GHE_HOST` on GitHub Enterprise Server), HTTPS in production.
 */
function signInConfig(
  env: Extract<AppEnv, { setupMode: false }>,
  client: Pick<SignInConfig, "clientId" | "clientSecret" | "publicUrl">,
): SignInConfig {
  const web = env.gheHost ? `${env.gheProtocol}://${env.gheHost}` : "https://github.com";
  return {
    ...client,
    ...(env.diffwardAdminToken ? { adminToken: env.diffwardAdminToken } : {}),
    sessionSecret: env.diffwardSessionSecret,
    apiBaseUrl: env.gheHost ? `${web}/api/v3` : "https://api.github.com",
    githubUrl: web,
    secure: env.isProduction,
  };
}

/**
 * Starts the webhook server (unless the role is `worker`) and the metrics server (with METRICS_PORT).
 * /metrics: on its own port (METRICS_PORT), or on the webhook port behind METRICS_TOKEN; in production
 * never open on the public webhook port.
 */
async function startServers(
  env: Extract<AppEnv, { setupMode: false }>,
  booted: Booted,
  log: ReturnType<typeof createLogger>,
): Promise<{ web: WebServer | undefined; metricsServer: WebServer | undefined }> {
  const metricsAccess: MetricsAccess =
    env.metricsPort !== undefined
      ? "off"
      : env.metricsToken
        ? { token: env.metricsToken }
        : env.isProduction
          ? "off"
          : "open";
  const web =
    env.role === "worker"
      ? undefined
      : await startWebServer({
          probot: booted.probot,
          app: diffwardApp(handlerDeps(booted.rt, log)),
          rt: booted.rt,
          port: env.port,
          host: env.host ?? "0.0.0.0",
          metrics: metricsAccess,
          ...(env.githubClientId && env.githubClientSecret && env.diffwardPublicUrl
            ? {
                pages: orgPageFor(
                  booted.rt,
                  signInConfig(env, {
                    clientId: env.githubClientId,
                    clientSecret: env.githubClientSecret,
                    publicUrl: env.diffwardPublicUrl,
                  }),
                ),
              }
            : {}),
          ...(env.diffwardAdminToken
            ? { audit: { token: env.diffwardAdminToken, trail: booted.rt.stores.audit } }
            : {}),
        });
  if (web) log.info({ url: web.url }, "webhooks at POST /api/github/webhooks");
  if (web && env.githubClientId && env.diffwardPublicUrl)
    log.info(
      { url: `${env.diffwardPublicUrl}/installations/`, listening: web.url },
      "the organization's page",
    );
  const metricsServer =
    env.metricsPort !== undefined
      ? await startMetricsServer({
          rt: { log, metrics: booted.metrics, redis: booted.rt.redis },
          workers: () => booted.workers,
          port: env.metricsPort,
          host: env.host ?? "0.0.0.0",
          ...(env.metricsToken ? { token: env.metricsToken } : {}),
        })
      : undefined;
  if (metricsServer)
    log.info({ url: metricsServer.url }, "metrics at GET /metrics, probes at /healthz and /readyz");
  else if (web && metricsAccess === "off")
    log.warn("GET /metrics is not served: set METRICS_TOKEN (bearer) or METRICS_PORT (a port of its own)");
  if (env.webhookProxyUrl && !env.isProduction && web)
    log.info(
      { proxy: env.webhookProxyUrl },
      "WEBHOOK_PROXY_URL is set: forward GitHub's deliveries here with `npm run proxy` in another terminal",
    );
  return { web, metricsServer };
}

await main();
