import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { connect, type Socket } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./support/redis-server.js";
import { devPrivateKey } from "../dev/harness/harness.js";
import { startGitHubStandIn, type GitHubStandIn } from "../dev/github-standin/index.js";
import { startSandbox, type Sandbox } from "../dev/sandbox/index.js";
import { propertyOptions, propertyTimeout } from "./support/property.js";

/**
 * The webhook intake against the real server process (`src/index.ts`, DIFFWARD_ROLE=all, so a crash would
 * take the workers down too): malformed requests of every kind, sent over raw sockets, must leave the
 * process alive and answering.
 */

const SECRET = "intake-secret";
const PATH = "/api/github/webhooks";
const WELL_FORMED_SIGNATURE = `sha256=${"ab".repeat(32)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One malformed (or slow) request, as the raw bytes a client sends and what it does to the connection. */
type Intake =
  | { kind: "aborted"; declared: number; sent: number; reset: boolean }
  | { kind: "slow"; chunks: number; delayMs: number }
  | { kind: "short-body"; declared: number; sent: number }
  | { kind: "long-body"; declared: number; extra: string }
  | { kind: "bad-header"; name: string; value: string }
  | { kind: "huge-header"; bytes: number }
  | { kind: "bad-chunked"; chunk: string }
  | { kind: "garbage"; bytes: string };

const intake: fc.Arbitrary<Intake> = fc.oneof(
  fc.record({
    kind: fc.constant("aborted" as const),
    declared: fc.integer({ min: 10, max: 2_000_000 }),
    sent: fc.integer({ min: 0, max: 5_000 }),
    reset: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("slow" as const),
    chunks: fc.integer({ min: 2, max: 5 }),
    delayMs: fc.integer({ min: 5, max: 80 }),
  }),
  fc.record({
    kind: fc.constant("short-body" as const),
    declared: fc.integer({ min: 50, max: 500 }),
    sent: fc.integer({ min: 0, max: 49 }),
  }),
  fc.record({
    kind: fc.constant("long-body" as const),
    declared: fc.integer({ min: 0, max: 20 }),
    extra: fc.string({ minLength: 1, maxLength: 200 }),
  }),
  fc.record({
    kind: fc.constant("bad-header" as const),
    name: fc.constantFrom("x-github-event", "content-length", "x bad", "x-hub-signature-256", "transfer-encoding"),
    value: fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, "") + "\u0001\u007f"),
  }),
  fc.record({ kind: fc.constant("huge-header" as const), bytes: fc.integer({ min: 17_000, max: 200_000 }) }),
  fc.record({
    kind: fc.constant("bad-chunked" as const),
    chunk: fc.constantFrom("zz\r\nabc\r\n0\r\n\r\n", "5\r\nab", "ffffffffffffffff\r\n", "-1\r\n\r\n"),
  }),
  fc.record({ kind: fc.constant("garbage" as const), bytes: fc.string({ minLength: 1, maxLength: 300 }) }),
);

function head(port: number, extra: string[], contentLength?: number): string {
  return [
    `POST ${PATH} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    "Content-Type: application/json",
    "X-GitHub-Event: ping",
    "X-GitHub-Delivery: fuzz",
    `X-Hub-Signature-256: ${WELL_FORMED_SIGNATURE}`,
    ...(contentLength === undefined ? [] : [`Content-Length: ${contentLength}`]),
    ...extra,
    "",
    "",
  ].join("\r\n");
}

