/**
 * Regression tests of "no secrets in logs": every log line redacts URL userinfo and known
 * secret fields (src/runtime/logger.ts); the start-up line prints no REDIS_URL or SCANNER_API_URL password; a YAML
 * error in the tokens file never carries the offending line (a token) into the exception or the reload log;
 * an emptied or invalid tokens file on reload keeps the last good one, warns and bumps a metric; and no check
 * run or comment carries a token.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devPrivateKey, startHarness, type Harness } from "../../dev/harness/harness.js";
import { startSandbox, type Sandbox } from "../../dev/sandbox/index.js";
import { createLogger, redactText } from "../../src/runtime/logger.js";
import { readTokensFile, watchTokensFile } from "../../src/tenants/tokens-file.js";
import { freePort } from "../support/redis-server.js";
import { checkRuns, completedRun, openPull, sha } from "../support/pr.js";

/** A logger writing into `lines` (one JSON line per entry). */
function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  return { log: createLogger({ level: "debug", name: "test" }, sink), text: () => lines.join("\n"), lines };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

describe("the redacting logger", () => {
  it("redacts URL userinfo in messages, fields, nested objects, child bindings and errors", async () => {
    const { log, text } = capture();
    const child = log.child({ redis: "redis://:pw-bind-1@cache:6379", job: 7 });
    child.info(
      { url: "https://user:pw-field-2@scanner.example/api/v1", nested: { list: ["redis://u:pw-deep-3@h"] } },
      "connecting to %s",
      "redis://:pw-arg-4@h:1",
    );
    child.error(
      { err: new Error("connect ECONNREFUSED redis://:pw-err-5@10.0.0.1:6379") },
      "Redis connection error",
    );
    child.warn(new Error("fetch https://ghs_tokenAsUser6@github.example/x failed"));
    log.info("message with https://u:pw-msg-7@example.test only");
    await tick();
    for (const secret of [
      "pw-bind-1",
      "pw-field-2",
      "pw-deep-3",
      "pw-arg-4",
      "pw-err-5",
      "ghs_tokenAsUser6",
      "pw-msg-7",
    ])
      expect(text()).not.toContain(secret);
    expect(text()).toContain("redis://[redacted]@cache:6379");
    expect(text()).toContain("https://[redacted]@scanner.example/api/v1");
    expect(text()).toContain('"job":7');
  });

  it("an error logged as { err } keeps its class, stack, cause and fields, with URL credentials redacted", async () => {
    class UpstreamError extends Error {
      readonly status = 502;
    }
    const { log, lines } = capture();
    const cause = new Error("connect ECONNRESET https://ghs_causeToken8@github.example/repos");
    const err = new UpstreamError("fetch https://ghs_msgToken9@github.example/x failed", { cause });
    log.child({ job: 3 }).warn({ err }, "GitHub write failed");
    await tick();
    const record = JSON.parse(lines.at(-1)!) as { msg: string; err: Record<string, unknown> };
    expect(record.msg).toBe("GitHub write failed");
    expect(record.err.type).toBe("UpstreamError");
    expect(record.err.status).toBe(502);
    expect(record.err.message).toBe(
      "fetch https://[redacted]@github.example/x failed: connect ECONNRESET https://[redacted]@github.example/repos",
    );
    const stack = String(record.err.stack);
    expect(stack).toMatch(/^Error: fetch https:\/\/\[redacted\]@github\.example\/x failed\n\s+at /);
    expect(stack).toContain("secrets.test.ts");
    expect(stack).toContain("caused by: Error: connect ECONNRESET https://[redacted]@github.example/repos");
    expect(lines.join("\n")).not.toMatch(/causeToken8|msgToken9/);
  });

  it("replaces known secret fields at any of the first three levels", async () => {
    const { log, text } = capture();
    log.info({
      token: "t-1",
      password: "p-2",
      privateKey: "-----BEGIN RSA PRIVATE KEY-----",
      config: { webhookSecret: "w-3", scannerToken: "s-4", headers: { authorization: "Bearer b-5" } },
      request: { headers: { authorization: "token b-6" } },
    });
    await tick();
    for (const secret of ["t-1", "p-2", "PRIVATE KEY", "w-3", "s-4", "b-5", "b-6"])
      expect(text()).not.toContain(secret);
    expect(text()).toContain('"token":"[redacted]"');
  });

  it("redactText leaves text without credentials as it is", () => {
    expect(redactText("https://scanner.example/api/v1?x=1")).toBe("https://scanner.example/api/v1?x=1");
    expect(redactText("user@example.com wrote")).toBe("user@example.com wrote");
    expect(redactText("a rediss://default:pw@r:6380/2 b")).toBe("a rediss://[redacted]@r:6380/2 b");
  });
});

