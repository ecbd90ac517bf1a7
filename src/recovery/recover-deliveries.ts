import { randomUUID } from "node:crypto";
import type { Job } from "bullmq";
import type { ProbotOctokit } from "probot";
import { setTimeout as sleep } from "node:timers/promises";
import { listDeliveriesPage, type HookDelivery } from "../github/deliveries.js";
import { redeliver } from "../github/direct-writes.js";
import {
  type DeliveryLedger,
  type DeliveryScan,
  type PendingRedelivery,
  type TrackedDelivery,
} from "../stores/delivery-ledger.js";
import type { HeldLock } from "../runtime/renewed-lock.js";
import { addJob, scheduleJob } from "../job-catalogue/index.js";
import { jobId } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { LockBusyError } from "../stores/pull-state.js";
import { decideRedeliveries, type GiveUpReason, type RedeliveryPlan } from "./decide-redelivery.js";

/** The job scheduler's id (BullMQ `upsertJobScheduler`): one for every process, so one recurring job. */
export const RECOVERY_SCHEDULER_ID = "recover-deliveries";

/**
 * The listing's overlap with the previous pass, in ms: `delivered_at` has whole seconds and deliveries
 * finishing at once may be recorded out of order, so each pass reads the last minute again (re-reading a
 * delivery changes nothing: a settled or pending GUID is never redelivered).
 */
export const LISTING_OVERLAP_MS = 60_000;

/** What one recovery run did; the job's result. */
export interface RecoverySummary {
  /** another run held the lock: this one did nothing */
  busy: boolean;
  /** when busy: how long the other run's lock is held still, in ms (renewed while that run lives) */
  lockedForMs?: number;
  /** pages and deliveries listed */
  pages: number;
  listed: number;
  /** the listing reached the last point seen (or the window's start); false: the page bound cut it short */
  complete: boolean;
  /** GUIDs newly found with only failed deliveries */
  foundFailed: number;
  /** redeliveries asked for (GitHub answered 202) */
  redelivered: string[];
  /** GUIDs given up on, with why */
  givenUp: Array<{ guid: string; reason: GiveUpReason }>;
  /**
   * the run found its lock another run's (it stalled longer than the lock's TTL): it stopped asking for
   * redeliveries and left the listing's progress to that run
   */
  lockLost?: true;
}

/**
 * Registers the recurring recovery on the events queue (BullMQ job scheduler, every
 * `Settings.redeliveryIntervalMs`; upserting the same scheduler id from every process keeps one scheduler,
 * whose next job is produced when the current one starts) and adds one run for this start-up (whatever was
 * delivered while no process ran). Runs never overlap: each takes the ledger's lock, and a job that finds it
 * taken waits until the lock would expire and tries again ({@link processRecoverDeliveries}). An interval
 * of 0 removes the scheduler and adds nothing.
 */
export async function scheduleDeliveryRecovery(rt: Pick<Runtime, "queues" | "settings">): Promise<void> {
  const queue = rt.queues.events;
  const every = rt.settings.redeliveryIntervalMs;
  if (every <= 0) {
    await queue.removeJobScheduler(RECOVERY_SCHEDULER_ID);
    return;
  }
  await scheduleJob(rt, "recoverDeliveries", RECOVERY_SCHEDULER_ID, { every }, {});
  await addJob(rt, "recoverDeliveries", {}, { jobId: jobId("recover-deliveries-start", randomUUID()) });
}

/**
 * The `recover-deliveries` job's processor. A job that finds another run's lock
 * throws {@link LockBusyError}: the events worker delays it until that lock would expire and runs it again,
 * without spending an attempt. So a run killed with its process holds recovery back no longer than its
 * lock's TTL (as long as BullMQ takes to see the killed run's own job stalled and hand it to a live worker),
 * and the next process's start-up run is never lost to it.
 */
export async function processRecoverDeliveries(
  rt: Runtime,
  _job: Job,
  _token?: string,
  signal?: AbortSignal,
): Promise<RecoverySummary> {
  const summary = await recoverDeliveries(rt, signal);
  if (summary.busy) throw new LockBusyError("the recovery of missed deliveries", summary.lockedForMs);
  return summary;
}

