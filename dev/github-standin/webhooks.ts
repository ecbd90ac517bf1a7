import { randomUUID } from "node:crypto";
import { Webhooks } from "@octokit/webhooks";
import { z } from "zod";

/** Options of {@link sendWebhook}. */
export const SendWebhookOptions = z.object({
  /** The app's webhook URL (e.g. `http://127.0.0.1:3000/api/github/webhooks`). */
  url: z.url(),
  /** The webhook secret the app verifies with. */
  secret: z.string().min(1),
  /** Event name, sent as `X-GitHub-Event` (e.g. `pull_request`). */
  name: z.string().min(1),
  payload: z.record(z.string(), z.unknown()),
  /** `X-GitHub-Delivery`; a random UUID by default. */
  id: z.string().min(1).optional(),
});
export type SendWebhookOptions = z.input<typeof SendWebhookOptions>;

/** The app's answer: HTTP status, body text and round-trip time in milliseconds. */
export interface SendWebhookResult {
  status: number;
  body: string;
  id: string;
  durationMs: number;
}

/** A delivery ready to send: its id, exact body and headers (signature included). */
export interface SignedDelivery {
  id: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * Builds a webhook delivery the way GitHub does: JSON body, `X-GitHub-Event`, `X-GitHub-Delivery` and
 * `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the exact body with the secret>` (signed with
 * `@octokit/webhooks`' `sign`; docs: "Validating webhook deliveries").
 * @throws ZodError for invalid options.
 */
export async function signDelivery(options: SendWebhookOptions): Promise<SignedDelivery> {
  const o = SendWebhookOptions.parse(options);
  const id = o.id ?? randomUUID();
  const body = JSON.stringify(o.payload);
  const signature = await new Webhooks({ secret: o.secret }).sign(body);
  return {
    id,
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/diffward-standin",
      "x-github-event": o.name,
      "x-github-delivery": id,
      "x-hub-signature-256": signature,
    },
  };
}

/**
 * POSTs a {@link signDelivery} delivery to `url`; `durationMs` is the round trip, from the request's start to
 * the answer's last byte.
 * @throws TypeError from `fetch` when the app is unreachable.
 */
export async function postDelivery(url: string, d: SignedDelivery): Promise<SendWebhookResult> {
  const started = performance.now();
  const res = await fetch(url, { method: "POST", headers: d.headers, body: d.body });
  const text = await res.text();
  return { status: res.status, body: text, id: d.id, durationMs: performance.now() - started };
}

/**
 * Sends a webhook delivery the way GitHub does ({@link signDelivery}, then {@link postDelivery}).
 * @throws ZodError for invalid options; TypeError from `fetch` when the app is unreachable.
 */
export async function sendWebhook(options: SendWebhookOptions): Promise<SendWebhookResult> {
  const o = SendWebhookOptions.parse(options);
  return postDelivery(o.url, await signDelivery(o));
}
