/**
 * The month's spend the cap ledger is seeded from, read from the sandbox over HTTP (spec "billing/usage":
 * at most 1,000 events per request, newest first). A busy project has more than 1,000 ledger events in a
 * month; the scans whose settlement is older than the newest 1,000 must still count their settled spend,
 * not their whole budget.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../dev/sandbox/index.js";
import { readMonthSeed, readSettledSpends } from "../../src/policy/credit-cap.js";
import { readScanSpend, repositoryMonthSpend } from "../../src/policy/credits.js";
import { ScannerClient } from "../../src/scanner/index.js";
import type { ScannerTenant } from "../../src/tenants/index.js";

/** 10 June 2026, 12:00 UTC. */
const T0 = Date.UTC(2026, 5, 10, 12, 0, 0);

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((s) => s.close()));
});

async function setup() {
  const clock = { t: T0 };
  const sb = await startSandbox({ seed: 7, scanDurationMs: 1_000, retryAfterSeconds: 1, now: () => clock.t });
  sandboxes.push(sb);
  const client = new ScannerClient({ baseUrl: sb.url, token: "sandbox-token", timeoutMs: 5_000 });
  const token = await client.getToken();
  const tenant: ScannerTenant = { client, projectId: token.project.id, token };
  return { sb, clock, tenant };
}

/** Launches a diff scan of `repo_demo`, completes it now and returns it with its settled spend (credits). */
async function settledScan(ctx: Awaited<ReturnType<typeof setup>>) {
  const { scanId } = await ctx.tenant.client.launchScan(ctx.tenant.projectId, {
    repositoryId: "repo_demo",
    presetRef: "diff-standard",
    baseCommit: "develop",
    creditBudget: 30,
  });
  const scan = ctx.sb.state.completeNow(scanId);
  expect(scan.settled).toBe(true);
  return { scanId, spent: (scan.spentCredits ?? 0) - scan.refundedCredits };
}

/** `count` project ledger events (purchases of 1 credit), one a second. */
function busyLedger(ctx: Awaited<ReturnType<typeof setup>>, count: number): void {
  for (let i = 0; i < count; i += 1) {
    ctx.clock.t += 1_000;
    ctx.sb.state.purchase(1, ctx.tenant.projectId);
  }
}

describe("the usage ledger of a busy project is read whole", () => {
  it("a scan settled before the newest 1,000 events of the month counts its settled spend", async () => {
    const ctx = await setup();
    const early = await settledScan(ctx);
    expect(early.spent).toBeLessThan(30);
    busyLedger(ctx, 1_500);
    const late = await settledScan(ctx);
    const now = ctx.clock.t;

    const seed = await readMonthSeed(ctx.tenant, "repo_demo", now);
    expect(seed).toEqual(
      expect.arrayContaining([
        { scanId: early.scanId, credits: early.spent, settled: true },
        { scanId: late.scanId, credits: late.spent, settled: true },
      ]),
    );
    const settled = await readSettledSpends(ctx.tenant, [early.scanId, late.scanId], now);
    expect(settled).toEqual(
      new Map([
        [early.scanId, early.spent],
        [late.scanId, late.spent],
      ]),
    );
    expect(await repositoryMonthSpend(ctx.tenant, "repo_demo", now)).toBe(early.spent + late.spent);
    const launchedAt = ctx.sb.state.scans.get(early.scanId)!.createdAtMs;
    expect(await readScanSpend(ctx.tenant, early.scanId, launchedAt, now)).toEqual({
      spent: early.spent,
      settled: true,
    });
  });
});
