import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import type { ScanRecord } from "../../dev/sandbox/index.js";
import { checkRuns, completedRun, openPull, pushPull, sha } from "../support/pr.js";
import { jobId } from "../../src/queue/names.js";

/**
 * `DIFFWARD_MAX_SCANS_IN_FLIGHT` (issue 15 item 3): scans in flight per installation capped, against the
 * sandbox over HTTP, the GitHub stand-in and a real Redis. Each case uses its own installation (slots are per
 * installation). "At the service at once" is read from the sandbox's own record of each scan (created at,
 * terminal at), never from the test's clock.
 */
const LONG = new Set([sha(0x8201), sha(0x8202), sha(0x8301), sha(0x8302), sha(0x8303)]);

/** The most scans of `scans` that were at the service (created, not yet terminal) at one moment. */
function mostAtOnce(scans: readonly ScanRecord[]): number {
  const edges = scans.flatMap((s) => [
    { at: s.createdAtMs, d: 1 },
    { at: s.final?.atMs ?? s.createdAtMs + s.durationMs, d: -1 },
  ]);
  // an end and a start at the same ms: the end first (the slot was freed before the next launch)
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.d));
  return most;
}

describe("scans in flight capped per installation (DIFFWARD_MAX_SCANS_IN_FLIGHT = 2)", () => {
  let h: Harness;
  const scansOf = (heads: readonly string[]) =>
    [...h.sandbox.state.scans.values()].filter((s) => heads.includes(s.commitHash));

  beforeAll(async () => {
    h = await startHarness({
      settings: { maxScansInFlight: 2 },
      sandbox: {
        scenario: "demo",
        scanDurationMs: (scan) => (LONG.has(scan.commitHash) ? 120_000 : 1_500),
        retryAfterSeconds: 1,
        seed: 7,
      },
    });
  });
  afterAll(async () => h?.close());

  it("five pull requests opened at once: never more than 2 scans at the service, all 5 reported, slots freed", async () => {
    const installationId = 8101;
    const heads = Array.from({ length: 5 }, (_, i) => sha(0x8101 + i));
    await Promise.all(
      heads.map((head, i) => openPull(h, { head, repo: "slots-five", number: 10 + i, installationId })),
    );
    for (const head of heads) {
      const run = await completedRun(h, "Codertocat", "slots-five", head, 60_000);
      expect(run.conclusion).not.toBe("cancelled");
      expect(run.externalId).toBeTruthy(); // reported from its scan
    }
    const scans = scansOf(heads);
    expect(scans).toHaveLength(5);
    expect(mostAtOnce(scans)).toBe(2);
    expect(await h.booted.rt.state.scanSlots(installationId, Date.now())).toEqual([]);
  });

  it("a launch superseded while it waits for a slot never launches; cancelled scans free their slots", async () => {
    const installationId = 8201;
    const repo = "slots-supersede";
    // two long scans take both slots
    const long1 = await openPull(h, { head: sha(0x8201), repo, number: 1, installationId });
    const long2 = await openPull(h, { head: sha(0x8202), repo, number: 2, installationId });
    await h.waitFor(
      () => scansOf([sha(0x8201), sha(0x8202)]).length === 2,
      20_000,
      "both long scans launched",
    );
    // a third pull request's launch runs, finds no slot, and waits
    const waiting = await openPull(h, { head: sha(0x8203), repo, number: 3, installationId });
    await h.waitFor(
      async () => {
        const pr = await h.booted.rt.state.getPull(`Codertocat/${repo}#3`);
        const job = pr?.launchJobId ? await h.booted.rt.queues.launch.getJob(pr.launchJobId) : undefined;
        return job?.processedOn !== undefined && (await job.getState()) === "delayed";
      },
      20_000,
      "the third launch waiting for a slot",
    );
    expect(scansOf([sha(0x8203)])).toHaveLength(0);
    expect((await h.booted.rt.state.scanSlots(installationId, Date.now())).length).toBe(2);

    // a push supersedes the waiting launch; then pushes on the other two cancel their long scans
    await pushPull(h, waiting, sha(0x8204));
    await h.waitFor(
      async () => (await h.booted.rt.state.getPull(`Codertocat/${repo}#3`))?.headSha === sha(0x8204),
      20_000,
      "the push on #3 followed",
    );
    await pushPull(h, long1, sha(0x8205));
    await pushPull(h, long2, sha(0x8206));
    for (const head of [sha(0x8204), sha(0x8205), sha(0x8206)]) {
      const run = await completedRun(h, "Codertocat", repo, head, 60_000);
      expect(run.externalId).toBeTruthy();
    }
    expect(scansOf([sha(0x8203)])).toHaveLength(0); // superseded while waiting: nothing launched, nothing spent
    for (const s of scansOf([sha(0x8201), sha(0x8202)])) expect(s.final?.status).toBe("CANCELLED");
    expect(mostAtOnce(scansOf([0x8201, 0x8202, 0x8204, 0x8205, 0x8206].map(sha)))).toBeLessThanOrEqual(2);
    expect(await h.booted.rt.state.scanSlots(installationId, Date.now())).toEqual([]);
  });

  it("with the cap off (0), every launch goes at once and no slot is kept", async () => {
    const installationId = 8301;
    const heads = [sha(0x8301), sha(0x8302), sha(0x8303)];
    h.booted.rt.settings.maxScansInFlight = 0;
    try {
      await Promise.all(
        heads.map((head, i) => openPull(h, { head, repo: "slots-off", number: 1 + i, installationId })),
      );
      // the scans run 120 s: under a cap of 2 the third could not launch before one of them ended
      await h.waitFor(() => scansOf(heads).length === 3, 30_000, "three long scans launched");
      // each followed (its poll job is added right after the launch's POST answers)
      await h.waitFor(
        async () => {
          const polls = await Promise.all(
            scansOf(heads).map((s) => h.booted.rt.queues.scans.getJob(jobId("poll", s.id))),
          );
          return polls.every((p) => p !== undefined);
        },
        20_000,
        "the three scans followed",
      );
      expect(await h.booted.rt.state.scanSlots(installationId, Date.now())).toEqual([]);
    } finally {
      h.booted.rt.settings.maxScansInFlight = 2;
    }
    expect(checkRuns(h, "Codertocat", "slots-off")).toHaveLength(3);
  });
});
