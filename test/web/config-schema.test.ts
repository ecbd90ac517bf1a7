import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFIG_SCHEMA_PATH } from "../../src/config/json-schema.js";
import { createRedis } from "../../src/runtime/connection.js";
import type { WebServer } from "../../src/web.js";
import { bareWebServer } from "../support/web-server.js";

/**
 * `GET /diffward.schema.json` over real HTTP against the web server module: the schema an editor is pointed at
 * (`<DIFFWARD_PUBLIC_URL>/diffward.schema.json`) is the repository's `schema/diffward.schema.json`, public,
 * cacheable, and answered 304 on a matching ETag.
 */
describe("GET /diffward.schema.json (web server)", () => {
  const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const log = pino({ level: "silent" });
  let web: WebServer;

  beforeAll(async () => {
    web = await bareWebServer(redis, log);
  });
  afterAll(async () => {
    await web.close();
    redis.disconnect();
  });

  it("serves the schema of schema/diffward.schema.json to anyone, as application/schema+json", async () => {
    const res = await fetch(`${web.url}/diffward.schema.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/schema+json; charset=utf-8");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const onDisk = JSON.parse(
      readFileSync(resolve(import.meta.dirname, "../..", CONFIG_SCHEMA_PATH), "utf8"),
    );
    const served = await res.json();
    expect(served).toEqual(onDisk);
    expect(served).toMatchObject({ title: "diffward configuration", type: "object" });
  });

  it("answers HEAD without a body and a matching If-None-Match with 304", async () => {
    const head = await fetch(`${web.url}/diffward.schema.json`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const etag = head.headers.get("etag");
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const again = await fetch(`${web.url}/diffward.schema.json`, { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
  });
});
