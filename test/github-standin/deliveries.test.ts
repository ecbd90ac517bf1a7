/**
 * The stand-in's App webhook deliveries (`dev/github-standin/webhook-deliveries.ts`, their routes in
 * `deliveries.ts`): recorded as the stand-in sends webhooks, listed newest first with cursor paging via
 * `Link`, redelivered with the same GUID, every request validated against GitHub's OpenAPI description.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Octokit } from "@octokit/rest";
import { Webhooks } from "@octokit/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";

const FAKE_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOjF9.c2lnbmF0dXJl";
const SECRET = "deliveries-secret";
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

let sb: GitHubStandIn;
let app: Server;
let appUrl: string;
/** What the app received: event, GUID, whether the signature verified. */
let received: Array<{ event: string; guid: string; verified: boolean }>;

beforeEach(async () => {
  received = [];
  const webhooks = new Webhooks({ secret: SECRET });
  app = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const event = String(req.headers["x-github-event"]);
      void webhooks.verify(body, String(req.headers["x-hub-signature-256"])).then((verified) => {
        received.push({ event, guid: String(req.headers["x-github-delivery"]), verified });
        // the app fails `issues` events, answers the rest
        res.writeHead(event === "issues" ? 500 : 200).end("ok");
      });
    });
  });
  await new Promise<void>((r) => app.listen(0, "127.0.0.1", r));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/api/github/webhooks`;
  sb = await startGitHubStandIn();
  sb.setWebhookTarget({ url: appUrl, secret: SECRET });
});
/** Stops the app's server (open keep-alive connections too). */
function closeApp(): Promise<void> {
  return new Promise<void>((r) => {
    app.close(() => r());
    app.closeAllConnections();
  });
}
afterEach(async () => {
  await sb.close();
  if (app.listening) await closeApp();
});

const asApp = () => new Octokit({ baseUrl: sb.url, auth: FAKE_JWT, log: quiet });
const payload = (action: string) => ({ action, installation: { id: 42 }, repository: { id: 7 } });

describe("App webhook deliveries", () => {
  it("records each delivery as GitHub does: OK, an HTTP failure, and an app that is down", async () => {
    const ok = await sb.deliver("pull_request", payload("opened"));
    const failed = await sb.deliver("issues", payload("opened"));
    await closeApp();
    const down = await sb.deliver("pull_request", payload("closed"));

    expect(received).toEqual([
      { event: "pull_request", guid: ok.id, verified: true },
      { event: "issues", guid: failed.id, verified: true },
    ]);
    expect([ok.status, failed.status, down.status]).toEqual([200, 500, 0]);
    const { data, headers } = await asApp().apps.listWebhookDeliveries({ per_page: 10 });
    expect(headers.link).toBeUndefined();
    expect(data.map((d) => [d.guid, d.status, d.status_code, d.redelivery])).toEqual([
      [down.id, "failed to connect to host", 0, false],
      [failed.id, "Invalid HTTP Response: 500", 500, false],
      [ok.id, "OK", 200, false],
    ]);
    expect(data[2]).toMatchObject({
      event: "pull_request",
      action: "opened",
      installation_id: 42,
      repository_id: 7,
      delivered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(data[0]!.id).toBeGreaterThan(data[1]!.id);
    // `status` filters by status_code: success 200–399, failure 400–599 (a delivery never answered is neither)
    const failures = await asApp().apps.listWebhookDeliveries({ status: "failure" });
    expect(failures.data.map((d) => d.guid)).toEqual([failed.id]);
    expect(sb.violations()).toEqual([]);
  });

  it("pages newest first with the Link header's cursor, which Octokit's paginate follows", async () => {
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await sb.deliver("ping", { zen: `z${i}` }));
    const first = await asApp().apps.listWebhookDeliveries({ per_page: 2 });
    expect(first.data.map((d) => d.guid)).toEqual([sent[4]!.id, sent[3]!.id]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.link ?? "")?.[1];
    expect(new URL(next!).searchParams.get("cursor")).toBe(`v1_${first.data[1]!.id}`);
    const all = await asApp().paginate(asApp().apps.listWebhookDeliveries, { per_page: 2 });
    expect(all.map((d) => d.guid)).toEqual(sent.map((s) => s.id).reverse());
    expect(
      sb.requests.filter((r) => r.operationId === "apps/list-webhook-deliveries").map((r) => r.query.cursor),
    ).toEqual([undefined, undefined, "v1_" + first.data[1]!.id, "v1_" + all[3]!.id]);
    expect(sb.violations()).toEqual([]);
  });

  it("redelivers with the same GUID and redelivery: true (202), 404 for an unknown delivery", async () => {
    const failed = await sb.deliver("issues", payload("opened"));
    const res = await asApp().apps.redeliverWebhookDelivery({ delivery_id: failed.delivery.id });
    expect(res.status).toBe(202);
    const again = await waitFor(() => sb.state.deliveries.list().find((d) => d.redelivery));
    expect(again).toMatchObject({ guid: failed.id, event: "issues", status: "Invalid HTTP Response: 500" });
    expect(again.id).toBeGreaterThan(failed.delivery.id);
    expect(received.map((r) => r.guid)).toEqual([failed.id, failed.id]);

    const missing = await asApp()
      .apps.redeliverWebhookDelivery({ delivery_id: 1 })
      .catch((e: { status: number }) => e);
    expect(missing).toMatchObject({ status: 404 });
    expect(sb.violations()).toEqual([]);
  });

  it("validates against GitHub's OpenAPI description: a JWT is required, a bad status is refused", async () => {
    const anonymous = new Octokit({ baseUrl: sb.url, log: quiet });
    expect(await anonymous.apps.listWebhookDeliveries().catch((e: { status: number }) => e.status)).toBe(401);
    const bad = await asApp()
      .request("GET /app/hook/deliveries", { status: "broken" as never })
      .catch((e: { status: number }) => e.status);
    expect(bad).toBe(422);
    expect(sb.violations().map((v) => v.openapiErrors.join())).toEqual([expect.stringMatching(/status/)]);
  });
});

async function waitFor<T>(f: () => T | undefined): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("timed out");
}