/**
 * Recovers webhook deliveries diffward missed (GitHub never redelivers a failed delivery on its own: docs,
 * "Handling failed webhook deliveries"). One run, under a lock so one runs at a time across every process
 * (renewed while the run lives; its TTL is the pull locks' `PullStateStore.lockTtlMs`: the workers' BullMQ
 * `lockDuration` when set, else 60 s, so a dead run's lock is free about when BullMQ takes its job back):
 * 1. lists the App's deliveries newest first ({@link listDeliveries}) back to the last point seen, at most
 *    `Settings.redeliveryWindowMs` back and `Settings.redeliveryMaxPages` pages a run;
 * 2. decides ({@link decideRedeliveries}): never a GUID with a successful delivery, never one whose
 *    redelivery asked for may have succeeded where no listing has looked yet;
 * 3. asks GitHub to redeliver, at most `Settings.redeliveryMaxPerRun` a run, `Settings.redeliveryPaceMs`
 *    apart (GitHub asks for mutative requests at least a second apart: docs, "Best practices for using the
 *    REST API"), each claimed first in the ledger ({@link DeliveryLedger.claimRedelivery}) so that no two
 *    runs redeliver one GUID, even a run that outlived its lock.
 * A redelivery carries the same GUID (`X-GitHub-Delivery`), and every handler derives its job id from it,
 * so an event that did reach diffward after all is not acted on twice. `signal` aborted (the process shuts
 * down): the run stops after the page or redelivery in progress, keeps where it got to, and releases its lock.
 * @throws Octokit's RequestError when listing fails (the next run starts where this one started).
 */
export async function recoverDeliveries(rt: Runtime, signal?: AbortSignal): Promise<RecoverySummary> {
  const s = rt.settings;
  const log = rt.log.child({ job: "recover-deliveries" });
  const ledger = rt.stores.deliveries;
  const summary: RecoverySummary = {
    busy: false,
    pages: 0,
    listed: 0,
    complete: false,
    foundFailed: 0,
    redelivered: [],
    givenUp: [],
  };
  const lock = await ledger.lock(rt.stores.pulls.lockTtlMs);
  if (lock === undefined) return { ...summary, busy: true, lockedForMs: await ledger.lockedFor() };
  try {
    const app = await rt.appOctokit();
    const now = rt.now();
    const floorMs = now - s.redeliveryWindowMs;
    const scan = await ledger.scan();
    const listing = await listDeliveries(app, scan, { floorMs, maxPages: s.redeliveryMaxPages, now, signal });
    Object.assign(summary, { pages: listing.pages, listed: listing.deliveries.length });
    summary.complete = listing.scan.resume === undefined;

    const { plan, tracked, pending } = await planRedeliveries(rt, ledger, listing, floorMs);
    await ledger.settle(plan.delivered, "ok");
    summary.foundFailed = plan.found.length;
    rt.metrics?.deliveriesFailedFound.inc(plan.found.length);

    const track = new Map(plan.track);
    const givenUp = [...plan.giveUp];
    await redeliverPlanned(rt, app, plan.redeliver, {
      ledger,
      lock,
      tracked,
      pending,
      track,
      givenUp,
      summary,
      log,
      signal,
    });
    for (const g of givenUp) {
      rt.metrics?.deliveriesGivenUp.inc({ reason: g.reason });
      log.warn({ delivery: g.guid, reason: g.reason }, "missed delivery given up");
    }
    summary.givenUp = givenUp;
    for (const g of givenUp) track.delete(g.guid);
    await ledger.settle(
      givenUp.map((g) => g.guid),
      "given-up",
    );
    await ledger.updateTracked(track, [...plan.resolved, ...givenUp.map((g) => g.guid)]);
    if (!summary.lockLost) await ledger.saveScan(listing.scan);
    log.info(
      {
        pages: summary.pages,
        listed: summary.listed,
        complete: summary.complete,
        foundFailed: summary.foundFailed,
        redelivered: summary.redelivered.length,
        givenUp: summary.givenUp.length,
      },
      "webhook deliveries checked",
    );
    return summary;
  } finally {
    await lock.release();
  }
}

