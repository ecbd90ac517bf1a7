import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { WORKER_TIMING, expectExactlyOnce, spawnWorker, type WorkerProcess } from "../support/faults.js";
import { checkRuns, completedRun, seedPull } from "../support/pr.js";

let h: Harness | undefined;
const procs: WorkerProcess[] = [];
afterEach(async () => {
  await Promise.all(procs.splice(0).map((p) => p.stop()));
  await h?.close();
  h = undefined;
});

/**
 * A worker process SIGKILLed at each step of the pipeline, then a fresh one started: BullMQ's stalled-job
 * check hands the interrupted job to the new worker, and the pipeline's own guards (pull state, launch
 * record + scan-list lookup, comment markers) keep it from launching or posting twice.
 */
describe("worker killed with SIGKILL at each step", () => {
  const cases: Array<[string, string, string]> = [
    ["after the check run is created", "POST /repos/[^/]+/[^/]+/check-runs$", "1"],
    ["after the launch POST answered (scan id not yet saved)", "POST /api/v1/projects/[^/]+/scans$", "2"],
    ["mid-poll (after a scan read, before rescheduling)", "GET /api/v1/projects/[^/]+/scans/[^/]+$", "3"],
    [
      "after the poll handed the report over (the report job's first findings read)",
      "GET /api/v1/projects/[^/]+/findings$",
      "5",
    ],
    [
      "mid-report (review posted, check run not completed)",
      "POST /repos/[^/]+/[^/]+/pulls/\\d+/reviews$",
      "4",
    ],
  ];

  it.each(cases)(
    "%s: reported once, launched once",
    async (_what, killAfter, digit) => {
      h = await startHarness({
        workers: false,
        sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 },
        boot: { workerTiming: WORKER_TIMING },
      });
      const head = "f".repeat(39) + digit;
      const pr = seedPull(h, { head });
      const doomed = spawnWorker(h, { killAfter });
      procs.push(doomed);
      await doomed.ready;
      expect((await h.send("pull_request", pr.payload)).status).toBe(200);
      const exit = await doomed.exited;
      expect(exit.signal, doomed.output()).toBe("SIGKILL");

      const fresh = spawnWorker(h);
      procs.push(fresh);
      await fresh.ready;
      const done = await completedRun(h, pr.owner, pr.repo, head, 60_000);
      expect(done.conclusion).toBe("failure"); // the demo scenario's confirmed critical finding
      expectExactlyOnce(h, pr, head);
    },
    120_000,
  ); // two tsx child processes start per case: about 25 s on a loaded 2-core machine
});

/**
 * A process SIGKILLed in the middle of its start-up recovery of missed webhook deliveries (a restart right
 * after a start: a rolling deploy, a crash loop), then a pull request opened while no process ran, then a
 * fresh process: the dead run's lock must not hold the fresh process's recovery back longer than BullMQ's
 * own stalled-job detection, so the pull request's delivery is redelivered and gets its check run.
 */
describe("a process killed while its recovery of missed deliveries runs", () => {
  it("holds the next process's recovery back no longer than its lock: the pull request gets its check run within a minute", async () => {
    h = await startHarness({
      workers: false,
      sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 },
      boot: { workerTiming: WORKER_TIMING },
    });
    const head = "e".repeat(39) + "1";
    const pr = seedPull(h, { head });
    // killed right after its recovery's first page of deliveries came back: the run holds its lock
    const doomed = spawnWorker(h, { killAfter: "^GET /app/hook/deliveries$", recoverDeliveries: true });
    procs.push(doomed);
    const exit = await doomed.exited;
    expect(exit.signal, doomed.output()).toBe("SIGKILL");
    expect(await h.booted.rt.redis.exists(`${h.prefix}:deliveries:run`)).toBe(1);

    // no process runs: the pull request's delivery fails
    await h.stopWeb();
    const sent = await h.send("pull_request", pr.payload);
    expect(sent.delivery.status).toBe("failed to connect to host");
    await h.startWeb();

    const started = Date.now();
    const fresh = spawnWorker(h, { recoverDeliveries: true });
    procs.push(fresh);
    await fresh.ready;
    const run = await h.waitFor(
      () => checkRuns(h!, pr.owner, pr.repo, head)[0],
      60_000,
      "the check run of the pull request opened while no process ran",
    );
    expect(run.name).toBe("diffward");
    expect(Date.now() - started).toBeLessThan(60_000);
    const redelivered = h.github.state.deliveries.list().filter((d) => d.guid === sent.id && d.redelivery);
    expect(redelivered.map((d) => d.status)).toEqual(["OK"]);
    expect(h.github.violations()).toEqual([]);
  }, 120_000);
});
