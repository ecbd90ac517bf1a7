import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { applyFaults } from "../../dev/sandbox/index.js";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { pullKey } from "../../src/runtime/names.js";
import { checkRuns, completedRun, launchPosts, openPull, pushPull, sha } from "../support/pr.js";

const LAUNCH = "^POST /projects/[^/]+/scans$";
const MAX_WAIT_MS = 3_000;
const UNCONFIRMED = "Scanning service unavailable: launch not confirmed";
/** The head whose scan runs long, so it is still running when a newer push supersedes it. */
const SUPERSEDED_HEAD = sha(0x5141);

function scanListReads(h: Harness): number {
  const counts = h.sandbox.state.stats.requests["GET /projects/:projectId/scans"] ?? {};
  return counts["200"] ?? 0;
}

function scansOf(h: Harness, head: string) {
  return [...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head);
}

/** `.github/diffward.yml` of a repository of its own under `creditCap.monthly` (its own cap ledger hash). */
function capped(h: Harness, repositoryId: string): string {
  h.sandbox.state.addRepository({ id: repositoryId, readiness: "ready" });
  // a budget per scan, so a hold kept for a launch of unknown outcome leaves room for a newer head's
  return demoConfig("creditBudget: 100\ncreditCap:\n  monthly: 500").replace("repo_demo", repositoryId);
}

/** The fields of the repository's cap ledger hash this month (`r:<hold>`, `c:<scanId>`, `f:<scanId>`, …). */
async function capFields(h: Harness, repositoryId: string): Promise<Record<string, string>> {
  const { rt } = h.booted;
  const key = rt.stores.capLedger.keyOf({ projectId: "prj_demo", repositoryId }, Date.now());
  return rt.redis.hgetall(key);
}

const holds = (fields: Record<string, string>) => Object.keys(fields).filter((f) => f.startsWith("r:"));

/** The launches whose hold was bound to `scanId` (`b:<hold>` = the scan id): it counts, nothing went back. */
const boundTo = (fields: Record<string, string>, scanId: string) =>
  Object.entries(fields).filter(([f, v]) => f.startsWith("b:") && v === scanId);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A launch whose answer was lost (the service carried it out or not, then a 5xx; sandbox `lostAnswers` and
 * `errors`), then the service unavailable for longer than DIFFWARD_SERVICE_OUTAGE_MAX_WAIT: the check run is
 * never concluded "not scanned" while the scan may exist; the scan list is read as soon as the service answers,
 * and the scan followed (or withdrawn when superseded, or launched once when the list has none); the
 * `creditCap.monthly` hold stays until then.
 */
