import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, expectTypeOf, it } from "vitest";
import fc from "fast-check";
import {
  ENV_VARIABLES,
  EnvError,
  ProcessEnv,
  SECRET_VARIABLES,
  describeEnv,
  envKey,
  loadDotEnv,
  loadEnv,
  type AppEnv,
  type EnvName,
} from "../../src/config/env.js";
import { DEFAULT_SETTINGS, SETTING_VARIABLES } from "../../src/config/settings.js";
import { propertyOptions } from "../support/property.js";

const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs8",
  format: "pem",
}) as string;
const dir = mkdtempSync(join(tmpdir(), "diffward-env-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROD = {
  NODE_ENV: "production",
  APP_ID: "123456",
  PRIVATE_KEY: pem,
  WEBHOOK_SECRET: "whsec-abc",
  SCANNER_API_URL: "https://scanner.example.com/api/v1",
  SCANNER_TOKEN: "sc_live_TOKEN_0123456789",
};

function envError(env: Record<string, string | undefined>): EnvError {
  try {
    loadEnv(env);
  } catch (e) {
    if (e instanceof EnvError) return e;
    throw e;
  }
  throw new Error("expected an EnvError");
}

describe("loadEnv", () => {
  it("applies every default and enters setup mode without APP_ID outside production", () => {
    expect(loadEnv({})).toEqual({
      setupMode: true,
      isProduction: false,
      nodeEnv: undefined,
      appId: undefined,
      privateKey: undefined,
      webhookSecret: undefined,
      port: 3000,
      host: undefined,
      logLevel: "info",
      gheHost: undefined,
      gheProtocol: "https",
      redisUrl: "redis://127.0.0.1:6379",
      githubClientId: undefined,
      githubClientSecret: undefined,
      diffwardSessionSecret: undefined,
      scannerApiUrl: undefined,
      scannerToken: undefined,
      scannerTokensFile: undefined,
      role: "all",
      workerConcurrency: 50,
      settings: DEFAULT_SETTINGS,
    });
    // each variable's default, in its unit, converted to the settings' ms
    expect(loadEnv({}).settings).toMatchObject({
      defaultPreset: "diff-standard",
      guidanceFile: "SCANNER.md",
      labelPrefix: "SC",
      redeliveryIntervalMs: 300_000,
      redeliveryWindowMs: 72 * 3_600_000,
      redeliveryMaxPerRun: 50,
      redeliveryMaxPages: 20,
      serviceOutageMaxWaitMs: 60 * 60_000,
      auditRetentionMs: 400 * 86_400_000,
    });
    expect(loadEnv({}).settings).not.toHaveProperty("publicUrl");
  });

  it("bounds the recovery of missed deliveries by GitHub's redelivery window (72 hours)", () => {
    const env = loadEnv({
      DIFFWARD_REDELIVERY_INTERVAL_SECONDS: "0",
      DIFFWARD_REDELIVERY_WINDOW_HOURS: "24",
    });
    expect([env.settings.redeliveryIntervalMs, env.settings.redeliveryWindowMs]).toEqual([0, 24 * 3_600_000]);
    expect(() => loadEnv({ DIFFWARD_REDELIVERY_WINDOW_HOURS: "73" })).toThrow(
      /DIFFWARD_REDELIVERY_WINDOW_HOURS: must be from 1 to 72/,
    );
  });

  it("returns a ready environment in production", () => {
    const env = loadEnv({
      ...PROD,
      PORT: "8080",
      HOST: "0.0.0.0",
      LOG_LEVEL: "debug",
      GHE_HOST: "github.example.com",
      GHE_PROTOCOL: "http",
      REDIS_URL: "rediss://cache.internal:6380/2",
      SCANNER_DIFF_PRESET: "diff-deep",
      SCANNER_GUIDANCE_FILE: "docs/.scanner.md",
      SCANNER_PUBLIC_URL: "https://app.scanner.example.com/",
      SCANNER_LABEL_PREFIX: "ab",
      DIFFWARD_ROLE: "worker",
      WORKER_CONCURRENCY: "8",
    });
    expect(env).toMatchObject({
      setupMode: false,
      isProduction: true,
      appId: 123456,
      privateKey: pem,
      webhookSecret: "whsec-abc",
      port: 8080,
      host: "0.0.0.0",
      logLevel: "debug",
      gheHost: "github.example.com",
      gheProtocol: "http",
      redisUrl: "rediss://cache.internal:6380/2",
      scannerApiUrl: "https://scanner.example.com/api/v1",
      role: "worker",
      workerConcurrency: 8,
      settings: {
        ...DEFAULT_SETTINGS,
        defaultPreset: "diff-deep",
        guidanceFile: "docs/.scanner.md",
        publicUrl: "https://app.scanner.example.com",
        labelPrefix: "AB",
      },
    });
  });

  it("accepts a one-line PRIVATE_KEY with \\n escapes and a trailing slash on the API URL", () => {
    const env = loadEnv({
      ...PROD,
      PRIVATE_KEY: pem.replace(/\n/g, "\\n"),
      SCANNER_API_URL: "http://127.0.0.1:4010/api/v1/",
    });
    expect(env.privateKey).toBe(pem);
    expect(env.scannerApiUrl).toBe("http://127.0.0.1:4010/api/v1");
  });

  it("reads PRIVATE_KEY_PATH from disk", () => {
    const path = join(dir, "key.pem");
    writeFileSync(path, pem);
    expect(loadEnv({ ...PROD, PRIVATE_KEY: undefined, PRIVATE_KEY_PATH: path }).privateKey).toBe(pem);
    const missing = envError({ ...PROD, PRIVATE_KEY: undefined, PRIVATE_KEY_PATH: join(dir, "nope.pem") });
    expect(missing.problems).toEqual([
      { variable: "PRIVATE_KEY_PATH", message: expect.stringContaining("ENOENT") },
    ]);
    const notPem = join(dir, "not.pem");
    writeFileSync(notPem, "hello");
    expect(envError({ ...PROD, PRIVATE_KEY: undefined, PRIVATE_KEY_PATH: notPem }).message).toContain(
      "does not hold a PEM private key",
    );
    expect(envError({ ...PROD, PRIVATE_KEY_PATH: path }).message).toContain(
      "PRIVATE_KEY_PATH: set either PRIVATE_KEY or PRIVATE_KEY_PATH, not both",
    );
  });

  it("lists every missing variable by name in one error in production", () => {
    const e = envError({ NODE_ENV: "production" });
    expect(e.problems.map((p) => p.variable)).toEqual([
      "APP_ID",
      "PRIVATE_KEY",
      "WEBHOOK_SECRET",
      "SCANNER_API_URL",
      "SCANNER_TOKEN",
    ]);
    expect(e.message).toMatch(/^The environment is not valid \(5 problems\):\n- APP_ID: /);
    expect(e.message).toContain("- SCANNER_TOKEN: is required: set SCANNER_TOKEN or SCANNER_TOKENS_FILE");
  });

  it("says what each missing App variable needs, in schema order", () => {
    expect(envError({ APP_ID: "1" }).problems).toEqual([
      {
        variable: "PRIVATE_KEY",
        message: "is required: set PRIVATE_KEY (PEM text) or PRIVATE_KEY_PATH (a PEM file)",
      },
      { variable: "WEBHOOK_SECRET", message: "is required (the GitHub App's webhook secret)" },
      { variable: "SCANNER_API_URL", message: "is required (the service's base URL ending in /api/v1)" },
      { variable: "SCANNER_TOKEN", message: "is required: set SCANNER_TOKEN or SCANNER_TOKENS_FILE" },
    ]);
    expect(envError({ NODE_ENV: "production" }).problems[0]).toEqual({
      variable: "APP_ID",
      message: "is required in production (the numeric GitHub App id)",
    });
  });

  it("lists every bad value by name", () => {
    const e = envError({
      PORT: "http",
      LOG_LEVEL: "loud",
      REDIS_URL: "http://localhost",
      SCANNER_API_URL: "https://scanner.example.com/api/v2",
      SCANNER_LABEL_PREFIX: "S",
      SCANNER_GUIDANCE_FILE: "../x.md",
      DIFFWARD_ROLE: "both",
      WORKER_CONCURRENCY: "0",
      GHE_HOST: "https://github.example.com",
      APP_ID: "abc",
    });
    expect(e.problems.map((p) => p.variable).sort()).toEqual(
      [
        ...["APP_ID", "DIFFWARD_ROLE", "GHE_HOST", "LOG_LEVEL", "PORT", "REDIS_URL", "SCANNER_API_URL"],
        ...["SCANNER_GUIDANCE_FILE", "SCANNER_LABEL_PREFIX", "WORKER_CONCURRENCY"],
        // APP_ID is set (badly), so this is not setup mode: the App's other settings are required too
        ...["PRIVATE_KEY", "WEBHOOK_SECRET", "SCANNER_TOKEN"],
      ].sort(),
    );
    expect(e.message).toContain("- SCANNER_API_URL: must end in /api/v1");
    expect(e.message).toContain("- DIFFWARD_ROLE: must be one of web, worker, all");
  });

  it("treats empty values as unset", () => {
    expect(loadEnv({ APP_ID: "", PORT: " ", SCANNER_LABEL_PREFIX: "" })).toMatchObject({
      setupMode: true,
      port: 3000,
      settings: { labelPrefix: "SC" },
    });
  });

  it("accepts SCANNER_TOKENS_FILE instead of SCANNER_TOKEN", () => {
    expect(
      loadEnv({ ...PROD, SCANNER_TOKEN: undefined, SCANNER_TOKENS_FILE: "/etc/diffward/tokens.json" })
        .scannerTokensFile,
    ).toBe("/etc/diffward/tokens.json");
  });

  it("never puts a secret value in the error message", () => {
    const secret = fc.string({ minLength: 6, maxLength: 40 }).filter((s) => s.trim().length >= 6);
    fc.assert(
      fc.property(secret, secret, secret, (token, key, hook) => {
        const env = {
          NODE_ENV: "production",
          SCANNER_TOKEN: `${token} x`,
          PRIVATE_KEY: key,
          WEBHOOK_SECRET: hook,
          PORT: "x",
        };
        const e = envError(env);
        for (const s of [env.SCANNER_TOKEN, key.replace(/\\n/g, "\n"), hook])
          if (s.trim().length >= 6) expect(e.message).not.toContain(s.trim());
        expect(e.problems.map((p) => p.variable)).toContain("SCANNER_TOKEN");
      }),
      propertyOptions(300),
    );
  });

  it("describeEnv masks secrets for logs", () => {
    const d = describeEnv(loadEnv(PROD));
    expect(d).toMatchObject({
      privateKey: "[set]",
      webhookSecret: "[set]",
      scannerToken: "[set]",
      appId: 123456,
    });
    expect(JSON.stringify(d)).not.toContain(PROD.SCANNER_TOKEN);
    expect(JSON.stringify(d)).not.toContain("PRIVATE KEY");
  });
});

describe("the organization's page sign-in variables", () => {
  const site = { DIFFWARD_PUBLIC_URL: "https://diffward.example.com" };
  const client = {
    GITHUB_CLIENT_ID: "Iv23liexample0123456",
    GITHUB_CLIENT_SECRET: "cs_0123456789abcdef",
    ...site,
  };
  const sessionSecret = "s".repeat(32);

  it("is off without a client, on with both client variables, the public URL and a session secret", () => {
    expect(loadEnv(PROD)).toMatchObject({ githubClientId: undefined, diffwardSessionSecret: undefined });
    expect(loadEnv({ ...PROD, ...client, DIFFWARD_SESSION_SECRET: sessionSecret })).toMatchObject({
      githubClientId: client.GITHUB_CLIENT_ID,
      githubClientSecret: client.GITHUB_CLIENT_SECRET,
      diffwardSessionSecret: sessionSecret,
      diffwardPublicUrl: "https://diffward.example.com",
    });
    // a trailing slash is dropped: the callback URL is <url>/login/callback
    const slash = { ...client, DIFFWARD_PUBLIC_URL: "http://127.0.0.1:3000/" };
    expect(loadEnv(slash).diffwardPublicUrl).toBe("http://127.0.0.1:3000");
  });

  it("refuses to start with sign-in configured but no DIFFWARD_PUBLIC_URL, in development too, saying why", () => {
    const noUrl = { ...client, DIFFWARD_PUBLIC_URL: undefined };
    for (const env of [noUrl, { ...PROD, ...noUrl, DIFFWARD_SESSION_SECRET: sessionSecret }]) {
      const e = envError(env);
      expect(e.problems).toEqual([
        {
          variable: "DIFFWARD_PUBLIC_URL",
          message: expect.stringContaining(
            "is required when GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET are set",
          ),
        },
      ]);
      expect(e.message).toContain("<url>/login/callback");
    }
  });

  it("refuses a public URL with a path, a query or a user, and plain http in production", () => {
    for (const url of [
      "https://diffward.example.com/page",
      "https://a.example?x=1",
      "https://u:p@a.example",
      "ftp://a.example",
    ])
      expect(
        envError({ ...client, DIFFWARD_PUBLIC_URL: url }).problems.map((p) => p.variable),
        url,
      ).toEqual(["DIFFWARD_PUBLIC_URL"]);
    const http = envError({
      ...PROD,
      ...client,
      DIFFWARD_SESSION_SECRET: sessionSecret,
      DIFFWARD_PUBLIC_URL: "http://a.example",
    });
    expect(http.problems).toEqual([
      {
        variable: "DIFFWARD_PUBLIC_URL",
        message: expect.stringContaining("must be an https URL in production"),
      },
    ]);
  });

  it("refuses to start in production without DIFFWARD_SESSION_SECRET, saying why and how to make one", () => {
    const e = envError({ ...PROD, ...client });
    expect(e.problems).toEqual([
      { variable: "DIFFWARD_SESSION_SECRET", message: expect.stringContaining("openssl rand -hex 32") },
    ]);
    expect(e.message).toContain("when GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET are set");
  });

  it("lets development run without a session secret (the web process makes one)", () => {
    expect(loadEnv({ ...client }).diffwardSessionSecret).toBeUndefined();
  });

  it("refuses a short session secret and half a client, never quoting the secrets", () => {
    const short = envError({ ...PROD, ...client, DIFFWARD_SESSION_SECRET: "short-secret-value" });
    expect(short.problems).toEqual([
      { variable: "DIFFWARD_SESSION_SECRET", message: "must be at least 32 characters" },
    ]);
    expect(short.message).not.toContain("short-secret-value");
    const half = envError({ ...PROD, GITHUB_CLIENT_SECRET: client.GITHUB_CLIENT_SECRET });
    expect(half.problems.map((p) => p.variable)).toEqual(["GITHUB_CLIENT_ID"]);
    expect(half.message).not.toContain(client.GITHUB_CLIENT_SECRET);
  });

  it("masks the client secret and the session secret in logs", () => {
    const d = describeEnv(loadEnv({ ...PROD, ...client, DIFFWARD_SESSION_SECRET: sessionSecret }));
    expect(d).toMatchObject({ githubClientSecret: "[set]", diffwardSessionSecret: "[set]" });
    expect(JSON.stringify(d)).not.toContain(sessionSecret);
  });
});

describe("ENV_VARIABLES, derived from each variable's .meta()", () => {
  it("lists every variable of the schema once, in schema order, each with a description", () => {
    expect(ENV_VARIABLES.map((v) => v.name)).toEqual(Object.keys(ProcessEnv.shape));
    for (const v of ENV_VARIABLES) expect(v.description.length, v.name).toBeGreaterThan(10);
  });

  it("gives as default exactly what the schema fills in for an unset variable", () => {
    const filled = ProcessEnv.parse({}) as Record<string, unknown>;
    const withDefault = Object.fromEntries(
      ENV_VARIABLES.filter((v) => v.default).map((v) => [v.name, v.default]),
    );
    expect(withDefault).toEqual(
      Object.fromEntries(
        Object.entries(filled)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, String(v)]),
      ),
    );
    expect(withDefault).toMatchObject({
      PORT: "3000",
      REDIS_URL: "redis://127.0.0.1:6379",
      WORKER_CONCURRENCY: "50",
    });
  });

  it("marks as required in production the variables loadEnv asks for, and these secrets", () => {
    const required = ENV_VARIABLES.filter((v) => v.requiredInProduction).map((v) => v.name);
    expect(required).toEqual(envError({ NODE_ENV: "production" }).problems.map((p) => p.variable));
    expect([...SECRET_VARIABLES].sort()).toEqual([
      "DIFFWARD_ADMIN_TOKEN",
      "DIFFWARD_SESSION_SECRET",
      "GITHUB_CLIENT_SECRET",
      "METRICS_TOKEN",
      "PRIVATE_KEY",
      "SCANNER_TOKEN",
      "WEBHOOK_SECRET",
    ]);
  });

  it("examples of the schema parse (so .env.example and the README never show a bad value)", () => {
    for (const v of ENV_VARIABLES)
      for (const example of v.examples ?? [])
        expect(ProcessEnv.shape[v.name].safeParse(example).success, `${v.name}=${example}`).toBe(true);
  });

  it("names each process variable in the loaded environment by envKey (camelCase, DIFFWARD_ROLE as role), the settings' under settings", () => {
    expect(envKey("SCANNER_API_URL")).toBe("scannerApiUrl");
    expect(envKey("DIFFWARD_ROLE")).toBe("role");
    const env = loadEnv({ ...PROD, HOST: "0.0.0.0", METRICS_PORT: "9464" });
    const app = new Set<EnvName>([
      "APP_ID",
      "PRIVATE_KEY",
      "PRIVATE_KEY_PATH",
      "WEBHOOK_SECRET",
      "SCANNER_API_URL",
    ]);
    for (const name of Object.keys(ProcessEnv.shape) as EnvName[]) {
      if (app.has(name)) continue;
      if (name in SETTING_VARIABLES) expect(Object.keys(env), name).not.toContain(envKey(name));
      else expect(Object.keys(env), name).toContain(envKey(name));
    }
    expect(Object.keys(SETTING_VARIABLES)).toContain("DIFFWARD_REDELIVERY_INTERVAL_SECONDS");
    expect(env).toMatchObject({ host: "0.0.0.0", metricsPort: 9464, role: "all" });
    expectTypeOf<AppEnv["port"]>().toEqualTypeOf<number>();
    expectTypeOf<AppEnv["role"]>().toEqualTypeOf<"web" | "worker" | "all">();
    expectTypeOf<AppEnv["redisClusterNodes"]>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<AppEnv["scannerTokensFile"]>().toEqualTypeOf<string | undefined>();
  });
});

