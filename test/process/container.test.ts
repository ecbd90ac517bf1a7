import { spawn } from "node:child_process";
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoConfig, demoPullFiles } from "../../dev/harness/demo-repo.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { devPrivateKey } from "../../dev/harness/harness.js";
import {
  sendWebhook,
  seedFromPullRequestEvent,
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../dev/github-standin/index.js";
import { startSandbox, type Sandbox } from "../../dev/sandbox/index.js";
import { QUEUE_NAMES } from "../../src/runtime/names.js";
import type { Payload } from "../support/pr.js";
import { DEFAULT_QUEUE_PREFIX } from "../../src/runtime/connection.js";
import { freePort } from "../support/redis-server.js";
import { JOBS } from "../../src/job-catalogue/index.js";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** The Dockerfile's exec-form CMD and ENTRYPOINT, as arrays. */
function dockerfileInstruction(name: "CMD" | "ENTRYPOINT"): string[] {
  const line = readFileSync(join(ROOT, "Dockerfile"), "utf8")
    .split("\n")
    .filter((l) => l.startsWith(`${name} `))
    .at(-1);
  return JSON.parse(line!.slice(name.length + 1)) as string[];
}

/** Newest modification time (ms) of the files under `dir`. */
function newest(dir: string): number {
  return Math.max(
    ...readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => statSync(join(d.parentPath, d.name)).mtimeMs),
  );
}

/**
 * The container's command line, run outside Docker: `node dist/src/index.js` when the build is current (CI
 * builds before testing), else the same entry from source through tsx (a fresh clone without a build).
 */
function containerCommand(): { argv: string[]; built: boolean } {
  const [bin, script] = dockerfileInstruction("CMD");
  const built =
    existsSync(join(ROOT, script!)) && statSync(join(ROOT, script!)).mtimeMs >= newest(join(ROOT, "src"));
  return built
    ? { argv: [bin === "node" ? process.execPath : bin!, join(ROOT, script!)], built }
    : { argv: [process.execPath, "--import", TSX, join(ROOT, "src/index.ts")], built };
}

/** Starts the entry with exactly `env` (plus PATH and HOME) in `cwd`. */
function start(argv: string[], env: Record<string, string>, cwd = ROOT) {
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += String(d)));
  child.stderr.on("data", (d) => (out += String(d)));
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  return { child, exited, output: () => out };
}

async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const get = (url: string, init?: RequestInit) => fetch(url, init).catch(() => undefined);

describe("the container's process (Dockerfile)", () => {
  it("runs node itself under tini: node receives the signals, npm never is PID 1", () => {
    expect(dockerfileInstruction("ENTRYPOINT")).toEqual(["/usr/bin/tini", "--"]);
    expect(dockerfileInstruction("CMD")).toEqual(["node", "dist/src/index.js"]);
    expect(readFileSync(join(ROOT, "Dockerfile"), "utf8")).toMatch(
      /apt-get install -y --no-install-recommends tini/,
    );
  });
});

describe("from the setup flow's .env to the running App", () => {
  let dir: string;
  let sb: Sandbox;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "diffward-clone-"));
    for (const f of ["package.json", "app.yml"]) copyFileSync(join(ROOT, f), join(dir, f));
    sb = await startSandbox({});
  });
  afterAll(async () => {
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the setup flow writes .env; restarted with no exported variable, the real app serves /healthz", async () => {
    const entry = [process.execPath, "--import", TSX, join(ROOT, "src/index.ts")];
    // 1. No APP_ID: Probot's setup flow. Its import form stores the App's credentials in .env.
    const setupPort = await freePort();
    const setup = start(entry, { PORT: String(setupPort), NO_SMEE_SETUP: "true" }, dir);
    try {
      await waitFor("the setup flow", async () => (await get(`http://127.0.0.1:${setupPort}/probot`))?.ok);
      const pem = devPrivateKey();
      const imported = await fetch(`http://127.0.0.1:${setupPort}/probot/import`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ appId: "4242", pem, webhook_secret: "from-setup-flow" }),
      });
      expect(imported.status, setup.output()).toBe(200);
      expect(setup.output()).toContain("No APP_ID: starting Probot's GitHub App setup flow");
    } finally {
      setup.child.kill("SIGTERM");
      await setup.exited;
    }
    const written = readFileSync(join(dir, ".env"), "utf8");
    expect(written).toMatch(/^APP_ID=4242$/m);
    expect(written).toMatch(/^PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\\n/m);

    // 2. The README's next step: the service's URL and token (and here a free port and the test Redis) in .env.
    const port = await freePort();
    appendFileSync(
      join(dir, ".env"),
      `\nSCANNER_API_URL=${sb.url}\nSCANNER_TOKEN=sandbox-token\nREDIS_URL=${REDIS_URL}\nPORT=${port}\nHOST=127.0.0.1\nDIFFWARD_ROLE=web\n`,
    );

    // 3. Restart with nothing exported but PATH and HOME: the real app starts from .env.
    const app = start(entry, {}, dir);
    try {
      const health = await waitFor("/healthz", async () => {
        const r = await get(`http://127.0.0.1:${port}/healthz`);
        return r?.status === 200 ? r : undefined;
      });
      expect(await health.json()).toMatchObject({ status: "ok", redis: "ok" });
      expect(app.output()).not.toContain("setup flow");
      // the webhook secret from .env is the one checked: a delivery signed with it is accepted
      const ping = await sendWebhook({
        url: `http://127.0.0.1:${port}/api/github/webhooks`,
        secret: "from-setup-flow",
        name: "ping",
        payload: { zen: "Design for failure.", hook_id: 1 },
      });
      expect(ping.status).toBe(200);
    } finally {
      app.child.kill("SIGTERM");
      expect(await app.exited).toBe(0);
    }
    expect(app.output()).not.toContain("BEGIN RSA PRIVATE KEY");
  }, 120_000);
});

