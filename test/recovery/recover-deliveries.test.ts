/**
 * The recovery of missed webhook deliveries (`src/recovery/recover-deliveries.ts`) against the GitHub stand-in's
 * deliveries API (newest first, cursor paging, redeliveries with the same GUID) and a real Redis.
 */
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import type { WebhookDeliveryRecord } from "../../dev/github-standin/index.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { DeliveryLedger } from "../../src/stores/delivery-ledger.js";
import { createRedis } from "../../src/runtime/connection.js";
import { JOBS } from "../../src/job-catalogue/index.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ workers: false, settings: { redeliveryPaceMs: 0 } });
});
afterEach(async () => {
  await h?.close();
});

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Records a delivery of a `ping` the app never answered, `agoMs` ago (or a redelivery of `guid`). */
function missed(agoMs: number, over: Partial<WebhookDeliveryRecord> = {}): WebhookDeliveryRecord {
  return h.github.state.deliveries.record({
    guid: randomUUID(),
    deliveredAt: iso(Date.now() - agoMs),
    redelivery: false,
    duration: 0.01,
    status: "failed to connect to host",
    statusCode: 0,
    event: "ping",
    action: null,
    installationId: null,
    repositoryId: null,
    payload: { zen: "Keep it logically awesome.", hook_id: 1 },
    ...over,
  });
}

/** The ids of the deliveries diffward asked GitHub to redeliver, in order. */
const redeliveryRequests = () =>
  h.github.requests
    .filter((r) => r.operationId === "apps/redeliver-webhook-delivery")
    .map((r) => Number(r.path.split("/")[4]));
const listRequests = () => h.github.requests.filter((r) => r.operationId === "apps/list-webhook-deliveries");
const recordsOf = (guid: string) => h.github.state.deliveries.list().filter((d) => d.guid === guid);
const pendingKey = (guid: string) => `${h.booted.rt.stores.prefix}:deliveries:pending:${guid}`;
const runKey = () => `${h.booted.rt.stores.prefix}:deliveries:run`;
const metric = async (name: string, labels = "") =>
  Number(
    new RegExp(`^${name}${labels.replace(/[{}]/g, "\\$&")} (\\S+)$`, "m").exec(
      await h.booted.metrics.render(),
    )?.[1] ?? 0,
  );