describe("deployment variables", () => {
  it("parses REDIS_CLUSTER_NODES into seed nodes and refuses malformed entries by name", () => {
    const env = loadEnv({
      ...PROD,
      REDIS_CLUSTER_NODES: " 10.0.0.1:6379, redis-2.internal:7000,[::1]:7001 ",
    });
    expect(env.redisClusterNodes).toEqual(["10.0.0.1:6379", "redis-2.internal:7000", "[::1]:7001"]);
    expect(
      loadEnv({ ...PROD, REDIS_CLUSTER_NODES: "rediss://u:p@a.example:6380,b.example:6380" })
        .redisClusterNodes,
    ).toHaveLength(2);
    const e = envError({ ...PROD, REDIS_CLUSTER_NODES: "10.0.0.1" });
    expect(e.problems.map((p) => p.variable)).toEqual(["REDIS_CLUSTER_NODES"]);
    expect(e.message).toContain("host:port");
  });

  it("reads METRICS_TOKEN as a secret and METRICS_PORT as a port", () => {
    const env = loadEnv({ ...PROD, METRICS_TOKEN: "m3tr1cs-Secret", METRICS_PORT: "9464" });
    expect(env).toMatchObject({ metricsToken: "m3tr1cs-Secret", metricsPort: 9464 });
    expect(JSON.stringify(describeEnv(env))).not.toContain("m3tr1cs-Secret");
    expect(envError({ ...PROD, METRICS_PORT: "99999" }).problems[0]!.variable).toBe("METRICS_PORT");
  });

  it("never logs the password of REDIS_URL or of a cluster node URL", () => {
    const env = loadEnv({
      ...PROD,
      REDIS_URL: "rediss://default:hunter2-pw@redis.example.com:6380/2",
      REDIS_CLUSTER_NODES: "rediss://default:hunter3-pw@a.example:6380,b.example:6380",
    });
    const logged = JSON.stringify(describeEnv(env));
    expect(logged).not.toContain("hunter2");
    expect(logged).not.toContain("hunter3");
    expect(logged).toContain("rediss://default:***@redis.example.com:6380/2");
  });

  it("names .env.example only when the file is there (a container image ships no template)", () => {
    expect(envError({ NODE_ENV: "production" }).message).toMatch(/See \.env\.example/);
    try {
      loadEnv({ NODE_ENV: "production" }, { exampleExists: false });
      throw new Error("expected an EnvError");
    } catch (e) {
      expect(e).toBeInstanceOf(EnvError);
      expect((e as Error).message).not.toContain(".env.example");
      expect((e as Error).message).toContain("README");
    }
  });
});

