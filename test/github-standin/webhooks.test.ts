import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { Webhooks } from "@octokit/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendWebhook } from "../../dev/github-standin/index.js";

const require = createRequire(import.meta.url);
const SECRET = "s3cret-for-tests";
const received: Array<{ headers: IncomingMessage["headers"]; body: string; verified: boolean }> = [];
const verifier = new Webhooks({ secret: SECRET });
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    void verifier.verify(body, String(req.headers["x-hub-signature-256"])).then((verified) => {
      received.push({ headers: req.headers, body, verified });
      res.writeHead(verified ? 200 : 401).end(verified ? "ok" : "bad signature");
    });
  });
});
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("sendWebhook", () => {
  it("signs a real pull_request payload so @octokit/webhooks verify() accepts it", async () => {
    const examples = require("@octokit/webhooks-examples") as Array<{
      name: string;
      examples: Array<Record<string, unknown>>;
    }>;
    const payload = examples.find((e) => e.name === "pull_request")!.examples[0]!;
    const result = await sendWebhook({
      url,
      secret: SECRET,
      name: "pull_request",
      payload,
      id: "delivery-1",
    });
    expect(result.status).toBe(200);
    expect(result.durationMs).toBeGreaterThan(0);
    const got = received.at(-1)!;
    expect(got.verified).toBe(true);
    expect(got.headers["x-github-event"]).toBe("pull_request");
    expect(got.headers["x-github-delivery"]).toBe("delivery-1");
    expect(got.headers["x-hub-signature-256"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(JSON.parse(got.body)).toEqual(payload);
  });

  it("a wrong secret produces a signature the receiver refuses", async () => {
    const result = await sendWebhook({ url, secret: "other", name: "ping", payload: { zen: "hi" } });
    expect(result.status).toBe(401);
    expect(received.at(-1)?.verified).toBe(false);
    expect(result.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("refuses invalid options with a typed error", async () => {
    await expect(
      sendWebhook({ url: "not a url", secret: SECRET, name: "ping", payload: {} }),
    ).rejects.toThrow(/url/i);
  });
});
