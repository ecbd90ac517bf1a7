import type { ProbotOctokit } from "probot";
import { z } from "zod";

/**
 * One delivery of the App's webhook, the fields diffward reads (GitHub REST "List deliveries for an app
 * webhook", `hook-delivery-item`; other fields kept).
 */
export const HookDelivery = z.looseObject({
  id: z.number().int(),
  guid: z.string(),
  delivered_at: z.string(),
  redelivery: z.boolean(),
  /** `OK` for a delivery the app answered with a 2xx; anything else is a failure */
  status: z.string(),
  status_code: z.number().int(),
  event: z.string(),
  action: z.string().nullable().optional(),
  installation_id: z.number().int().nullable().optional(),
  repository_id: z.number().int().nullable().optional(),
});
export type HookDelivery = z.infer<typeof HookDelivery>;

/** A page of deliveries, newest first, and the cursor of the next (older) page when there is one. */
export interface DeliveryPage {
  deliveries: HookDelivery[];
  next?: string;
}

/** Deliveries per page asked for: GitHub's largest `per_page`. */
export const DELIVERIES_PER_PAGE = 100;

/**
 * Whether a delivery succeeded: GitHub's `status` is `OK` (docs, "Handling failed webhook deliveries": "The
 * data for a failed delivery will have a `status` value that is not `OK`").
 */
export function deliverySucceeded(d: Pick<HookDelivery, "status">): boolean {
  return d.status === "OK";
}

/**
 * Reads one page of the App's webhook deliveries, newest first (GitHub REST `GET /app/hook/deliveries`,
 * authenticated as the App with its JWT), starting at `cursor` (the `cursor` of the `Link` header's next
 * URL; none for the newest page). Every delivery is listed, not `status=failure`: that filter classes
 * deliveries by `status_code` 400–599, and a delivery the app never answered (connection refused, timed
 * out) carries no such code.
 * @throws Octokit's RequestError on a GitHub error (after its retry plugin); ZodError on an unexpected body.
 */
export async function listDeliveriesPage(app: ProbotOctokit, cursor?: string): Promise<DeliveryPage> {
  const res = await app.request("GET /app/hook/deliveries", {
    per_page: DELIVERIES_PER_PAGE,
    ...(cursor === undefined ? {} : { cursor }),
  });
  const deliveries = z.array(HookDelivery).parse(res.data);
  const next = nextCursor(res.headers.link);
  return next === undefined ? { deliveries } : { deliveries, next };
}

/** The `cursor` of the `Link` header's `rel="next"` URL (docs: REST "Using pagination in the REST API"). */
export function nextCursor(link: string | undefined): string | undefined {
  for (const part of (link ?? "").split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (m === null) continue;
    const url = URL.canParse(m[1]!) ? new URL(m[1]!) : undefined;
    return url?.searchParams.get("cursor") ?? undefined;
  }
  return undefined;
}