describe("loadDotEnv", () => {
  it("reads .env the way Probot's setup flow writes it, the environment taking precedence", () => {
    const file = join(dir, "probot.env");
    // Probot's updateEnv: KEY=value lines joined by \n, PRIVATE_KEY quoted with its newlines escaped.
    writeFileSync(
      file,
      [
        "WEBHOOK_PROXY_URL=https://smee.io/abc",
        `APP_ID=424242`,
        `PRIVATE_KEY="${pem.replace(/\n/g, "\\n")}"`,
        "WEBHOOK_SECRET=from-file",
      ].join("\n"),
    );
    const saved = { ...process.env };
    try {
      delete process.env.APP_ID;
      delete process.env.PRIVATE_KEY;
      delete process.env.WEBHOOK_PROXY_URL;
      process.env.WEBHOOK_SECRET = "from-environment";
      expect(loadDotEnv(file)).toBe(true);
      expect(process.env.APP_ID).toBe("424242");
      expect(process.env.WEBHOOK_SECRET).toBe("from-environment");
      const env = loadEnv({ ...process.env, SCANNER_API_URL: PROD.SCANNER_API_URL, SCANNER_TOKEN: "t" });
      expect(env.setupMode).toBe(false);
      expect(env.privateKey).toBe(pem);
      expect(env.webhookProxyUrl).toBe("https://smee.io/abc");
      expect(loadDotEnv(join(dir, "absent.env"))).toBe(false);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});
