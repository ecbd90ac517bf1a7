import { renderCapReached } from "../render/launch-refusals.js";
import type { ScannerTenant } from "../tenants/index.js";
import { monthWindow } from "../domain/month.js";
import { deductionsRead, readUsage, spendOf } from "./credits.js";
import type { LaunchRefusal } from "./preflight.js";
import type { MonthSeedEntry } from "../stores/cap-ledger.js";

const TERMINAL = new Set(["COMPLETED", "FAILED", "CANCELLED"]);

/**
 * Reads what a repository's scans of the current UTC month count against the cap, from the service, for a
 * cap ledger that has none (first use, or Redis lost its data): the repository's scans are found in the scan
 * list (newest first, stopping at the month's start), their spend in the usage ledger (read whole from the
 * oldest of them on: {@link readUsage}). A scan with no `SCAN_DEDUCTION` yet
 * (running, or its settlement not in) counts its `creditBudget` (`GET …/scans/{scanId}`), the most it can
 * spend (spec §What the service does: "the scan never spends more than its budget").
 * @throws the service client's errors (the launch job retries them).
 */
export async function readMonthSeed(
  tenant: ScannerTenant,
  repositoryId: string,
  now: number,
): Promise<MonthSeedEntry[]> {
  const { start } = monthWindow(now);
  const scans: Array<{ id: string; terminal: boolean }> = [];
  let oldest = now;
  for await (const scan of tenant.client.iterateScans(tenant.projectId, { limit: 100 })) {
    const createdAt = Date.parse(scan.createdAt);
    if (createdAt < start) break;
    if (scan.repositoryId !== repositoryId) continue;
    scans.push({ id: scan.id, terminal: TERMINAL.has(scan.status) });
    oldest = Math.min(oldest, createdAt);
  }
  if (scans.length === 0) return [];
  // a scan is settled after it was created: its ledger events are not older than the oldest scan
  const events = await readUsage(tenant, { from: oldest, to: now + 60_000 }, (read) =>
    deductionsRead(
      read,
      scans.map((s) => s.id),
    ),
  );
  const entries: MonthSeedEntry[] = [];
  for (const scan of scans) {
    const spend = spendOf(events, scan.id);
    if (spend.settled) entries.push({ scanId: scan.id, credits: spend.spent, settled: true });
    else {
      const detail = await tenant.client.getScan(tenant.projectId, scan.id);
      entries.push({ scanId: scan.id, credits: detail.scan.creditBudget ?? 0, settled: false });
    }
  }
  return entries;
}

/**
 * The settled spend of those of `scanIds` whose settlement is in the usage ledger of the UTC month of `now`
 * (ms; read whole, {@link readUsage}, until every scan's deduction is found), in credits; scans not settled
 * yet are left out.
 * @throws the service client's errors.
 */
export async function readSettledSpends(
  tenant: ScannerTenant,
  scanIds: readonly string[],
  now: number,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (scanIds.length === 0) return out;
  const events = await readUsage(tenant, { from: monthWindow(now).start, to: now + 60_000 }, (read) =>
    deductionsRead(read, scanIds),
  );
  for (const id of scanIds) {
    const spend = spendOf(events, id);
    if (spend.settled) out.set(id, spend.spent);
  }
  return out;
}

/** What the cap ledger counted when it refused a launch, in credits. */
export interface CapRefusalInput {
  /** `creditCap.monthly` */
  cap: number;
  /** settled spend plus budgets of scans in flight plus reservations, before this launch */
  counted: number;
  /** of `counted`, what scans in flight and launches not answered yet hold (their budgets) */
  held: number;
  /** the budget this launch needed: its `creditBudget`, or the preset's minimum when none is set */
  wanted: number;
  now: number;
}

/**
 * The check-run output of a launch the monthly cap refused (`action_required`): the cap, what is spent and
 * held by scans in flight, the budget this launch needed, when the cap resets (first day of the next UTC
 * month) and what to do. Pure.
 */
export function capRefusal(input: CapRefusalInput): LaunchRefusal {
  const resetsOn = new Date(monthWindow(input.now).next).toISOString().slice(0, 10);
  const { title, summary } = renderCapReached({ ...input, resetsOn });
  return { conclusion: "action_required", title, summary };
}
