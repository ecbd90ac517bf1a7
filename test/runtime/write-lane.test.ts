import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { WriteLane, type LaneGrant, type LaneRequest } from "../../src/runtime/write-lane.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = `{wl-${randomBytes(4).toString("hex")}}`;
const connections: Redis[] = [];
const lanes: WriteLane[] = [];
const INSTALLATION = 42;

function lane(limits = { minGapMs: 150, perMinute: 80, perHour: 500 }): WriteLane {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  connections.push(redis);
  const l = new WriteLane(redis, prefix, limits);
  lanes.push(l);
  return l;
}

afterAll(async () => {
  for (const l of lanes) l.close();
  const keys = await connections[0]!.keys(`${prefix}*`);
  if (keys.length) await connections[0]!.del(...keys);
  for (const c of connections) c.disconnect();
});

/** Asks for a slot and records the order and time of grants under `name`. */
function ask(l: WriteLane, inst: number, name: string, req: LaneRequest, log: Array<[string, number]>) {
  return l.acquire(inst, req).then((g: LaneGrant) => {
    if (g.kind === "granted") log.push([name, Date.now()]);
    return g;
  });
}

describe("write lane (real Redis)", () => {
  it("grants waiting writes by priority: complete, create, review, then progress", async () => {
    const l = lane();
    const log: Array<[string, number]> = [];
    const inst = INSTALLATION;
    await ask(l, inst, "first", { priority: "update" }, log); // takes the slot: the others must wait
    const all = Promise.all([
      ask(l, inst, "review", { priority: "review" }, log),
      ask(l, inst, "create", { priority: "create" }, log),
      ask(l, inst, "complete", { priority: "complete" }, log),
      ask(l, inst, "update", { priority: "update" }, log),
    ]);
    await all;
    expect(log.map(([n]) => n)).toEqual(["first", "complete", "create", "update", "review"]);
    for (let i = 1; i < log.length; i++) expect(log[i]![1] - log[i - 1]![1]).toBeGreaterThanOrEqual(140);
  });

  it("coalesces pending updates of one check run (latest wins, earlier fields merged under it)", async () => {
    const l = lane();
    const log: Array<[string, number]> = [];
    const inst = INSTALLATION + 1;
    await ask(l, inst, "first", { priority: "update" }, log);
    const a = ask(
      l,
      inst,
      "scan id",
      {
        priority: "update",
        checkRunId: 7,
        coalescible: true,
        fields: { status: "in_progress", externalId: "s1" },
      },
      log,
    );
    await new Promise((r) => setTimeout(r, 20));
    const b = ask(
      l,
      inst,
      "progress",
      {
        priority: "update",
        checkRunId: 7,
        coalescible: true,
        fields: { status: "in_progress", output: { title: "40 %", summary: "running" } },
      },
      log,
    );
    await new Promise((r) => setTimeout(r, 20));
    const c = ask(
      l,
      inst,
      "complete",
      {
        priority: "complete",
        checkRunId: 7,
        fields: { conclusion: "success", output: { title: "done", summary: "ok" } },
      },
      log,
    );
    const [ga, gb, gc] = await Promise.all([a, b, c]);
    expect(ga).toEqual({ kind: "coalesced" });
    expect(gb).toEqual({ kind: "coalesced" });
    expect(gc).toEqual({
      kind: "granted",
      fields: {
        status: "in_progress",
        externalId: "s1",
        conclusion: "success",
        output: { title: "done", summary: "ok" },
      },
    });
    expect(log.map(([n]) => n)).toEqual(["first", "complete"]);
  });

  it("never takes over a write that carries annotations or a conclusion", async () => {
    const l = lane();
    const inst = INSTALLATION + 2;
    const log: Array<[string, number]> = [];
    await ask(l, inst, "first", { priority: "update" }, log);
    const a = ask(
      l,
      inst,
      "complete",
      { priority: "complete", checkRunId: 9, fields: { conclusion: "failure" } },
      log,
    );
    await new Promise((r) => setTimeout(r, 20));
    const b = ask(
      l,
      inst,
      "batch 2",
      { priority: "complete", checkRunId: 9, fields: { output: { title: "t" } } },
      log,
    );
    expect((await a).kind).toBe("granted");
    expect((await b).kind).toBe("granted");
    expect(log.map(([n]) => n)).toEqual(["first", "complete", "batch 2"]);
  });

  it("skips progress when other writes wait (progress only when the lane is idle)", async () => {
    const l = lane();
    const inst = INSTALLATION + 3;
    const log: Array<[string, number]> = [];
    await ask(l, inst, "first", { priority: "update" }, log);
    const waiting = ask(l, inst, "create", { priority: "create" }, log);
    await new Promise((r) => setTimeout(r, 20));
    expect(await l.acquire(inst, { priority: "progress", checkRunId: 1, onlyWhenIdle: true })).toEqual({
      kind: "skipped",
    });
    await waiting;
    expect((await l.acquire(inst, { priority: "progress", checkRunId: 1, onlyWhenIdle: true })).kind).toBe(
      "granted",
    );
  });

  it("is one lane for two processes: slots never overlap, and priority holds across them", async () => {
    const p1 = lane();
    const p2 = lane();
    const inst = INSTALLATION + 4;
    const log: Array<[string, number]> = [];
    await ask(p1, inst, "first", { priority: "update" }, log);
    const jobs: Array<Promise<LaneGrant>> = [];
    for (let i = 0; i < 4; i++) jobs.push(ask(p1, inst, `p1 review ${i}`, { priority: "review" }, log));
    await new Promise((r) => setTimeout(r, 30));
    for (let i = 0; i < 4; i++) jobs.push(ask(p2, inst, `p2 complete ${i}`, { priority: "complete" }, log));
    await Promise.all(jobs);
    // the other process's completions go before this one's reviews that were waiting already
    expect(log.slice(1, 5).map(([n]) => n.slice(0, 2))).toEqual(["p2", "p2", "p2", "p2"]);
    expect(log.slice(5).map(([n]) => n.slice(0, 2))).toEqual(["p1", "p1", "p1", "p1"]);
    // the gaps are read from the lane's own record of its grants (Redis's clock, `sent`), not from when each
    // caller's promise settled: a loaded event loop delays the latter, never the former
    const sent = await connections[0]!.zrange(`${prefix}:lane:${inst}:sent`, "0", "-1", "WITHSCORES");
    const times = sent.filter((_, i) => i % 2 === 1).map(Number);
    expect(times).toHaveLength(9);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(150);
    expect((await p2.usage(inst)).lastHour).toBe(9);
  });

  it("holds writes past the per-minute budget", async () => {
    const l = lane({ minGapMs: 0, perMinute: 3, perHour: 500 });
    const inst = INSTALLATION + 5;
    for (let i = 0; i < 3; i++) expect((await l.acquire(inst, { priority: "update" })).kind).toBe("granted");
    const fourth = Promise.race([
      l.acquire(inst, { priority: "complete" }).then(() => "granted"),
      new Promise((r) => setTimeout(() => r("held"), 1_500)),
    ]);
    expect(await fourth).toBe("held");
    expect(await l.usage(inst)).toEqual({ lastHour: 3, waiting: 1 });
  });

  it("forgets the waiters of a process that stopped (crash) after its ttl", async () => {
    const dead = new WriteLane(connections[0]!, prefix, { minGapMs: 150, perMinute: 80, perHour: 500 }, 300);
    const live = lane();
    const inst = INSTALLATION + 6;
    await live.acquire(inst, { priority: "update" });
    void dead.acquire(inst, { priority: "complete" }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
    dead.close(); // stops refreshing its waiter, as a killed process would
    const t0 = Date.now();
    expect((await live.acquire(inst, { priority: "review" })).kind).toBe("granted");
    expect(Date.now() - t0).toBeLessThan(3_000);
  });
  it("a crashed process's waiting write leaves no key without an end, even when nobody writes again", async () => {
    const ttlMs = 300;
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    connections.push(redis);
    const dead = new WriteLane(redis, prefix, { minGapMs: 60_000, perMinute: 80, perHour: 500 }, ttlMs);
    const inst = INSTALLATION + 7;
    await dead.acquire(inst, { priority: "update" }); // the slot is taken for a minute: the next write waits
    void dead
      .acquire(inst, {
        priority: "update",
        checkRunId: 9,
        coalescible: true,
        fields: { status: "in_progress" },
      })
      .catch(() => undefined);
    const laneKeys = async () => (await redis.keys(`${prefix}:lane:${inst}:*`)).sort();
    const waiting = ["q", "alive", "cr", "payload", "crof"].map((part) => `${prefix}:lane:${inst}:${part}`);
    await expect.poll(laneKeys).toEqual(expect.arrayContaining(waiting));
    dead.close(); // the process dies with its write waiting; no other process ever writes for this installation
    for (const k of await laneKeys())
      expect({ k, pttl: await redis.pttl(k) }).toMatchObject({
        k,
        pttl: expect.toSatisfy((t: number) => t > 0),
      });
    // the waiting write's keys end with its last refresh, not after the counters' longer lives
    for (const k of waiting) expect(await redis.pttl(k)).toBeLessThanOrEqual(2 * ttlMs);
  });
});
