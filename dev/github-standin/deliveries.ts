/**
 * The App's webhook deliveries over REST (GitHub REST "List deliveries for an app webhook", "Redeliver a
 * delivery for an app webhook"), read from and sent again through the state's `WebhookDeliveries`
 * (webhook-deliveries.ts).
 */
import { HttpError, notFound, type RouteContext, type RouteReply } from "./http.js";
import type { WebhookDeliveryRecord } from "./webhook-deliveries.js";

function itemJson(d: WebhookDeliveryRecord) {
  return {
    id: d.id,
    guid: d.guid,
    delivered_at: d.deliveredAt,
    redelivery: d.redelivery,
    duration: d.duration,
    status: d.status,
    status_code: d.statusCode,
    event: d.event,
    action: d.action,
    installation_id: d.installationId,
    repository_id: d.repositoryId,
    throttled_at: null,
  };
}

/** GitHub's deliveries cursor names the delivery a page starts after; the stand-in's is `v1_<id>`. */
const CURSOR = /^v1_(\d+)$/;

type Handler = (ctx: RouteContext) => RouteReply;

/** `GET /app/hook/deliveries` and `POST /app/hook/deliveries/{delivery_id}/attempts` (app JWT). */
export const DELIVERY_ROUTES: Readonly<Record<string, Handler>> = {
  /**
   * GitHub REST "List deliveries for an app webhook": newest first, `per_page` (default 30, at most 100),
   * `status` (`success`: `status_code` 200–399, `failure`: 400–599), and cursor paging: the `Link` header's
   * `next` URL carries `cursor`, the page after the last delivery shown (no `last` relation).
   */
  "apps/list-webhook-deliveries": (ctx) => {
    const perPage = Math.min(100, Math.max(1, Number(ctx.query["per_page"] ?? 30) || 30));
    const cursor = ctx.query["cursor"];
    let after = Number.POSITIVE_INFINITY;
    if (cursor !== undefined) {
      const m = CURSOR.exec(cursor);
      if (m === null) throw new HttpError(400, "Invalid cursor");
      after = Number(m[1]);
    }
    const status = ctx.query["status"];
    const all = ctx.state.deliveries
      .list()
      .filter((d) => d.id < after)
      .filter(
        (d) =>
          status === undefined ||
          (status === "success"
            ? d.statusCode >= 200 && d.statusCode <= 399
            : d.statusCode >= 400 && d.statusCode <= 599),
      );
    const page = all.slice(0, perPage);
    const headers: Record<string, string> = {};
    const last = page.at(-1);
    if (all.length > perPage && last !== undefined) {
      const q = new URLSearchParams({ ...ctx.query, per_page: String(perPage), cursor: `v1_${last.id}` });
      headers["link"] = `<${ctx.apiBase}${ctx.path}?${q.toString()}>; rel="next"`;
    }
    return { status: 200, headers, body: page.map(itemJson) };
  },

  /**
   * GitHub REST "Redeliver a delivery for an app webhook": 202 at once; the delivery is then sent again,
   * the same event and GUID, and recorded as a new delivery with `redelivery: true`.
   */
  "apps/redeliver-webhook-delivery": (ctx) => {
    const original = ctx.state.deliveries.get(Number(ctx.params["delivery_id"]));
    if (original === undefined) throw notFound();
    const deliveries = ctx.state.deliveries;
    setImmediate(() => {
      deliveries
        .deliver(original.event, original.payload, { guid: original.guid, redelivery: true })
        .catch(() => undefined);
    });
    return { status: 202, body: {} };
  },
};
