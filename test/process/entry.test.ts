import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/redis-server.js";
import { startEntry as start } from "../support/entry.js";
import { devPrivateKey } from "../../dev/harness/harness.js";
import { startSandbox, type Sandbox } from "../../dev/sandbox/index.js";

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

describe("the entry point (npm start)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({});
  });
  afterAll(async () => sb?.close());

  it("names every missing variable in one clear error and exits 1", async () => {
    const p = start({ NODE_ENV: "production" });
    expect(await p.exited).toBe(1);
    for (const v of ["APP_ID", "PRIVATE_KEY", "WEBHOOK_SECRET", "SCANNER_API_URL"])
      expect(p.output()).toContain(v);
  });

  it("refuses to start the page's sign-in in production without DIFFWARD_SESSION_SECRET, saying so", async () => {
    const p = start({
      NODE_ENV: "production",
      GITHUB_CLIENT_ID: "Iv23liexample",
      GITHUB_CLIENT_SECRET: "cs_secret_value",
    });
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain("DIFFWARD_SESSION_SECRET: is required in production when GITHUB_CLIENT_ID");
    expect(p.output()).not.toContain("cs_secret_value");
  });

  it("refuses to start the page's sign-in without DIFFWARD_PUBLIC_URL, naming it and why", async () => {
    const p = start({
      GITHUB_CLIENT_ID: "Iv23liexample",
      GITHUB_CLIENT_SECRET: "cs_secret_value",
    });
    // a process that starts anyway (Probot's setup flow, without APP_ID) is ended, not left running
    const code = await Promise.race([p.exited, new Promise((r) => setTimeout(() => r("running"), 30_000))]);
    if (code === "running") p.child.kill("SIGKILL");
    expect(code).toBe(1);
    expect(p.output()).toContain(
      "DIFFWARD_PUBLIC_URL: is required when GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET are set",
    );
    expect(p.output()).not.toContain("cs_secret_value");
  });

  it("--version prints package.json's version and exits 0, with no environment at all", async () => {
    const p = start({}, ["--version"]);
    expect(await p.exited).toBe(0);
    expect(p.output().trim()).toBe(PACKAGE_VERSION);
  });

  it("DIFFWARD_ROLE=worker answers the probes on METRICS_PORT (workers running), /metrics behind its token, its settings from the environment", async () => {
    const port = await freePort();
    const p = start({
      NODE_ENV: "production",
      APP_ID: "1",
      PRIVATE_KEY: devPrivateKey(),
      WEBHOOK_SECRET: "s3cret",
      SCANNER_API_URL: sb.url,
      SCANNER_TOKEN: "sandbox-token",
      METRICS_PORT: String(port),
      METRICS_TOKEN: "scrape",
      HOST: "127.0.0.1",
      DIFFWARD_ROLE: "worker",
      LOG_LEVEL: "info",
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      DIFFWARD_SERVICE_OUTAGE_MAX_WAIT: "5",
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      let health: { status?: string; workers?: { running: number; total: number } } | undefined;
      // a tsx start takes seconds on a loaded machine: allow 30 s for the workers to be running
      for (
        let i = 0;
        i < 300 && !(health?.workers?.total && health.workers.running === health.workers.total);
        i++
      ) {
        health = await fetch(`${base}/healthz`)
          .then((r) => r.json() as Promise<typeof health>)
          .catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(health).toMatchObject({ status: "ok", version: PACKAGE_VERSION, redis: "ok" });
      expect(health!.workers!.total).toBeGreaterThan(0);
      expect(health!.workers!.running).toBe(health!.workers!.total);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      // the probes need no token; the metrics do
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      const metrics = await fetch(`${base}/metrics`, { headers: { authorization: "Bearer scrape" } });
      expect(await metrics.text()).toContain(`diffward_build_info{version="${PACKAGE_VERSION}"`);
      expect((await fetch(`${base}/api/github/webhooks`, { method: "POST", body: "{}" })).status).toBe(404);
    } finally {
      p.child.kill("SIGTERM");
    }
    expect(await p.exited).toBe(0);
    expect(p.output()).toContain("queue workers started");
    // the variable in its unit (minutes), the setting the process runs with in ms
    const starting = p
      .output()
      .split("\n")
      .find((l) => l.includes('"msg":"starting"'));
    expect(JSON.parse(starting!)).toMatchObject({
      settings: { serviceOutageMaxWaitMs: 5 * 60_000, redeliveryIntervalMs: 300_000 },
    });
  }, 60_000);

  it("DIFFWARD_ROLE=web serves /readyz and /healthz, and SIGTERM shuts down cleanly", async () => {
    const port = await freePort();
    const p = start({
      NODE_ENV: "production",
      APP_ID: "1",
      PRIVATE_KEY: devPrivateKey(),
      WEBHOOK_SECRET: "s3cret",
      SCANNER_API_URL: sb.url,
      SCANNER_TOKEN: "sandbox-token",
      PORT: String(port),
      HOST: "127.0.0.1",
      DIFFWARD_ROLE: "web",
      LOG_LEVEL: "info",
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      GITHUB_CLIENT_ID: "Iv23liexample",
      GITHUB_CLIENT_SECRET: "cs_secret_value",
      DIFFWARD_SESSION_SECRET: "session-secret-value-0123456789abcdef",
      DIFFWARD_PUBLIC_URL: "https://diffward.example.com",
      GHE_HOST: "github.example.com",
    });
    let ready: Response | undefined;
    // a tsx start takes seconds on a loaded machine: allow 30 s
    for (let i = 0; i < 300 && !ready?.ok; i++) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      if (!ready?.ok) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready?.status).toBe(200);
    const health = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
    expect(health).toMatchObject({ status: "ok", redis: "ok" });
    // an unsigned delivery is refused
    const unsigned = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "ping", "x-github-delivery": "x" },
      body: "{}",
    });
    expect(unsigned.status).toBeGreaterThanOrEqual(400);
    // the organization's page: sign in on GitHub Enterprise Server's web flow, cookies Secure in production
    const page = await fetch(`http://127.0.0.1:${port}/installations/`, { redirect: "manual" });
    expect(page.status).toBe(302);
    const location = new URL(page.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe("https://github.example.com/login/oauth/authorize");
    expect(location.searchParams.get("client_id")).toBe("Iv23liexample");
    // the callback URL is the configured public URL's, not the request's Host (127.0.0.1:<port>)
    expect(location.searchParams.get("redirect_uri")).toBe("https://diffward.example.com/login/callback");
    expect(page.headers.get("set-cookie")).toMatch(/; HttpOnly; Secure; SameSite=Lax/);
    p.child.kill("SIGTERM");
    expect(await p.exited).toBe(0);
    expect(p.output()).toContain("shutting down");
    expect(p.output()).not.toContain("sandbox-token");
    expect(p.output()).not.toContain("cs_secret_value");
    expect(p.output()).not.toContain("session-secret-value");
  }, 60_000);
});