describe("SIGTERM to the container's command drains", () => {
  let sb: Sandbox;
  let gh: GitHubStandIn;
  const db = 1 + Math.floor(Math.random() * 15);
  const redisUrl = `${REDIS_URL.replace(/\/\d*$/, "")}/${db}`;
  beforeAll(async () => {
    sb = await startSandbox({ scenario: "demo", retryAfterSeconds: 1 });
    gh = await startGitHubStandIn({});
  });
  afterAll(async () => {
    await gh?.close();
    await sb?.close();
    const r = new Redis(redisUrl);
    for (const pattern of ["{diffward}:*", "{dw}:*"]) {
      const keys = await r.keys(pattern);
      if (keys.length) await r.del(...keys);
    }
    r.disconnect();
  });

  it("stops taking webhooks, lets the running job finish, then exits 0; /metrics needs METRICS_TOKEN", async () => {
    const { argv, built } = containerCommand();
    const port = await freePort();
    const secret = "container-secret";
    const p = start(argv, {
      NODE_ENV: "production",
      APP_ID: "1",
      PRIVATE_KEY: devPrivateKey(),
      WEBHOOK_SECRET: secret,
      GHE_HOST: gh.host,
      GHE_PROTOCOL: "http",
      SCANNER_API_URL: sb.url,
      SCANNER_TOKEN: "sandbox-token",
      REDIS_URL: redisUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      METRICS_TOKEN: "scrape-me",
      LOG_LEVEL: "info",
    });
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitFor("/readyz", async () => (await get(`${base}/readyz`))?.ok);
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: "Bearer scrape-me" } });
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain("diffward_");

      // A pull request whose check-run creation GitHub answers slowly: SIGTERM arrives mid-request.
      const payload: Payload = webhookExample("pull_request", "opened");
      payload.pull_request.head.sha = "e".repeat(40);
      seedFromPullRequestEvent(gh.state, payload, {
        files: demoPullFiles(),
        mergeBaseSha: "c".repeat(40),
        repoFiles: { [payload.repository.default_branch]: { ".github/diffward.yml": demoConfig() } },
      });
      gh.setFaults({ latencyMs: 3_000, route: /\/check-runs$/ });
      const sent = await sendWebhook({
        url: `${base}/api/github/webhooks`,
        secret,
        name: "pull_request",
        payload,
      });
      expect(sent.status).toBe(200);
      await waitFor("the check run request", () =>
        gh.requests.some((r) => r.method === "POST" && /\/check-runs$/.test(r.path)),
      );
      const signalledAt = Date.now();
      p.child.kill("SIGTERM");
      expect(await p.exited, p.output()).toBe(0);
      // it waited for GitHub's slow answer instead of dying mid-job
      expect(Date.now() - signalledAt).toBeGreaterThan(1_500);
      expect(p.output()).toContain("shutting down");
      expect(p.output()).toContain("stopped");
      expect(await get(`${base}/healthz`)).toBeUndefined();
    } finally {
      if (p.child.exitCode === null) p.child.kill("SIGKILL");
    }
    const events = new Queue(QUEUE_NAMES.events, {
      connection: new Redis(redisUrl),
      prefix: DEFAULT_QUEUE_PREFIX,
    });
    try {
      const ran = `ran ${built ? "dist/src/index.js" : "src/index.ts through tsx"}`;
      expect(await events.getJobCounts("active", "failed"), ran).toEqual({ active: 0, failed: 0 });
      const done = await events.getJobs(["completed"]);
      expect(
        done.map((j) => j.name),
        ran,
      ).toContain(JOBS.pullRequest.name);
    } finally {
      await events.close();
      (events.opts.connection as Redis).disconnect?.();
    }
  }, 120_000);
});
