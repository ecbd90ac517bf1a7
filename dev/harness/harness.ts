import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { boot, type Booted, type BootConfig } from "../../src/boot.js";
import { diffwardApp, handlerDeps } from "../../src/handlers/index.js";
import type { Settings } from "../../src/config/settings.js";
import { startSandbox, type Sandbox, type SandboxOptions } from "../sandbox/index.js";
import {
  seedFromPullRequestEvent,
  startGitHubStandIn,
  type GitHubStandIn,
  type DeliveryResult,
  type GitHubStandInOptions,
} from "../github-standin/index.js";
import { startWebServer, type WebServer } from "../../src/web.js";
import type { PageRoutes } from "../../src/web/routes.js";
import { createLogger } from "../../src/runtime/logger.js";
import { orgPageFor } from "../../src/web/org-page.js";
import { STANDIN_CLIENT, STANDIN_SESSION_SECRET, seedSignIn } from "./sign-in.js";

/** Options of {@link startHarness}. */
export interface HarnessOptions {
  redisUrl?: string;
  sandbox?: SandboxOptions;
  github?: GitHubStandInOptions;
  settings?: Partial<Settings>;
  /** start queue workers in this process (default true) */
  workers?: boolean;
  /**
   * start diffward's web server in this process (default true); `false` gives a {@link HeadlessHarness}:
   * webhooks then go to a web server of the caller's (e.g. the bench's web child process), signed with
   * `webhookSecret` against the same Redis `prefix`
   */
  web?: boolean;
  log?: Logger;
  boot?: Partial<BootConfig>;
  /**
   * serve the organization's page with sign-in through the stand-in's web flow (its OAuth client
   * {@link STANDIN_CLIENT}; add users with `github.state.oauth.addUser`); its public URL (`DIFFWARD_PUBLIC_URL`
   * in production, the callback URL's origin) is the web server's address, `web.url`
   */
  signIn?: boolean;
  /** with `signIn`: the admin bearer (`DIFFWARD_ADMIN_TOKEN`) whose page requests see the whole deployment */
  adminToken?: string;
}

/** The whole loop on one machine: service sandbox, GitHub stand-in, Redis, diffward web + workers. */
export interface Harness {
  sandbox: Sandbox;
  github: GitHubStandIn;
  booted: Booted;
  web: WebServer;
  webhookSecret: string;
  /** the Redis key prefix of this harness (BullMQ and diffward state) */
  prefix: string;
  /**
   * sends a signed webhook delivery to diffward through the GitHub stand-in, which records it in its
   * deliveries (`github.state.deliveries`); while the web server is stopped the delivery fails (status 0)
   */
  send(name: string, payload: Record<string, unknown>, id?: string): Promise<DeliveryResult>;
  /** stops diffward's web server (an outage of the webhook endpoint): deliveries fail until {@link startWeb} */
  stopWeb(): Promise<void>;
  /** starts diffward's web server again on the same port */
  startWeb(): Promise<void>;
  /** seeds the stand-in from a `pull_request` payload (installation, repository, pull request) */
  seed: typeof seedFromPullRequestEvent extends (s: never, ...rest: infer R) => infer T
    ? (...rest: R) => T
    : never;
  /** polls `predicate` every 50 ms until it returns a truthy value or `timeoutMs` passes */
  waitFor<T>(predicate: () => T | Promise<T>, timeoutMs?: number, what?: string): Promise<NonNullable<T>>;
  close(): Promise<void>;
}

/**
 * A harness started with `web: false`: no web server in this process, so no `web` and no `send` (post
 * deliveries with `sendWebhook` of the GitHub stand-in to your own web server, signed with `webhookSecret`).
 */
export type HeadlessHarness = Omit<Harness, "web" | "send" | "stopWeb" | "startWeb">;

/** An RSA key in PEM (PKCS#1, like the ones GitHub issues) for the App's JWTs against the stand-in. */
export function devPrivateKey(): string {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  }).privateKey;
}

/**
 * Starts the sandbox of the scanning service, the GitHub stand-in, and diffward (webhook server on a
 * free port unless `web: false`, and its queue workers unless `workers: false`) against a real Redis with a
 * fresh key prefix. Used by `npm run demo`, the end-to-end tests and the benchmark.
 */
