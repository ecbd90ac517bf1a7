import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { checkRuns, launchedScan, openPull, pushPull, sha, type Payload } from "../support/pr.js";

/**
 * A scan diffward stops following (a newer head, a close) while the account's scanner token is missing from
 * the tokens file for a moment: the scan runs on and spends, so its cancel waits for the token instead of
 * being dropped.
 */
describe("a stop while the account's scanner token is missing", () => {
  let h: Harness;
  let gap = false;
  // every pull request of these tests is in the real example's repository owner's account
  const owner = (webhookExample("pull_request", "opened") as Payload).repository.owner.login as string;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 60_000, retryAfterSeconds: 1 },
      boot: {
        scannerToken: undefined,
        scannerTokens: () => (gap ? {} : { [owner]: "sandbox-token" }),
      },
      settings: { tokenGapWaitMs: 20_000 },
    });
  });
  afterAll(async () => h?.close());

  const scan = (id: string) => h.sandbox.state.scans.get(id)!;

  it(
    "a push during the gap: the old head's scan is cancelled once the token is back",
    { timeout: 60_000 },
    async () => {
      const head = sha(0x4c1);
      const pr = await openPull(h, { head, repo: "gap-push" });
      const scanId = await launchedScan(h, head);
      gap = true;
      try {
        await pushPull(h, pr, sha(0x4c2));
        // the new head is concluded without a scan (no token), the old check run superseded
        await h.waitFor(
          () => checkRuns(h, pr.owner, pr.repo, sha(0x4c2)).find((c) => c.status === "completed"),
          15_000,
          "the new head's check run",
        );
        expect(scan(scanId).cancelRequests).toBe(0);
      } finally {
        gap = false;
      }
      await h.waitFor(() => scan(scanId).cancelRequests > 0, 15_000, "the old head's scan cancelled");
      expect(h.sandbox.state.statusOf(scan(scanId))).toBe("CANCELLED");
    },
  );

  it(
    "a close during the gap: the scan is cancelled once the token is back",
    { timeout: 60_000 },
    async () => {
      const head = sha(0x4c3);
      const pr = await openPull(h, { head, repo: "gap-close" });
      const scanId = await launchedScan(h, head);
      gap = true;
      try {
        const p: Payload = webhookExample("pull_request", "closed");
        p.repository = pr.payload.repository;
        p.installation = pr.payload.installation;
        p.number = pr.number;
        p.pull_request = { ...pr.payload.pull_request, state: "closed", merged: false };
        p.pull_request.updated_at = new Date(Date.now() + 1_000).toISOString();
        h.github.state.pullRequest(pr.owner, pr.repo, pr.number)!.state = "closed";
        await h.send("pull_request", p);
        await h.waitFor(
          () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.status === "completed"),
          15_000,
          "the check run concluded",
        );
        expect(scan(scanId).cancelRequests).toBe(0);
      } finally {
        gap = false;
      }
      await h.waitFor(() => scan(scanId).cancelRequests > 0, 15_000, "the scan cancelled");
      expect(h.sandbox.state.statusOf(scan(scanId))).toBe("CANCELLED");
    },
  );
});
