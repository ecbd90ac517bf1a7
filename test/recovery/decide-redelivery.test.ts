import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decideRedeliveries,
  redeliveryInForce,
  type RedeliveryInputs,
} from "../../src/recovery/decide-redelivery.js";
import type { HookDelivery } from "../../src/github/deliveries.js";
import { propertyOptions } from "../support/property.js";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const MIN = 60_000;

let nextId = 1;
/** A delivery of event `guid`, `agoMs` before NOW; failed unless `status` says OK. */
function delivery(guid: string, agoMs: number, over: Partial<HookDelivery> = {}): HookDelivery {
  return {
    id: nextId++,
    guid,
    delivered_at: new Date(NOW - agoMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
    redelivery: false,
    status: "failed to connect to host",
    status_code: 0,
    event: "pull_request",
    action: "opened",
    installation_id: 1,
    repository_id: 2,
    ...over,
  };
}
const OK = { status: "OK", status_code: 200 } as const;

const inputs = (over: Partial<RedeliveryInputs>): RedeliveryInputs => ({
  listed: [],
  tracked: new Map(),
  settled: new Map(),
  pending: new Map(),
  seenAt: NOW,
  pendingMs: 10 * MIN,
  floorMs: NOW - 72 * 60 * MIN,
  maxAttempts: 3,
  maxPerRun: 50,
  ...over,
});

describe("decideRedeliveries: which missed events to redeliver", () => {
  it("redelivers an event whose deliveries all failed, never one with a successful delivery", () => {
    const lost = delivery("lost", 5 * MIN);
    const failedThenOk = [
      delivery("fixed", 9 * MIN),
      delivery("fixed", 2 * MIN, { ...OK, redelivery: true }),
    ];
    const okThenFailed = [delivery("done", 8 * MIN, OK), delivery("done", MIN, { redelivery: true })];
    const plan = decideRedeliveries(inputs({ listed: [lost, ...failedThenOk, ...okThenFailed] }));
    expect(plan.redeliver).toEqual([{ guid: "lost", id: lost.id }]);
    expect(plan.found).toEqual(["lost"]);
    expect(new Set(plan.delivered)).toEqual(new Set(["fixed", "done"]));
  });

  it("follows an event only from a failed original: a failed redelivery alone may be of an event that succeeded", () => {
    const plan = decideRedeliveries(
      inputs({ listed: [delivery("someone-elses", MIN, { redelivery: true })] }),
    );
    expect(plan).toMatchObject({ redeliver: [], found: [], giveUp: [] });
  });

  it("redelivers a followed event's newest failed delivery, oldest events first, at most maxPerRun", () => {
    const a = [delivery("a", 30 * MIN), delivery("a", 20 * MIN, { redelivery: true })];
    const b = delivery("b", 25 * MIN);
    const c = delivery("c", 10 * MIN);
    const plan = decideRedeliveries(inputs({ listed: [c, b, ...a], maxPerRun: 2 }));
    expect(plan.redeliver).toEqual([
      { guid: "a", id: a[1]!.id },
      { guid: "b", id: b.id },
    ]);
    expect(plan.track.get("a")).toEqual({ id: a[1]!.id, at: NOW - 30 * MIN, attempts: 0 });
  });

  it("leaves a pending event alone, gives up after the attempts or past the window, drops settled ones", () => {
    const t = (at: number, attempts: number) => ({ id: nextId++, at: NOW - at, attempts });
    const plan = decideRedeliveries(
      inputs({
        tracked: new Map([
          ["pending", t(5 * MIN, 1)],
          ["tired", t(6 * MIN, 3)],
          ["old", t(73 * 60 * MIN, 1)],
          ["delivered", t(7 * MIN, 1)],
          ["again", t(8 * MIN, 2)],
        ]),
        settled: new Map([["delivered", "ok"]]),
        pending: new Map([["pending", { id: 1, at: NOW - MIN }]]),
      }),
    );
    expect(plan.redeliver.map((r) => r.guid)).toEqual(["again"]);
    expect(plan.giveUp).toEqual([
      { guid: "old", reason: "window" },
      { guid: "tired", reason: "attempts" },
    ]);
    expect(plan.resolved).toEqual(["delivered"]);
  });

  it("never redelivers an event with a success, one pending or one settled; never more than maxPerRun", () => {
    const guid = fc.constantFrom("g1", "g2", "g3", "g4", "g5");
    const listed = fc.array(
      fc.record({
        guid,
        ago: fc.integer({ min: 0, max: 80 * 60 * MIN }),
        ok: fc.boolean(),
        redelivery: fc.boolean(),
      }),
      { maxLength: 20 },
    );
    fc.assert(
      fc.property(
        listed,
        fc.uniqueArray(guid),
        fc.uniqueArray(guid),
        fc.integer({ min: 0, max: 3 }),
        (rows, pending, settled, maxPerRun) => {
          const ds = rows.map((r) =>
            delivery(r.guid, r.ago, { redelivery: r.redelivery, ...(r.ok ? OK : {}) }),
          );
          const plan = decideRedeliveries(
            inputs({
              listed: ds,
              pending: new Map(pending.map((g) => [g, { id: 0, at: NOW - MIN }] as const)),
              settled: new Map(settled.map((g) => [g, "ok"] as const)),
              maxPerRun,
            }),
          );
          const succeeded = new Set(ds.filter((d) => d.status === "OK").map((d) => d.guid));
          expect(plan.redeliver.length).toBeLessThanOrEqual(maxPerRun);
          for (const r of plan.redeliver) {
            expect(succeeded.has(r.guid)).toBe(false);
            expect(pending).not.toContain(r.guid);
            expect(settled).not.toContain(r.guid);
            // the id redelivered is a failed delivery of that event, within the window
            const d = ds.find((x) => x.id === r.id)!;
            expect(d.guid).toBe(r.guid);
            expect(d.status).not.toBe("OK");
            expect(Date.parse(d.delivered_at)).toBeGreaterThanOrEqual(NOW - 72 * 60 * MIN);
          }
        },
      ),
      propertyOptions(200),
    );
  });

  it("keeps a redelivery pending until a pass begun pendingMs after it has finished, however long ago it was asked", () => {
    const asked = { id: 7, at: NOW - 60 * MIN };
    const pendingMs = 10 * MIN;
    // a pass resumed since before the redelivery: never enough, however late it finishes
    expect(redeliveryInForce(asked, { seenAt: NOW - 61 * MIN, pendingMs })).toBe(true);
    expect(redeliveryInForce(asked, { seenAt: undefined, pendingMs })).toBe(true);
    // a pass begun after the redelivery, but before GitHub may have recorded it
    expect(redeliveryInForce(asked, { seenAt: NOW - 55 * MIN, pendingMs })).toBe(true);
    // a pass begun pendingMs after it has seen whatever GitHub did with it
    expect(redeliveryInForce(asked, { seenAt: NOW - 50 * MIN, pendingMs })).toBe(false);
    expect(redeliveryInForce(undefined, { seenAt: undefined, pendingMs })).toBe(false);

    const tracked = new Map([["e", { id: 7, at: NOW - 70 * MIN, attempts: 1 }]]);
    const resumed = decideRedeliveries(
      inputs({ tracked, pending: new Map([["e", asked]]), seenAt: NOW - 61 * MIN }),
    );
    expect(resumed.redeliver).toEqual([]);
    const seen = decideRedeliveries(inputs({ tracked, pending: new Map([["e", asked]]), seenAt: NOW }));
    expect(seen.redeliver).toEqual([{ guid: "e", id: 7 }]);
  });
});