export function startHarness(options: HarnessOptions & { web: false }): Promise<HeadlessHarness>;
export function startHarness(options?: HarnessOptions & { web?: true }): Promise<Harness>;
export async function startHarness(options: HarnessOptions = {}): Promise<Harness | HeadlessHarness> {
  const log = options.log ?? createLogger({ level: process.env.LOG_LEVEL ?? "silent" });
  // A hash tag (braces), so the harness also runs on a Redis Cluster (`boot.redisClusterNodes`): BullMQ's
  // and diffward's keys of one harness then share one slot.
  const prefix = `{dwh-${randomBytes(4).toString("hex")}}`;
  const sandbox = await startSandbox({ retryAfterSeconds: 1, scanDurationMs: 2_000, ...options.sandbox });
  const github = await startGitHubStandIn(options.github ?? {});
  const webhookSecret = randomBytes(16).toString("hex");
  const booted = boot({
    appId: 1,
    privateKey: devPrivateKey(),
    webhookSecret,
    githubBaseUrl: github.url,
    redisUrl: options.redisUrl ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    queuePrefix: prefix,
    statePrefix: prefix,
    scannerApiUrl: sandbox.url,
    scannerToken: "sandbox-token",
    log,
    settings: { firstPollDelayMs: 1_000, ...options.settings },
    ...options.boot,
  });
  if (options.signIn) seedSignIn(github, []);
  // the page's public URL (its callback URL's origin) is the web server's own, known once it listens
  let pages: PageRoutes | undefined;
  const serveWebhooks = (port: number) =>
    startWebServer({
      probot: booted.probot,
      app: diffwardApp(handlerDeps(booted.rt, log)),
      rt: booted.rt,
      port,
      ...(options.signIn ? { pages: (req, res) => pages?.(req, res) ?? Promise.resolve(false) } : {}),
    });
  let web = options.web === false ? undefined : await serveWebhooks(0);
  if (web && options.signIn)
    pages = orgPageFor(booted.rt, {
      ...STANDIN_CLIENT,
      sessionSecret: STANDIN_SESSION_SECRET,
      apiBaseUrl: github.url,
      githubUrl: github.url,
      secure: false,
      publicUrl: web.url,
      ...(options.adminToken !== undefined ? { adminToken: options.adminToken } : {}),
    });
  if (options.workers !== false) booted.startWorkers();
  const headless: HeadlessHarness = {
    sandbox,
    github,
    booted,
    webhookSecret,
    prefix,
    seed: (payload, extra) => seedFromPullRequestEvent(github.state, payload, extra),
    async waitFor(predicate, timeoutMs = 20_000, what = "condition") {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const v = await predicate();
        if (v) return v as NonNullable<typeof v>;
        if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      await web?.close();
      await booted.close().catch(() => undefined);
      await cleanRedis(
        options.boot?.redisClusterNodes ??
          options.redisUrl ??
          process.env.REDIS_URL ??
          "redis://127.0.0.1:6379",
        prefix,
      );
      await github.close();
      await sandbox.close();
    },
  };
  if (!web) return headless;
  const webhookUrl = `${web.url}/api/github/webhooks`;
  const port = Number(new URL(web.url).port);
  github.setWebhookTarget({ url: webhookUrl, secret: webhookSecret });
  let running = true;
  return {
    ...headless,
    get web() {
      return web!;
    },
    send: (name, payload, id) => github.deliver(name, payload, id ?? randomUUID()),
    async stopWeb() {
      if (running) await web!.close();
      running = false;
    },
    async startWeb() {
      if (!running) web = await serveWebhooks(port);
      running = true;
    },
    async close() {
      if (!running) web = undefined;
      await headless.close();
    },
  };
}

/** Deletes every key of a harness prefix (on each master of a cluster). */
async function cleanRedis(target: string | readonly string[], prefix: string): Promise<void> {
  const { Redis, Cluster } = await import("ioredis");
  const r =
    typeof target === "string"
      ? new Redis(target, { maxRetriesPerRequest: 1 })
      : new Cluster(target.map((n) => ({ host: n.split(":")[0]!, port: Number(n.split(":")[1]) })));
  try {
    const nodes = r instanceof Cluster ? r.nodes("master") : [r];
    for (const node of nodes) {
      let cursor = "0";
      do {
        const [next, keys] = await node.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
        cursor = next;
        // one slot (the prefix's hash tag), so one DEL may name them all
        if (keys.length) await node.del(...keys);
      } while (cursor !== "0");
    }
  } finally {
    r.disconnect();
  }
}