describe("recovering missed webhook deliveries", () => {
  it("redelivers a failed event once; never one whose GUID has a successful delivery", async () => {
    const ok = await h.send("ping", { zen: "delivered" });
    expect(ok.delivery.status).toBe("OK");
    // someone redelivered that successful event while diffward was down: still never redelivered
    missed(0, { guid: ok.id, redelivery: true });
    // an event that failed, then someone redelivered it by hand and it succeeded
    const byHand = missed(120_000);
    missed(0, { guid: byHand.guid, redelivery: true, status: "OK", statusCode: 200 });
    const lost = missed(60_000);

    const first = await h.booted.recoverDeliveries();
    expect(first).toMatchObject({ busy: false, pages: 1, listed: 5, complete: true, foundFailed: 1 });
    expect(first.redelivered).toEqual([lost.guid]);
    expect(redeliveryRequests()).toEqual([lost.id]);
    // GitHub delivers it again: the same GUID, redelivery: true, and the app answered
    const again = await h.waitFor(() => recordsOf(lost.guid).find((d) => d.redelivery), 5_000, "redelivery");
    expect(again).toMatchObject({ status: "OK", statusCode: 200, event: "ping" });
    expect(await metric("diffward_deliveries_failed_found_total")).toBe(1);
    expect(await metric("diffward_deliveries_redelivered_total")).toBe(1);

    const second = await h.booted.recoverDeliveries();
    expect(second.redelivered).toEqual([]);
    expect(second.foundFailed).toBe(0);
    expect(redeliveryRequests()).toEqual([lost.id]);
    expect(h.github.violations()).toEqual([]);
  });

  it("never redelivers a GUID twice while its redelivery is pending; gives up after the attempts allowed", async () => {
    await h.stopWeb();
    const down = await h.send("ping", { zen: "nobody home" });
    expect(down.delivery.status).toBe("failed to connect to host");

    const first = await h.booted.recoverDeliveries();
    expect(first.redelivered).toEqual([down.id]);
    const failedAgain = await h.waitFor(
      () => recordsOf(down.id).find((d) => d.redelivery),
      5_000,
      "the redelivery (failed: the app is still down)",
    );
    expect(failedAgain.status).toBe("failed to connect to host");
    // pending: the failed redelivery is listed, yet nothing is asked for again before redeliveryPendingMs
    const asked = JSON.parse((await h.booted.rt.redis.get(pendingKey(down.id)))!) as {
      id: number;
      at: number;
    };
    expect(asked.id).toBe(down.delivery.id);
    expect(Date.now() - asked.at).toBeLessThan(DEFAULT_SETTINGS.redeliveryPendingMs);
    expect(await h.booted.rt.redis.pttl(pendingKey(down.id))).toBeGreaterThan(0);
    expect((await h.booted.recoverDeliveries()).redelivered).toEqual([]);
    expect(redeliveryRequests()).toEqual([down.delivery.id]);

    // once no longer pending, its newest failed delivery is redelivered, until the attempts run out
    const attempts = h.booted.rt.settings.redeliveryAttempts;
    for (let attempt = 2; attempt <= attempts; attempt++) {
      await h.booted.rt.redis.del(pendingKey(down.id));
      const newest = recordsOf(down.id)[0]!;
      expect((await h.booted.recoverDeliveries()).redelivered).toEqual([down.id]);
      expect(redeliveryRequests().at(-1)).toBe(newest.id);
      await h.waitFor(() => recordsOf(down.id).length === attempt + 1, 5_000, `redelivery ${attempt}`);
    }
    await h.booted.rt.redis.del(pendingKey(down.id));
    const last = await h.booted.recoverDeliveries();
    expect(last.redelivered).toEqual([]);
    expect(last.givenUp).toEqual([{ guid: down.id, reason: "attempts" }]);
    expect(await metric("diffward_deliveries_given_up_total", '{reason="attempts"}')).toBe(1);
    expect(redeliveryRequests()).toHaveLength(attempts);

    // given up stays given up, even once the app is back
    await h.startWeb();
    const after = await h.booted.recoverDeliveries();
    expect(after.redelivered).toEqual([]);
    expect(after.givenUp).toEqual([]);
  });

  it("pages across several pages with the Link header's cursor, each failed event redelivered once", async () => {
    const lost = Array.from({ length: 230 }, (_, i) => missed(HOUR - i * 1000));
    h.booted.rt.settings.redeliveryMaxPerRun = 1_000;

    const run = await h.booted.recoverDeliveries();
    expect(run).toMatchObject({ pages: 3, listed: 230, complete: true, foundFailed: 230 });
    expect(listRequests().map((r) => r.query)).toEqual([
      { per_page: "100" },
      { per_page: "100", cursor: `v1_${lost[130]!.id}` },
      { per_page: "100", cursor: `v1_${lost[30]!.id}` },
    ]);
    // oldest first
    expect(redeliveryRequests()).toEqual(lost.map((d) => d.id));
    expect(h.github.violations()).toEqual([]);
  });

  it("bounds a run's pages and redeliveries; the next runs go on where it stopped", async () => {
    const lost = Array.from({ length: 150 }, (_, i) => missed(HOUR - i * 1000));
    h.booted.rt.settings.redeliveryMaxPages = 1;
    h.booted.rt.settings.redeliveryMaxPerRun = 60;

    const first = await h.booted.recoverDeliveries();
    expect(first).toMatchObject({ pages: 1, listed: 100, complete: false });
    // the newest page's events, oldest first, 60 of them
    expect(redeliveryRequests()).toEqual(lost.slice(50, 110).map((d) => d.id));

    const second = await h.booted.recoverDeliveries();
    expect(second).toMatchObject({ pages: 1, listed: 50, complete: true });
    expect(listRequests().at(-1)!.query).toEqual({ per_page: "100", cursor: `v1_${lost[50]!.id}` });
    // the older page's 50 and 10 of the first page's rest
    expect(redeliveryRequests().slice(60)).toEqual([
      ...lost.slice(0, 50).map((d) => d.id),
      ...lost.slice(110, 120).map((d) => d.id),
    ]);

    const third = await h.booted.recoverDeliveries();
    expect(third.redelivered).toHaveLength(30);
    // every event redelivered once
    expect(new Set(redeliveryRequests())).toEqual(new Set(lost.map((d) => d.id)));
    expect(redeliveryRequests()).toHaveLength(150);
    // the pass cut short finishes; nothing is redelivered again
    const fourth = await h.booted.recoverDeliveries();
    expect(fourth.complete).toBe(true);
    expect(fourth.redelivered).toEqual([]);
  });

  it("a resumed pass never redelivers an event its first run redelivered with success: one redelivery, no give-up", async () => {
    h.booted.rt.settings.redeliveryMaxPages = 1;
    // a redelivery counts as pending for 1 ms only: only the listing can tell it succeeded
    h.booted.rt.settings.redeliveryPendingMs = 1;
    // 350 deliveries (3.5 pages), all delivered but one event in the newest page
    const ok = { status: "OK", statusCode: 200 } as const;
    const all = Array.from({ length: 350 }, (_, i) => missed(HOUR - i * 10_000, i === 320 ? {} : ok));
    const lost = all[320]!;

    const first = await h.booted.recoverDeliveries();
    expect(first).toMatchObject({ pages: 1, listed: 100, complete: false, redelivered: [lost.guid] });
    const again = await h.waitFor(() => recordsOf(lost.guid).find((d) => d.redelivery), 5_000, "redelivery");
    expect(again.status).toBe("OK");

    // the older pages, one a run: the redelivery at the head is above the pass, yet never asked for again
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await h.booted.recoverDeliveries());
    expect(runs.map((r) => [r.listed, r.complete])).toEqual([
      [100, false],
      [100, false],
      [50, true],
      [expect.any(Number), true],
    ]);
    expect(runs.flatMap((r) => [...r.redelivered, ...r.givenUp])).toEqual([]);
    expect(redeliveryRequests()).toEqual([lost.id]);
    expect(await metric("diffward_deliveries_given_up_total", '{reason="attempts"}')).toBe(0);
    // the next pass saw the successful redelivery: settled, no longer followed
    const ledger = new DeliveryLedger(h.booted.rt.redis, h.booted.rt.stores.prefix, HOUR);
    expect(await ledger.settled([lost.guid])).toEqual(["ok"]);
    expect((await ledger.tracked()).has(lost.guid)).toBe(false);
  });

  it("a run that outlived its lock never redelivers a GUID another run has redelivered", async () => {
    const lost = [missed(2 * 60_000), missed(60_000)];
    h.booted.rt.settings.redeliveryPaceMs = 3_000;
    // the first run asks for the first redelivery, then waits its pace; meanwhile its lock expires
    const slow = h.booted.recoverDeliveries();
    await h.waitFor(() => redeliveryRequests().length === 1, 5_000, "the first run's first redelivery");
    await h.booted.rt.redis.del(runKey());
    const second = await h.booted.recoverDeliveries();
    expect(second.redelivered).toEqual([lost[1]!.guid]);

    const first = await slow;
    expect(first.redelivered).toEqual([lost[0]!.guid]);
    expect(first.lockLost).toBe(true);
    expect(redeliveryRequests()).toEqual([lost[0]!.id, lost[1]!.id]);
  });

  it("a delivery diffward accepted that GitHub recorded as failed is neither redelivered nor handled twice", async () => {
    const payload = webhookExample("pull_request", "opened");
    const sent = await h.send("pull_request", payload);
    expect(sent.status).toBe(200);
    const jobsOf = async (guid: string) =>
      (await h.booted.rt.queues.events.getJobs(["waiting", "prioritized", "delayed", "active"])).filter(
        (j) => j.data.deliveryId === guid,
      );
    const [job] = await jobsOf(sent.id);
    expect(job).toBeDefined();
    // GitHub recorded it failed (the answer came after its 10 s), and the job's record is gone since (kept
    // 24 h or 10,000 jobs at most, while the recovery window reaches 3 days back)
    Object.assign(sent.delivery, { status: "timed out", statusCode: 0 });
    await job!.remove();

    const run = await h.booted.recoverDeliveries();
    expect(run).toMatchObject({ listed: 1, foundFailed: 0, redelivered: [], givenUp: [] });
    expect(redeliveryRequests()).toEqual([]);
    // redelivered by hand: answered, not handled again
    const byHand = await h.github.state.deliveries.deliver("pull_request", payload, {
      guid: sent.id,
      redelivery: true,
    });
    expect(byHand.status).toBe(200);
    expect(await jobsOf(sent.id)).toEqual([]);
  });

  it("starts a cut pass over when GitHub no longer takes its cursor", async () => {
    const lost = [missed(2 * HOUR), missed(HOUR)];
    const ledger = new DeliveryLedger(h.booted.rt.redis, h.booted.rt.stores.prefix, HOUR);
    await ledger.saveScan({
      resume: { cursor: "expired", floor: Date.now() - 3 * HOUR, top: Date.now(), startedAt: Date.now() },
    });

    const run = await h.booted.recoverDeliveries();
    expect(run).toMatchObject({ listed: 2, complete: true });
    expect(listRequests().map((r) => [r.query.cursor, r.status])).toEqual([
      ["expired", 400],
      [undefined, 200],
    ]);
    expect(redeliveryRequests()).toEqual(lost.map((d) => d.id));
  });

  it("lists back to GitHub's redelivery window at most (3 days)", async () => {
    const tooOld = missed(3 * 24 * HOUR + HOUR);
    const recent = missed(24 * HOUR);
    const fresh = missed(0);

    const run = await h.booted.recoverDeliveries();
    expect(run.listed).toBe(2);
    expect(run.foundFailed).toBe(2);
    expect(redeliveryRequests()).toEqual([recent.id, fresh.id]);
    expect(redeliveryRequests()).not.toContain(tooOld.id);
  });

  it("a run that finds a dead run's lock waits until the lock would expire, then recovers", async () => {
    const lost = missed(60_000);
    // the lock of a run whose process died: nobody renews it, it expires in 3 s
    await h.booted.rt.redis.set(runKey(), "dead-run", "PX", 3_000);
    const queued = Date.now();
    const job = await h.booted.rt.queues.events.add(
      JOBS.recoverDeliveries.name,
      {},
      { jobId: "recovery-after-crash" },
    );
    h.booted.startWorkers();

    await h.waitFor(() => redeliveryRequests().includes(lost.id), 15_000, "the redelivery");
    expect(Date.now() - queued).toBeGreaterThanOrEqual(2_500);
    await h.waitFor(async () => (await job.getState()) === "completed", 5_000, "the run completed");
    const done = await h.booted.rt.queues.events.getJob(job.id!);
    expect(done?.returnvalue).toMatchObject({ busy: false, redelivered: [lost.guid] });
    expect(done?.attemptsMade ?? 0).toBeLessThanOrEqual(1);
  });

  it("a run stops at shutdown, keeps its progress and frees its lock", async () => {
    const lost = Array.from({ length: 4 }, (_, i) => missed(HOUR - i * 1000));
    h.booted.rt.settings.redeliveryPaceMs = 2_000;
    h.booted.startWorkers();
    await h.booted.rt.queues.events.add(JOBS.recoverDeliveries.name, {}, { jobId: "recovery-at-shutdown" });
    await h.waitFor(() => redeliveryRequests().length === 1, 10_000, "the first redelivery");

    const closing = Date.now();
    await h.booted.close();
    expect(Date.now() - closing).toBeLessThan(1_500);
    const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
    try {
      expect(await redis.exists(runKey())).toBe(0);
      // the redelivery asked for is counted, the others are left for the next run
      expect(redeliveryRequests()).toEqual([lost[0]!.id]);
      const ledger = new DeliveryLedger(redis, h.prefix, HOUR);
      expect((await ledger.tracked()).get(lost[0]!.guid)?.attempts).toBe(1);
      expect((await ledger.tracked()).get(lost[1]!.guid)?.attempts).toBe(0);
    } finally {
      redis.disconnect();
    }
  });
});
