import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertClusterPrefixes,
  clusterConfig,
  createRedis,
  DEFAULT_QUEUE_PREFIX,
  DEFAULT_STATE_PREFIX,
  hashTag,
  redisOptionsFromUrl,
} from "../../src/queue/connection.js";
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