describe("SCANNER_TOKENS_FILE errors carry no token", () => {
  const dir = mkdtempSync(join(tmpdir(), "dw-secrets-"));

  it("a YAML error names the file, code and position, never the line", () => {
    const file = join(dir, "bad.yml");
    writeFileSync(file, 'acme: tok-good-1\nbeta: "tok-unclosed-2\n');
    let message = "";
    try {
      readTokensFile(file);
    } catch (error) {
      message = `${(error as Error).message}\n${(error as Error).stack ?? ""}`;
    }
    expect(message).toMatch(/bad\.yml: not valid YAML \(MISSING_CHAR at line \d+, column \d+\)/);
    expect(message).not.toContain("tok-unclosed-2");
    expect(message).not.toContain("tok-good-1");
  });

  it("a reload of an invalid, emptied or truncated file keeps the last good tokens, warns and reports it", async () => {
    const file = join(dir, "tokens.yml");
    writeFileSync(file, "acme: tok-acme-1\nbeta: tok-beta-2\n");
    const { log, text, lines } = capture();
    const rejected: string[] = [];
    const w = watchTokensFile(file, log, 60_000, (reason) => rejected.push(reason));
    try {
      const good = { acme: "tok-acme-1", beta: "tok-beta-2" };
      expect(w.tokens()).toEqual(good);
      writeFileSync(file, "acme: tok-acme-3\n  beta: [tok-broken-4\n");
      w.reload();
      writeFileSync(file, "");
      w.reload();
      writeFileSync(file, "acme:\n"); // cut off after the key
      w.reload();
      writeFileSync(file, '{"acme": "tok-json-5", "be');
      w.reload();
      expect(w.tokens()).toEqual(good);
      expect(rejected).toEqual(["invalid", "empty", "invalid", "invalid"]);
      await tick();
      const warnings = lines.map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string });
      expect(
        warnings.filter((l) => l.msg === "scanner tokens file not usable: keeping the last good tokens"),
      ).toHaveLength(4);
      expect(warnings.every((l) => l.level <= 40)).toBe(true);
      for (const secret of ["tok-acme", "tok-beta", "tok-broken-4", "tok-json-5"])
        expect(text()).not.toContain(secret);
      writeFileSync(file, "acme: tok-acme-6\n");
      w.reload();
      expect(w.tokens()).toEqual({ acme: "tok-acme-6" });
    } finally {
      w.close();
    }
  });
});

describe("start-up with passworded URLs and a bad tokens file (the entry, src/index.ts)", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({});
  });
  afterAll(async () => sb?.close());

  it("no password or token reaches the output; reloads refused are counted in /metrics", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dw-start-"));
    const tokens = join(dir, "tokens.yml");
    writeFileSync(tokens, "acme: tok-start-77c\n");
    const port = await freePort();
    const redis = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
    const api = new URL(sb.url);
    const child = spawn(process.execPath, ["--import", "tsx", "src/index.ts"], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "/tmp",
        NODE_ENV: "production",
        APP_ID: "1",
        PRIVATE_KEY: devPrivateKey(),
        WEBHOOK_SECRET: "whs-secret-3c9",
        // the test Redis needs no password: ioredis warns and goes on, the password is still in the URL
        REDIS_URL: `redis://default:redis-pw-9f3@${redis.host}`,
        SCANNER_API_URL: `${api.protocol}//svc-user:svc-pw-4e1@${api.host}${api.pathname}`,
        SCANNER_TOKENS_FILE: tokens,
        METRICS_TOKEN: "metrics-tok-5d2",
        PORT: String(port),
        HOST: "127.0.0.1",
        DIFFWARD_ROLE: "web",
        LOG_LEVEL: "debug",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += String(d)));
    child.stderr.on("data", (d) => (out += String(d)));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const waitFor = async (ok: () => boolean, what: string) => {
      for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 100));
      if (!ok()) throw new Error(`timed out waiting for ${what}; output:\n${out}`);
    };
    try {
      await waitFor(() => out.includes('"msg":"webhooks at POST'), "the web server");
      // A YAML error whose line holds a token, then an emptied file: both refused on reload.
      writeFileSync(tokens, "acme: tok-start-77c\nbeta: [tok-yaml-31a\n");
      await waitFor(
        () => (out.match(/keeping the last good tokens/g) ?? []).length >= 1,
        "the first refused reload",
      );
      writeFileSync(tokens, "");
      await waitFor(
        () => (out.match(/keeping the last good tokens/g) ?? []).length >= 2,
        "the second refused reload",
      );
      const metrics = await (
        await fetch(`http://127.0.0.1:${port}/metrics`, {
          headers: { authorization: "Bearer metrics-tok-5d2" },
        })
      ).text();
      expect(metrics).toContain('diffward_tokens_file_rejected_total{reason="invalid"} 1');
      expect(metrics).toContain('diffward_tokens_file_rejected_total{reason="empty"} 1');
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
    expect(out).toContain('"msg":"starting"');
    expect(out).toContain(`redis://[redacted]@${redis.host}`);
    expect(out).toContain(`//[redacted]@${api.host}`);
    for (const secret of [
      "redis-pw-9f3",
      "svc-pw-4e1",
      "tok-start-77c",
      "tok-yaml-31a",
      "metrics-tok-5d2",
      "whs-secret-3c9",
      "PRIVATE KEY",
    ])
      expect(out, secret).not.toContain(secret);
  }, 90_000);
});

describe("check runs and comments never carry a token", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 800, retryAfterSeconds: 1 } });
  });
  afterAll(async () => h?.close());

  it("neither in a full report nor when the service refuses the token", async () => {
    const ok = await openPull(h, { head: sha(0x9101), repo: "secrets-report" });
    await completedRun(h, ok.owner, ok.repo, sha(0x9101));
    h.sandbox.state.revokeToken("sandbox-token");
    const refused = await openPull(h, { head: sha(0x9102), repo: "secrets-refused" });
    const run = await completedRun(h, refused.owner, refused.repo, sha(0x9102));
    expect(run.conclusion).not.toBe("success");
    const written = JSON.stringify([
      ...["secrets-report", "secrets-refused"].flatMap((repo) => [
        checkRuns(h, ok.owner, repo),
        h.github.state.reviews(ok.owner, repo),
        h.github.state.reviewComments(ok.owner, repo),
        h.github.state.issueComments(ok.owner, repo),
      ]),
    ]);
    expect(written.length).toBeGreaterThan(1_000);
    expect(written).not.toContain("sandbox-token");
    expect(written).not.toMatch(/ghs_[A-Za-z0-9]{8,}/);
    expect(written).not.toContain(h.webhookSecret);
  });
});
