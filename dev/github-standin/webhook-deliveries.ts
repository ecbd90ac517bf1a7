import { randomUUID } from "node:crypto";
import { Webhooks } from "@octokit/webhooks";

/**
 * One attempt to deliver a webhook to the App, as GitHub records it (REST "List deliveries for an app
 * webhook", `hook-delivery-item`), plus what the stand-in needs to send it again (event name, payload).
 */
export interface WebhookDeliveryRecord {
  /** increasing across deliveries: a newer delivery has a larger id */
  id: number;
  /** `X-GitHub-Delivery`: the event's id, the same on every redelivery of it */
  guid: string;
  /** ISO time, whole seconds, as GitHub shows it */
  deliveredAt: string;
  redelivery: boolean;
  /** seconds spent delivering */
  duration: number;
  /** `OK` for a 2xx answer; `Invalid HTTP Response: <code>`, `failed to connect to host` or `timed out` else */
  status: string;
  /** the app's HTTP status; 0 when it never answered */
  statusCode: number;
  event: string;
  action: string | null;
  installationId: number | null;
  repositoryId: number | null;
  payload: Record<string, unknown>;
}

/** Where the stand-in delivers the App's webhooks (the App's webhook URL and secret). */
export interface WebhookTarget {
  url: string;
  secret: string;
}

/**
 * How long GitHub waits for the app's answer before recording the delivery as failed, in ms (github.com:
 * 10 s; docs: "Handling failed webhook deliveries").
 */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** What {@link WebhookDeliveries.deliver} did: the app's answer (status 0 when none) and the record. */
export interface DeliveryResult {
  status: number;
  body: string;
  id: string;
  durationMs: number;
  delivery: WebhookDeliveryRecord;
}

const seconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * The App's webhook deliveries. Every webhook the stand-in sends to the app goes through {@link deliver},
 * which records it as GitHub does: the outcome (a 2xx is `OK`; another status, a refused connection or no
 * answer within {@link DELIVERY_TIMEOUT_MS} is a failure), newest first in the listing. GitHub never
 * redelivers on its own (docs: "Handling failed webhook deliveries"): only `POST
 * /app/hook/deliveries/{delivery_id}/attempts` does, as a new delivery with the same GUID and
 * `redelivery: true`.
 */
export class WebhookDeliveries {
  private readonly records: WebhookDeliveryRecord[] = [];
  private nextId = 90_000;
  target: WebhookTarget | undefined;

  /** Every delivery, newest first (live objects). */
  list(): WebhookDeliveryRecord[] {
    return [...this.records].reverse();
  }

  /** The delivery with this id, if any. */
  get(id: number): WebhookDeliveryRecord | undefined {
    return this.records.find((r) => r.id === id);
  }

  /** Adds a delivery record as it is (tests seed old or failed deliveries with it). */
  record(input: Omit<WebhookDeliveryRecord, "id"> & { id?: number }): WebhookDeliveryRecord {
    this.nextId = Math.max(this.nextId, input.id ?? 0) + 1;
    const rec: WebhookDeliveryRecord = { ...input, id: input.id ?? this.nextId };
    const last = this.records.at(-1);
    this.records.push(rec);
    if (last !== undefined && last.id > rec.id) this.records.sort((a, b) => a.id - b.id);
    return rec;
  }

  /**
   * Sends a webhook to {@link target} the way GitHub does (JSON body, `X-GitHub-Event`, `X-GitHub-Delivery`,
   * `X-Hub-Signature-256`; docs: "Validating webhook deliveries") and records the delivery. Never throws for
   * an app that is down: that is a failed delivery.
   * @throws Error when no target is set.
   */
  async deliver(
    name: string,
    payload: Record<string, unknown>,
    opts: { guid?: string; redelivery?: boolean } = {},
  ): Promise<DeliveryResult> {
    const target = this.target;
    if (target === undefined) throw new Error("the stand-in has no webhook target: setWebhookTarget first");
    const guid = opts.guid ?? randomUUID();
    const body = JSON.stringify(payload);
    const signature = await new Webhooks({ secret: target.secret }).sign(body);
    const started = performance.now();
    let status = 0;
    let text = "";
    let outcome: string;
    try {
      const res = await fetch(target.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "GitHub-Hookshot/diffward-standin",
          "x-github-event": name,
          "x-github-delivery": guid,
          "x-hub-signature-256": signature,
        },
        body,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      status = res.status;
      text = await res.text();
      outcome = status >= 200 && status < 300 ? "OK" : `Invalid HTTP Response: ${status}`;
    } catch (error) {
      outcome = (error as Error).name === "TimeoutError" ? "timed out" : "failed to connect to host";
    }
    const durationMs = performance.now() - started;
    const delivery = this.record({
      guid,
      deliveredAt: seconds(Date.now()),
      redelivery: opts.redelivery ?? false,
      duration: Math.round(durationMs) / 1000,
      status: outcome,
      statusCode: status,
      event: name,
      action: typeof payload["action"] === "string" ? payload["action"] : null,
      installationId: idOf(payload["installation"]),
      repositoryId: idOf(payload["repository"]),
      payload,
    });
    return { status, body: text, id: guid, durationMs, delivery };
  }
}

function idOf(v: unknown): number | null {
  const id = (v as { id?: unknown } | undefined)?.id;
  return typeof id === "number" ? id : null;
}
