import type { LedgerEvent } from "../scanner/schemas.js";
import type { ScannerTenant } from "../tenants/index.js";
import { monthWindow } from "../domain/month.js";

/** Credits a scan actually spent, from the usage ledger (spec "Credit ledger event", "billing/usage"). */
export interface ScanSpend {
  /** deductions less refunds, in credits (≥ 0) */
  spent: number;
  /** false while no `SCAN_DEDUCTION` for the scan is in the ledger yet (settlement not in) */
  settled: boolean;
}

/**
 * Net spend of one scan from ledger events: `SCAN_DEDUCTION` (negative deltas) less `SCAN_REFUND`
 * (positive deltas) carrying its `scanId`. Pure.
 */
export function spendOf(events: readonly LedgerEvent[], scanId: string): ScanSpend {
  let net = 0;
  let settled = false;
  for (const e of events) {
    if (e.scanId !== scanId) continue;
    if (e.type === "SCAN_DEDUCTION") {
      settled = true;
      net += e.credits;
    } else if (e.type === "SCAN_REFUND") net += e.credits;
  }
  return { spent: Math.max(0, -net), settled };
}

/**
 * Reads a scan's spend from `GET …/billing/usage` (window: from `since` less one day to now; at most
 * 1,000 events, newest first).
 */
export async function readScanSpend(
  tenant: ScannerTenant,
  scanId: string,
  since: number,
  now = Date.now(),
): Promise<ScanSpend> {
  const usage = await tenant.client.getUsage(tenant.projectId, {
    from: new Date(since - 24 * 3600_000).toISOString(),
    to: new Date(now + 60_000).toISOString(),
    limit: 1000,
  });
  return spendOf(usage.events, scanId);
}

/**
 * Net credits spent this calendar month (UTC) by scans of one service repository: the scans of the
 * repository are found in the scan list (newest first, stopping at the month's start), their spend in
 * the usage ledger (deductions less refunds). Scans still running count once they settle.
 */
export async function repositoryMonthSpend(
  tenant: ScannerTenant,
  repositoryId: string,
  now = Date.now(),
): Promise<number> {
  const { start } = monthWindow(now);
  const scanIds = new Set<string>();
  for await (const scan of tenant.client.iterateScans(tenant.projectId, { limit: 100 })) {
    if (Date.parse(scan.createdAt) < start) break;
    if (scan.repositoryId === repositoryId) scanIds.add(scan.id);
  }
  if (scanIds.size === 0) return 0;
  const usage = await tenant.client.getUsage(tenant.projectId, {
    from: new Date(start).toISOString(),
    to: new Date(now + 60_000).toISOString(),
    limit: 1000,
  });
  let net = 0;
  for (const e of usage.events) {
    if (e.scanId && scanIds.has(e.scanId) && (e.type === "SCAN_DEDUCTION" || e.type === "SCAN_REFUND"))
      net += e.credits;
  }
  return Math.max(0, -net);
}
