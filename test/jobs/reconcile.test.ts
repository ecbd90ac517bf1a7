import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { expectExactlyOnce, openPull, waitCompleted } from "../faults/helpers.js";
import { flushPrefix } from "../support/flush.js";

describe("reconciliation after a Redis flush (issue 6 item 3)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 3_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("flush mid-scan, reconcile: the scan is resumed and reported exactly once, a redelivery launches nothing", async () => {
    const head = "e".repeat(39) + "1";
    const p = openPull(h, head);
    const owner = p.repository.owner.login as string;
    const name = p.repository.name as string;
    expect((await h.send("pull_request", p)).status).toBe(200);
    const running = await h.waitFor(
      () => h.github.state.checkRuns(owner, name).find((c) => c.headSha === head && c.externalId),
      15_000,
      "check run with the scan id",
    );
    expect(running.status).not.toBe("completed");

    expect(await flushPrefix(h.prefix)).toBeGreaterThan(0);
    expect(await h.booted.rt.state.getPull(`${owner}/${name}#${p.number}`)).toBeUndefined();

    // Two reconciliations racing: one poll job (BullMQ job id `poll-<scanId>`).
    const [a, b] = await Promise.all([h.booted.reconcile(), h.booted.reconcile()]);
    expect(a.installations).toBeGreaterThanOrEqual(1);
    expect(a.pulls).toBeGreaterThanOrEqual(1);
    expect([...a.resumed, ...a.alreadyFollowed]).toEqual([running.externalId]);
    expect([...b.resumed, ...b.alreadyFollowed]).toEqual([running.externalId]);
    expect(a.errors + b.errors).toBe(0);

    // GitHub redelivers the opened event (new delivery id): the rebuilt state says it is followed.
    expect((await h.send("pull_request", p)).status).toBe(200);

    const done = await waitCompleted(h, p, head);
    expect(done.conclusion).toBe("failure");
    expectExactlyOnce(h, p, head);

    // A later reconciliation finds nothing in flight.
    const after = await h.booted.reconcile();
    expect(after.resumed).toEqual([]);
    expect(after.alreadyFollowed).toEqual([]);
  });

  it("a reconcile job on the queue runs through the workers; requests in one window collapse", async () => {
    const { enqueueReconcile } = await import("../../src/jobs/reconcile.js");
    const now = Date.now();
    const id = await enqueueReconcile(h.booted.rt, now);
    expect(await enqueueReconcile(h.booted.rt, now)).toBe(id);
    const summary = await h.waitFor(
      async () =>
        (await h.booted.rt.queues.events.getJob(id))?.returnvalue as
          { installations: number; resumed: string[] } | undefined,
      10_000,
      "reconcile job result",
    );
    expect(summary.installations).toBeGreaterThanOrEqual(1);
    expect(summary.resumed).toEqual([]);
    const jobs = await h.booted.rt.queues.events.getJobs(["completed", "waiting", "active", "delayed"]);
    expect(jobs.filter((j) => j.name === "reconcile")).toHaveLength(1);
  });
});
