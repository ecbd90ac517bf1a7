import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertClusterPrefixes,
  clusterConfig,
  createRedis,
  DEFAULT_QUEUE_PREFIX,
  DEFAULT_STATE_PREFIX,
  hashTag,
  redisOptionsFromUrl,
} from "../../src/runtime/connection.js";
import { freePort, startRedisServer, type RedisServerProcess } from "../support/redis-server.js";

describe("connection options from REDIS_URL (managed Redis)", () => {
  it("takes host, port, user, password (percent-decoded) and db from the URL, and TLS from rediss://", () => {
    expect(redisOptionsFromUrl("redis://127.0.0.1:6379")).toEqual({ host: "127.0.0.1", port: 6379 });
    expect(redisOptionsFromUrl("rediss://default:p%40ss%3Aw0rd@cache.example.com:6380/3")).toEqual({
      host: "cache.example.com",
      port: 6380,
      username: "default",
      password: "p@ss:w0rd",
      db: 3,
      tls: { servername: "cache.example.com" },
    });
    expect(redisOptionsFromUrl("redis://:only-a-password@[::1]")).toEqual({
      host: "::1",
      port: 6379,
      password: "only-a-password",
    });
  });

  it("refuses other schemes without echoing the password", () => {
    expect(() => redisOptionsFromUrl("http://u:secret-pw@host:1")).toThrow(/redis:\/\/ or rediss:\/\//);
    expect(() => redisOptionsFromUrl("http://u:secret-pw@host:1")).not.toThrow(/secret-pw/);
  });

  it("gives every cluster node the user, password and TLS of the URL entry", () => {
    const { startupNodes, options } = clusterConfig(["rediss://app:pw@n1.example:7000", "n2.example:7001"]);
    expect(startupNodes).toEqual([
      { host: "n1.example", port: 7000 },
      { host: "n2.example", port: 7001 },
    ]);
    expect(options.redisOptions).toMatchObject({
      username: "app",
      password: "pw",
      tls: {},
      maxRetriesPerRequest: null,
    });
  });

  it("keeps related keys in one cluster slot: hash-tagged default prefixes, and untagged ones refused on a cluster", () => {
    expect(hashTag(`${DEFAULT_QUEUE_PREFIX}:diffward-events:wait`)).toBe("diffward");
    expect(hashTag(`${DEFAULT_STATE_PREFIX}:scan:abc`)).toBe(hashTag(`${DEFAULT_STATE_PREFIX}:inflight:42`));
    expect(hashTag("dw:{}:x")).toBeUndefined();
    expect(() => assertClusterPrefixes(true, { "queue prefix": "bull" })).toThrow(
      /queue prefix "bull" has no hash tag/,
    );
    expect(() => assertClusterPrefixes(false, { "queue prefix": "bull" })).not.toThrow();
    expect(() => assertClusterPrefixes(true, { "state prefix": "{t1}" })).not.toThrow();
  });
});

describe("a password-protected Redis (requirepass)", () => {
  let server: RedisServerProcess;
  const password = "s3cret/with@odd:chars";
  beforeAll(async () => {
    server = await startRedisServer(await freePort(), ["--requirepass", password], password);
  });
  afterAll(async () => server?.stop());

  it("connects with the password in REDIS_URL, with and without the default user", async () => {
    for (const url of [
      `redis://:${encodeURIComponent(password)}@127.0.0.1:${server.port}`,
      `redis://default:${encodeURIComponent(password)}@127.0.0.1:${server.port}/2`,
    ]) {
      const r = createRedis(url);
      try {
        expect(await r.ping()).toBe("PONG");
        await r.set("diffward-connection-test", "1", "EX", 5);
        expect(await r.get("diffward-connection-test")).toBe("1");
      } finally {
        r.disconnect();
      }
    }
  });

  it("fails with Redis's own error on a wrong password, which never contains the password", async () => {
    const r = createRedis(`redis://:wrong-password-123@127.0.0.1:${server.port}`);
    const errors: Error[] = [];
    r.on("error", (e: Error) => errors.push(e));
    try {
      await expect(
        Promise.race([
          r.ping(),
          new Promise((_, rej) => setTimeout(() => rej(errors[0] ?? new Error("no answer")), 3_000)),
        ]),
      ).rejects.toThrow(/WRONGPASS|NOAUTH|invalid username-password/i);
      expect(errors.map((e) => e.message).join(" ")).not.toContain("wrong-password-123");
    } finally {
      r.disconnect();
    }
  });
});

describe("a TLS Redis with a password (rediss://), as managed services run it", () => {
  let server: RedisServerProcess;
  let dir: string;
  const password = "tls-pass-4d2";
  const openssl = (...args: string[]) => {
    const r = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "diffward-tls-"));
    // a private CA and a server certificate for localhost, as a managed Redis presents for its host name
    openssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "1",
      "-subj",
      "/CN=diffward test CA",
    );
    openssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
      "-subj",
      "/CN=localhost",
    );
    writeFileSync(join(dir, "san.ext"), "subjectAltName=DNS:localhost\n");
    openssl(
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.crt",
      "-days",
      "1",
      "-extfile",
      "san.ext",
    );
    const port = await freePort();
    server = await startRedisServer(
      port,
      [
        "--port",
        "0",
        "--tls-port",
        String(port),
        "--tls-cert-file",
        join(dir, "server.crt"),
        "--tls-key-file",
        join(dir, "server.key"),
        "--tls-ca-cert-file",
        join(dir, "ca.crt"),
        "--tls-auth-clients",
        "no",
        "--requirepass",
        password,
      ],
      password,
      ["--tls", "--cacert", join(dir, "ca.crt")],
    );
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs createRedis(url).ping() in a fresh Node process (NODE_EXTRA_CA_CERTS is read at process start). */
  const pingIn = (url: string, env: Record<string, string>) =>
    spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `import { createRedis } from ${JSON.stringify(join(import.meta.dirname, "../../src/runtime/connection.ts"))};
         const r = createRedis(process.env.URL); r.on("error", (e) => { console.log("ERR " + e.message); process.exit(2); });
         console.log(await r.ping()); r.disconnect();`,
      ],
      { encoding: "utf8", env: { PATH: process.env.PATH ?? "", URL: url, ...env }, timeout: 30_000 },
    );

  it("connects over TLS with the password, the certificate checked against the host name and the CA", () => {
    const url = `rediss://default:${password}@localhost:${server.port}`;
    const ok = pingIn(url, { NODE_EXTRA_CA_CERTS: join(dir, "ca.crt") });
    expect(ok.stdout.trim(), ok.stderr).toBe("PONG");
    // without the CA the certificate is refused: TLS is verified, not merely switched on
    const untrusted = pingIn(url, {});
    expect(untrusted.stdout).toMatch(/ERR .*(self[- ]signed|unable to (get|verify)|certificate)/i);
    expect(untrusted.stdout + untrusted.stderr).not.toContain(password);
  });
});