/**
 * Reads what the ledger knows of the listed and followed GUIDs (followed, settled, pending) and decides the
 * run's redeliveries ({@link decideRedeliveries}).
 */
async function planRedeliveries(
  rt: Runtime,
  ledger: DeliveryLedger,
  listing: Listing,
  floorMs: number,
): Promise<{
  plan: RedeliveryPlan;
  tracked: Map<string, TrackedDelivery>;
  pending: Map<string, PendingRedelivery>;
}> {
  const tracked = await ledger.tracked();
  const guids = [...new Set([...listing.deliveries.map((d) => d.guid), ...tracked.keys()])];
  const [settled, asked] = await Promise.all([ledger.settled(guids), ledger.pending(guids)]);
  const pending = new Map(guids.flatMap((g, i) => (asked[i] ? [[g, asked[i]] as const] : [])));
  const plan = decideRedeliveries({
    listed: listing.deliveries,
    tracked,
    settled: new Map(guids.flatMap((g, i) => (settled[i] ? [[g, settled[i]] as const] : []))),
    pending,
    seenAt: listing.scan.seenAt,
    pendingMs: rt.settings.redeliveryPendingMs,
    floorMs,
    maxAttempts: rt.settings.redeliveryAttempts,
    maxPerRun: rt.settings.redeliveryMaxPerRun,
  });
  return { plan, tracked, pending };
}

/**
 * Asks GitHub to redeliver each planned delivery, `Settings.redeliveryPaceMs` apart, each first claimed in
 * the ledger while the run still holds its lock and the GUID's pending record is still the one the run
 * decided on (a GUID another run claimed meanwhile is skipped; a lost lock stops the run). A redelivery asked
 * for counts one more attempt in `run.track`; one GitHub refuses (404, 422) is given up (`run.givenUp`); a
 * 5xx or a rate limit stops the run's redeliveries (the next run tries again). A claim GitHub did not take
 * is put back.
 */
async function redeliverPlanned(
  rt: Runtime,
  app: ProbotOctokit,
  planned: RedeliveryPlan["redeliver"],
  run: {
    ledger: DeliveryLedger;
    lock: HeldLock;
    tracked: Awaited<ReturnType<DeliveryLedger["tracked"]>>;
    pending: ReadonlyMap<string, PendingRedelivery>;
    track: Map<string, TrackedDelivery>;
    givenUp: RedeliveryPlan["giveUp"];
    summary: RecoverySummary;
    log: Runtime["log"];
    signal: AbortSignal | undefined;
  },
): Promise<void> {
  const s = rt.settings;
  const { track, log, signal } = run;
  for (const [i, r] of planned.entries()) {
    if (i > 0 && s.redeliveryPaceMs > 0)
      await sleep(s.redeliveryPaceMs, undefined, { signal }).catch(() => undefined);
    if (signal?.aborted) break;
    const seen = run.pending.get(r.guid);
    const next = { id: r.id, at: rt.now() };
    const claim = await run.ledger.claimRedelivery(run.lock, r.guid, seen, next);
    if (claim === "lock-lost") {
      run.summary.lockLost = true;
      log.warn({ delivery: r.guid }, "recovery run no longer holds its lock: stopping");
      break;
    }
    if (claim === "taken") continue;
    try {
      await redeliver(app, r.id);
    } catch (error) {
      await run.ledger.unclaimRedelivery(r.guid, next, seen);
      const status = (error as { status?: number }).status ?? 0;
      log.warn({ delivery: r.guid, deliveryId: r.id, status, err: error }, "redelivery refused");
      // GitHub refused this one (404, 422): give up on it; a 5xx or a rate limit: the next run tries again
      if (status >= 400 && status < 500 && status !== 403 && status !== 429)
        run.givenUp.push({ guid: r.guid, reason: "refused" });
      else break;
      continue;
    }
    const t = track.get(r.guid) ?? run.tracked.get(r.guid)!;
    track.set(r.guid, { ...t, attempts: t.attempts + 1 });
    run.summary.redelivered.push(r.guid);
    rt.metrics?.deliveriesRedelivered.inc();
    log.info({ delivery: r.guid, deliveryId: r.id, attempt: t.attempts + 1 }, "redelivery asked for");
  }
}

