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

/**
 * Sends a webhook delivery the way GitHub does: JSON body, `X-GitHub-Event`, `X-GitHub-Delivery` and
 * `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the exact body with the secret>` (signed with
 * `@octokit/webhooks`' `sign`; docs: "Validating webhook deliveries").
 * @throws ZodError for invalid options; TypeError from `fetch` when the app is unreachable.
 */
export async function sendWebhook(options: SendWebhookOptions): Promise<SendWebhookResult> {
  const o = SendWebhookOptions.parse(options);
  const id = o.id ?? randomUUID();
  const body = JSON.stringify(o.payload);
  const signature = await new Webhooks({ secret: o.secret }).sign(body);
  const started = performance.now();
  const res = await fetch(o.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/diffward-standin",
      "x-github-event": o.name,
      "x-github-delivery": id,
      "x-hub-signature-256": signature,
    },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text, id, durationMs: performance.now() - started };
}