/** Sends one intake case; resolves when the server closed the connection or after `waitMs`. */
async function send(port: number, c: Intake, waitMs = 1_500): Promise<void> {
  const socket: Socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  socket.on("data", () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("error", reject);
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const write = (s: string) => new Promise<void>((r) => socket.write(s, () => r()));
  switch (c.kind) {
    case "aborted":
      await write(head(port, [], c.declared) + "{".padEnd(Math.min(c.sent, c.declared - 1), " "));
      await sleep(20);
      if (c.reset) socket.resetAndDestroy();
      else socket.destroy();
      return closed;
    case "slow": {
      const body = '{"zen":"slow"}';
      await write(head(port, [], body.length));
      const step = Math.ceil(body.length / c.chunks);
      for (let i = 0; i < body.length; i += step) {
        await write(body.slice(i, i + step));
        await sleep(c.delayMs);
      }
      break;
    }
    case "short-body":
      await write(head(port, [], c.declared) + "x".repeat(c.sent));
      socket.end();
      break;
    case "long-body":
      await write(head(port, [], c.declared) + "{".repeat(c.declared) + c.extra);
      break;
    case "bad-header":
      await write(head(port, [`${c.name}: ${c.value}`], 2) + "{}");
      break;
    case "huge-header":
      await write(head(port, [`X-Filler: ${"a".repeat(c.bytes)}`], 2) + "{}");
      break;
    case "bad-chunked":
      await write(head(port, ["Transfer-Encoding: chunked"]) + c.chunk);
      break;
    case "garbage":
      await write(c.bytes + "\r\n\r\n");
      break;
  }
  await Promise.race([closed, sleep(waitMs)]);
  socket.destroy();
}

describe("the webhook server survives every malformed request", () => {
  let sb: Sandbox;
  let github: GitHubStandIn;
  let port: number;
  let child: ReturnType<typeof spawn>;
  let output = "";
  let exitCode: number | null | undefined;

  beforeAll(async () => {
    sb = await startSandbox({});
    github = await startGitHubStandIn({});
    port = await freePort();
    child = spawn(process.execPath, ["--import", "tsx", "src/index.ts"], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        NODE_ENV: "production",
        APP_ID: "1",
        PRIVATE_KEY: devPrivateKey(),
        WEBHOOK_SECRET: SECRET,
        SCANNER_API_URL: sb.url,
        SCANNER_TOKEN: "sandbox-token",
        PORT: String(port),
        HOST: "127.0.0.1",
        DIFFWARD_ROLE: "all",
        METRICS_TOKEN: "metrics-token",
        LOG_LEVEL: "info",
        REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
        // GitHub is the local stand-in (GHES-style /api/v3): nothing leaves the machine
        GHE_HOST: new URL(github.url).host,
        GHE_PROTOCOL: "http",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d) => (output += String(d)));
    child.stderr!.on("data", (d) => (output += String(d)));
    child.on("exit", (code) => (exitCode = code));
    let ready: Response | undefined;
    for (let i = 0; i < 300 && !ready?.ok; i++) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      if (!ready?.ok) await sleep(100);
    }
    expect(ready?.status, output).toBe(200);
  }, 60_000);

  afterAll(async () => {
    if (exitCode === undefined) {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
    await sb?.close();
    await github?.close();
  });

  const alive = async () => {
    expect(exitCode, output).toBeUndefined();
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  };

  it("an upload aborted mid-body (connection reset) does not end the process", async () => {
    for (const reset of [true, false])
      await send(port, { kind: "aborted", declared: 10_000, sent: 100, reset });
    await sleep(200);
    await alive();
    expect(output).toContain("webhook request body could not be read");
  }, 30_000);


  it("fuzzed malformed requests (aborted, slow, wrong lengths, bad and huge headers) leave it alive and answering", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(intake, { minLength: 1, maxLength: 6 }), async (cases) => {
        await Promise.all(cases.map((c) => send(port, c)));
        await alive();
      }),
      propertyOptions(25),
    );
    // Still a working webhook endpoint: a correctly signed ping is taken.
    const body = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 });
    const res = await fetch(`http://127.0.0.1:${port}${PATH}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "ping",
        "x-github-delivery": "intake-fuzz-ping",
        "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`,
      },
      body,
    });
    expect(res.status).toBe(200);
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`, {
      headers: { authorization: "Bearer metrics-token" },
    });
    // None of these requests is a bug, so none ended as an unhandled rejection.
    expect(await metrics.text()).toMatch(/^diffward_unhandled_rejections_total 0$/m);
  }, propertyTimeout(240_000));

  it("after the fuzz, SIGTERM still drains and exits 0 within the close grace", async () => {
    await alive();
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((r) =>
      exitCode !== undefined ? r(exitCode) : child.once("exit", (c) => r(c)),
    );
    expect(code, output).toBe(0);
    expect(output).toContain("stopped");
  }, 30_000);
});
