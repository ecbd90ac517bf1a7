import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { applyFaults } from "../../dev/sandbox/index.js";
import type { FaultsInput } from "../../dev/sandbox/index.js";
import { expectExactlyOnce } from "../support/faults.js";
import { completedRun, seedPull } from "../support/pr.js";

const LAUNCH = "^POST /projects/[^/]+/scans$";
const READ = "^GET /projects/[^/]+/scans/[^/]+$";

/** Requests the sandbox answered with `status` on routes matching `re` (`stats.requests`). */
function answered(h: Harness, re: RegExp, status: number): number {
  return Object.entries(h.sandbox.state.stats.requests)
    .filter(([k]) => re.test(k))
    .reduce((n, [, byStatus]) => n + (byStatus[String(status)] ?? 0), 0);
}

/**
 * The scanning service answering 5xx bursts, slowly, and with 429 storms (sandbox faults): the scan is
 * launched once (a launch whose outcome is unknown is first looked up in the scan list), followed to the
 * end and reported once.
 */
describe("scanning service faults", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const cases: Array<[string, FaultsInput, (h: Harness) => void]> = [
    [
      "5xx burst on the launch (outcome unknown: looked up, then sent again)",
      { errors: { count: 2, statuses: [502, 503], route: LAUNCH } },
      (h) => expect(answered(h, /^POST .*\/scans$/, 502) + answered(h, /^POST .*\/scans$/, 503)).toBe(2),
    ],
    [
      "5xx burst on every route (token read, launch, reads)",
      { errors: { count: 3, statuses: [500] } },
      (h) => expect(answered(h, /./, 500)).toBe(3),
    ],
    [
      "5xx burst on scan reads",
      { errors: { count: 2, statuses: [503], route: READ } },
      (h) => expect(answered(h, /^GET .*\/scans\/[^/]+$/, 503)).toBe(2),
    ],
    [
      "429 storm on the launch (Retry-After waited, nothing spent meanwhile)",
      { rateLimits: { count: 3, retryAfterSeconds: 1, route: LAUNCH } },
      (h) => expect(answered(h, /^POST .*\/scans$/, 429)).toBe(3),
    ],
    [
      "429 storm on scan reads",
      { rateLimits: { count: 4, retryAfterSeconds: 1, route: READ } },
      (h) => expect(answered(h, /^GET .*\/scans\/[^/]+$/, 429)).toBe(4),
    ],
    [
      "slow answers (700 ms on every request)",
      { latencyMs: 700 },
      (h) => expect([200, 201, 202].reduce((n, st) => n + answered(h, /^POST .*\/scans$/, st), 0)).toBe(1),
    ],
  ];

  it.each(cases)("%s", async (_what, faults, check) => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 } });
    applyFaults(h.sandbox.state, faults);
    const head = "9".repeat(39) + "a";
    const pr = seedPull(h, { head });
    expect((await h.send("pull_request", pr.payload)).status).toBe(200);
    const done = await completedRun(h, pr.owner, pr.repo, head);
    expect(done.conclusion).toBe("failure");
    expectExactlyOnce(h, pr, head);
    check(h);
  });
});