describe("a launch whose outcome is unknown, then a scanning-service outage", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: {
        scenario: "demo",
        scanDurationMs: (scan) => (scan.commitHash === SUPERSEDED_HEAD ? 120_000 : 1_000),
        retryAfterSeconds: 1,
        seed: 51,
      },
      settings: { serviceOutageMaxWaitMs: MAX_WAIT_MS, settleDelayMs: 300 },
    });
  });
  afterEach(() => applyFaults(h.sandbox.state, { errors: null, lostAnswers: null, outage: null }));
  afterAll(async () => h?.close());

  /** The check run on `head` once it says the service is unavailable (the launch waits for it). */
  function waitingRun(pr: { owner: string; repo: string }, head: string) {
    return h.waitFor(
      () =>
        checkRuns(h, pr.owner, pr.repo, head).find((c) =>
          c.output?.title?.startsWith("Scanning service unavailable"),
        ),
      20_000,
      "the check run saying the service is unavailable",
    );
  }

  /** Starts a long outage; ends it once the check run on `head` has waited past the limit without concluding. */
  async function outagePastMaxWait(pr: { owner: string; repo: string }, head: string, repositoryId: string) {
    applyFaults(h.sandbox.state, { outage: { durationMs: 10 * 60_000, retryAfterSeconds: 1 } });
    await waitingRun(pr, head);
    await sleep(MAX_WAIT_MS + 2_000);
    const [run, ...others] = checkRuns(h, pr.owner, pr.repo, head);
    expect(others).toEqual([]);
    expect(run?.status).toBe("in_progress");
    expect(run?.output?.title).toBe(UNCONFIRMED);
    expect(run?.output?.summary).toContain("looks the scan up in the service's scan list");
    // the monthly cap still holds the launch's reservation: the scan may exist and spend
    expect(holds(await capFields(h, repositoryId))).toHaveLength(1);
    applyFaults(h.sandbox.state, { outage: null });
  }

  it("the service created the scan, its answer was lost: the scan is found, followed and reported; nothing returned to the cap", async () => {
    const repositoryId = "repo_lost_created";
    const head = sha(0x5101);
    const posts = launchPosts(h);
    const lists = scanListReads(h);
    applyFaults(h.sandbox.state, { lostAnswers: { count: 1, route: LAUNCH } });
    const pr = await openPull(h, { head, repo: "lost-created", config: capped(h, repositoryId) });
    const scan = await h.waitFor(() => scansOf(h, head)[0], 20_000, "the scan the lost launch created");
    await outagePastMaxWait(pr, head, repositoryId);

    const run = await completedRun(h, pr.owner, pr.repo, head, 40_000);
    expect(run.externalId).toBe(scan.id);
    expect(run.output.title).not.toMatch(/not scanned|unavailable/i);
    expect(run.conclusion).toBe("failure"); // the demo scenario's findings, reported
    expect(h.sandbox.state.statusOf(scan)).toBe("COMPLETED"); // followed, never cancelled
    expect(scansOf(h, head)).toHaveLength(1);
    expect(launchPosts(h) - posts).toBe(1);
    expect(scanListReads(h) - lists).toBeGreaterThan(0);
    const fields = await capFields(h, repositoryId);
    expect(holds(fields)).toEqual([]);
    expect(boundTo(fields, scan.id)).toHaveLength(1);
    expect(fields[`c:${scan.id}`]).toBeDefined();
  }, 90_000);

  it("the service did not create the scan: after the outage the scan list shows none and the launch is sent once", async () => {
    const repositoryId = "repo_lost_refused";
    const head = sha(0x5121);
    const posts = launchPosts(h);
    applyFaults(h.sandbox.state, { errors: { count: 1, status: 503, route: LAUNCH } });
    const pr = await openPull(h, { head, repo: "lost-refused", config: capped(h, repositoryId) });
    await h.waitFor(() => launchPosts(h) > posts, 20_000, "the launch answered 503");
    await outagePastMaxWait(pr, head, repositoryId);
    expect(scansOf(h, head)).toEqual([]);

    const run = await completedRun(h, pr.owner, pr.repo, head, 40_000);
    const scans = scansOf(h, head);
    expect(scans).toHaveLength(1);
    expect(run.externalId).toBe(scans[0]!.id);
    expect(run.output.title).not.toMatch(/not scanned|unavailable/i);
    expect(launchPosts(h) - posts).toBe(2); // the refused one, then the one launch
    const fields = await capFields(h, repositoryId);
    expect(holds(fields)).toEqual([]); // the hold became the scan's count
    expect(boundTo(fields, scans[0]!.id)).toHaveLength(1);
  }, 90_000);

  it("superseded while its outcome is unknown: once the service answers, the scan is found, cancelled and settled", async () => {
    const repositoryId = "repo_lost_superseded";
    const newer = sha(0x5142);
    const posts = launchPosts(h);
    applyFaults(h.sandbox.state, { lostAnswers: { count: 1, route: LAUNCH } });
    const pr = await openPull(h, {
      head: SUPERSEDED_HEAD,
      repo: "lost-superseded",
      config: capped(h, repositoryId),
    });
    const lost = await h.waitFor(() => scansOf(h, SUPERSEDED_HEAD)[0], 20_000, "the lost launch's scan");
    applyFaults(h.sandbox.state, { outage: { durationMs: 10 * 60_000, retryAfterSeconds: 1 } });
    await waitingRun(pr, SUPERSEDED_HEAD);
    expect((await pushPull(h, pr, newer)).status).toBe(200);
    const old = await completedRun(h, pr.owner, pr.repo, SUPERSEDED_HEAD, 20_000);
    expect(old.conclusion).toBe("cancelled");
    applyFaults(h.sandbox.state, { outage: null });

    await h.waitFor(
      () => h.sandbox.state.statusOf(lost) === "CANCELLED",
      30_000,
      "the superseded scan cancelled",
    );
    const run = await completedRun(h, pr.owner, pr.repo, newer, 40_000);
    expect(run.externalId, run.output.title ?? "").toBe(scansOf(h, newer)[0]?.id);
    expect(scansOf(h, SUPERSEDED_HEAD)).toHaveLength(1);
    expect(launchPosts(h) - posts).toBe(2);
    // the cancelled scan counts what it spent under the cap: its hold bound to it, then settled
    const settled = await h.waitFor(
      async () => {
        const f = await capFields(h, repositoryId);
        return f[`f:${lost.id}`] === "1" ? f : undefined;
      },
      20_000,
      "the cancelled scan settled in the cap ledger",
    );
    expect(holds(settled)).toEqual([]);
    expect(boundTo(settled, lost.id)).toHaveLength(1);
    expect(Number(settled[`c:${lost.id}`])).toBe((lost.spentCredits ?? 0) - lost.refundedCredits);
  }, 90_000);
});

/**
 * A flapping service: the launch waits out one outage, the service answers, and the launch meets a second
 * outage more than DIFFWARD_SERVICE_OUTAGE_MAX_WAIT after the first began: the wait starts again from the
 * second (the first ended when the service answered), so the check run is not concluded "not scanned".
 */
describe("a flapping scanning service", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1, seed: 53 },
      settings: { serviceOutageMaxWaitMs: MAX_WAIT_MS },
    });
  });
  afterAll(async () => h?.close());

  it("clears the launch's outageSince once the service answered, and launches when it is back", async () => {
    const head = sha(0x5301);
    // Retry-After 2 s: the breaker's first probe comes 2 s after the launch first met the outage
    applyFaults(h.sandbox.state, { outage: { durationMs: 10 * 60_000, retryAfterSeconds: 2 } });
    const pr = await openPull(h, { head, repo: "flapping" });
    await h.waitFor(
      () =>
        checkRuns(h, pr.owner, pr.repo, head).find((c) => c.output?.title === "Scanning service unavailable"),
      20_000,
      "the check run saying the service is unavailable",
    );
    // The service answers the probe, then refuses the launch (a 503 before anything is created), and the
    // breaker stays open 2 s from then: past the limit counted from the first outage.
    applyFaults(h.sandbox.state, { outage: null, errors: { count: 1, status: 503, route: LAUNCH } });

    const run = await completedRun(h, pr.owner, pr.repo, head, 40_000);
    expect(h.sandbox.state.faults.errors?.remaining).toBe(0);
    expect(run.output.title).not.toMatch(/not scanned/i);
    expect(run.externalId).toBe(scansOf(h, head)[0]?.id);
    expect(scansOf(h, head)).toHaveLength(1);
    const pull = await h.booted.rt.stores.pulls.getPull(pullKey(pr.owner, pr.repo, pr.number));
    const launch = await h.booted.rt.queues.launch.getJob(pull!.launchJobId!);
    expect(launch?.data.outageSince).toBeUndefined();
  }, 90_000);
});
