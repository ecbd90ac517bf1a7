import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { WORKER_TIMING, expectExactlyOnce, spawnWorker, type WorkerProcess } from "../support/faults.js";
import { completedRun, seedPull } from "../support/pr.js";

/**
 * A worker process SIGKILLed at each step of the pipeline, then a fresh one started: BullMQ's stalled-job
 * check hands the interrupted job to the new worker, and the pipeline's own guards (pull state, launch
 * record + scan-list lookup, comment markers) keep it from launching or posting twice.
 */
describe("worker killed with SIGKILL at each step", () => {
  let h: Harness | undefined;
  const procs: WorkerProcess[] = [];
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    await h?.close();
    h = undefined;
  });

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