/** What {@link listDeliveries} read, and where the listing stands after it. */
export interface Listing {
  deliveries: HookDelivery[];
  pages: number;
  scan: DeliveryScan;
}

/**
 * Lists deliveries newest first, one pass: a pass cut short earlier goes on from its cursor, else a new one
 * starts at the newest delivery; either reads down to its floor (the last point seen less
 * {@link LISTING_OVERLAP_MS}, never older than `floorMs`) or `maxPages` pages, whichever comes first. A cut
 * pass whose cursor GitHub refuses (4xx) starts over from the newest delivery. `signal` aborted: the pass is
 * cut short after the page in progress, as by the page bound.
 * @param o.now when this run began (ms): a new pass began then.
 * @returns the deliveries read and the listing's next {@link DeliveryScan}: `head` moves to the pass's
 *   newest delivery and `seenAt` to when it began once a pass is complete; an unfinished pass is kept in
 *   `resume`.
 */
export async function listDeliveries(
  app: ProbotOctokit,
  scan: DeliveryScan,
  o: { floorMs: number; maxPages: number; now: number; signal?: AbortSignal | undefined },
): Promise<Listing> {
  const { floorMs, maxPages, signal } = o;
  // a pass resumed from an older diffward's record: when it began is unknown, so as early as can be
  const startedAt = scan.resume === undefined ? o.now : (scan.resume.startedAt ?? 0);
  const floor = Math.max(
    floorMs,
    scan.resume?.floor ?? (scan.head === undefined ? floorMs : scan.head - LISTING_OVERLAP_MS),
  );
  let cursor = scan.resume?.cursor;
  let top = scan.resume?.top;
  const deliveries: HookDelivery[] = [];
  for (let pages = 1; ; pages += 1) {
    let page;
    try {
      page = await listDeliveriesPage(app, cursor);
    } catch (error) {
      // a cursor GitHub no longer takes (400, 422): the pass cut short starts over from the newest delivery
      const status = (error as { status?: number }).status ?? 0;
      if (
        pages > 1 ||
        scan.resume === undefined ||
        status < 400 ||
        status >= 500 ||
        status === 403 ||
        status === 429
      )
        throw error;
      return listDeliveries(app, done(scan, undefined, scan.seenAt), o);
    }
    for (const d of page.deliveries) {
      const at = Date.parse(d.delivered_at);
      top = Math.max(top ?? at, at);
      if (at < floor) return { deliveries, pages, scan: done(scan, top, startedAt) };
      deliveries.push(d);
    }
    if (page.next === undefined) return { deliveries, pages, scan: done(scan, top, startedAt) };
    if (pages >= maxPages || signal?.aborted) {
      return {
        deliveries,
        pages,
        scan: {
          ...done(scan, undefined, scan.seenAt),
          resume: { cursor: page.next, floor, top: top ?? floor, startedAt },
        },
      };
    }
    cursor = page.next;
  }
}

/**
 * The scan once a pass is complete: `head` at the pass's newest delivery and `seenAt` at when it began,
 * neither moving back; without a resume.
 */
function done(scan: DeliveryScan, top: number | undefined, startedAt: number | undefined): DeliveryScan {
  const head = top === undefined ? scan.head : Math.max(top, scan.head ?? top);
  const seenAt = startedAt === undefined ? scan.seenAt : Math.max(startedAt, scan.seenAt ?? startedAt);
  return { ...(head === undefined ? {} : { head }), ...(seenAt === undefined ? {} : { seenAt }) };
}
