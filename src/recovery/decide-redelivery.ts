import { deliverySucceeded, type HookDelivery } from "../github/deliveries.js";
import type { PendingRedelivery, Settled, TrackedDelivery } from "../stores/delivery-ledger.js";

/** Why diffward stops following a GUID without a successful delivery. */
export type GiveUpReason = "window" | "attempts" | "refused";

/** What one recovery run knows before it decides. */
export interface RedeliveryInputs {
  /** the deliveries this run listed (any order) */
  listed: readonly HookDelivery[];
  /** the GUIDs followed before this run */
  tracked: ReadonlyMap<string, TrackedDelivery>;
  /** the settlement recorded for GUIDs (absent: unsettled) */
  settled: ReadonlyMap<string, Settled>;
  /** the redeliveries asked for earlier, by GUID (in force or not: {@link redeliveryInForce}) */
  pending: ReadonlyMap<string, PendingRedelivery>;
  /** when the newest finished pass began, this run's listing included (`DeliveryScan.seenAt`; none yet) */
  seenAt: number | undefined;
  /** the least time a redelivery stays pending, in ms (`Settings.redeliveryPendingMs`) */
  pendingMs: number;
  /** the oldest delivered_at GitHub still redelivers, ms (now less the redelivery window) */
  floorMs: number;
  /** redeliveries of one GUID before diffward gives up */
  maxAttempts: number;
  /** redeliveries one run asks for at most */
  maxPerRun: number;
}

/** What a recovery run does, decided without I/O by {@link decideRedeliveries}. */
export interface RedeliveryPlan {
  /** GUIDs with a successful delivery in the listing: settled `ok`, never redelivered */
  delivered: string[];
  /** GUIDs newly found with only failed deliveries (now followed) */
  found: string[];
  /** the followed GUIDs to write (new ones and ones whose records changed) */
  track: Map<string, TrackedDelivery>;
  /** followed GUIDs that are settled (a delivery of them succeeded): no longer followed */
  resolved: string[];
  /** followed GUIDs given up on */
  giveUp: Array<{ guid: string; reason: GiveUpReason }>;
  /** the deliveries to redeliver, oldest first, at most `maxPerRun` */
  redeliver: Array<{ guid: string; id: number }>;
}

/**
 * Decides which deliveries to redeliver (GitHub docs, "Handling failed webhook deliveries": find the failed
 * deliveries, redeliver those whose GUID has no successful delivery):
 * - a GUID with a successful delivery (in this listing, or settled `ok` by an earlier run) is never
 *   redelivered: its effects already happened;
 * - a GUID is followed once a failed *original* delivery of it is seen (`redelivery: false`): a failed
 *   redelivery alone may be someone's redelivery of an event that had succeeded before the listing's range;
 * - a followed GUID with a redelivery in force ({@link redeliveryInForce}) is left alone: the redelivery may
 *   have succeeded where no listing has looked yet; otherwise it is redelivered (its newest failed
 *   delivery), oldest first and at most `maxPerRun` a run, until `maxAttempts` redeliveries were asked for
 *   or its first failure is older than the redelivery window (GitHub redelivers only the past 3 days: docs,
 *   "Redelivering webhooks"), when diffward gives up.
 */
export function decideRedeliveries(input: RedeliveryInputs): RedeliveryPlan {
  const ok = new Set(input.listed.filter(deliverySucceeded).map((d) => d.guid));
  const failed = new Map<string, { id: number; at: number; original: boolean }>();
  for (const d of input.listed) {
    if (deliverySucceeded(d)) continue;
    const at = Date.parse(d.delivered_at);
    const f = failed.get(d.guid);
    failed.set(d.guid, {
      id: Math.max(f?.id ?? 0, d.id),
      at: Math.min(f?.at ?? at, at),
      original: (f?.original ?? false) || !d.redelivery,
    });
  }
  const isSettled = (guid: string) => ok.has(guid) || input.settled.has(guid);

  const plan: RedeliveryPlan = {
    delivered: [...ok],
    found: [],
    track: new Map(),
    resolved: [],
    giveUp: [],
    redeliver: [],
  };
  const followed = new Map(input.tracked);
  for (const [guid, f] of failed) {
    const prev = followed.get(guid);
    if (isSettled(guid) || (prev === undefined && !f.original)) continue;
    const next = {
      id: Math.max(prev?.id ?? 0, f.id),
      at: Math.min(prev?.at ?? f.at, f.at),
      attempts: prev?.attempts ?? 0,
    };
    if (prev === undefined) plan.found.push(guid);
    if (prev === undefined || prev.id !== next.id || prev.at !== next.at) plan.track.set(guid, next);
    followed.set(guid, next);
  }

  for (const [guid, t] of [...followed].sort((a, b) => a[1].at - b[1].at)) {
    if (isSettled(guid)) plan.resolved.push(guid);
    else if (t.at < input.floorMs) plan.giveUp.push({ guid, reason: "window" });
    else if (redeliveryInForce(input.pending.get(guid), input)) continue;
    else if (t.attempts >= input.maxAttempts) plan.giveUp.push({ guid, reason: "attempts" });
    else if (plan.redeliver.length < input.maxPerRun) plan.redeliver.push({ guid, id: t.id });
  }
  return plan;
}

/**
 * Whether a redelivery asked for still counts as pending: until a pass that began at least `pendingMs` after
 * it was asked for has finished. Such a pass has listed everything GitHub had recorded by then, the
 * redelivery too when GitHub made it (deliveries "can take a few minutes to be delivered and to appear in the
 * recent deliveries log": docs, "Troubleshooting webhooks"): it either settled the GUID (a success) or
 * showed it failed again. A resumed pass that began before the redelivery never counts, so an event
 * redelivered with success at the head of the listing is not redelivered again while older pages are read.
 */
export function redeliveryInForce(
  p: PendingRedelivery | undefined,
  at: Pick<RedeliveryInputs, "seenAt" | "pendingMs">,
): boolean {
  return p !== undefined && (at.seenAt === undefined || at.seenAt < p.at + at.pendingMs);
}
