import type { LedgerEvent } from "../scanner/schemas.js";
import type { ScannerTenant } from "../tenants/index.js";
import { monthWindow } from "../domain/month.js";

/** Credits a scan actually spent, from the usage ledger (spec §Credit ledger event, §Billing). */
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

/** Events per `GET …/billing/usage` request: the most the service returns (spec "billing/usage" `limit`). */
export const USAGE_PAGE_EVENTS = 1000;
/** Most requests one {@link readUsage} makes (100,000 events); past it the oldest events are not read. */
export const USAGE_MAX_PAGES = 100;

/**
 * Every event of the project's usage ledger in a window, read whole: the service returns at most 1,000
 * events per request, newest first (spec "billing/usage"), so while a request comes back full the next
 * one asks for the events up to the oldest one it returned (inclusive or not, the events at that instant
 * are asked again and counted once, by id). Stops early when `enough(events)` says the events read so far
 * (newest first) answer the caller, and after {@link USAGE_MAX_PAGES} requests.
 * @param window `from` and `to` in ms since the epoch.
 * @returns the events, each once, newest first.
 * @throws the service client's errors.
 */
export async function readUsage(
  tenant: ScannerTenant,
  window: { from: number; to: number },
  enough?: (events: readonly LedgerEvent[]) => boolean,
): Promise<LedgerEvent[]> {
  const byId = new Map<string, LedgerEvent>();
  let to = window.to;
  for (let page = 0; page < USAGE_MAX_PAGES; page += 1) {
    const { events } = await tenant.client.getUsage(tenant.projectId, {
      from: new Date(window.from).toISOString(),
      to: new Date(to).toISOString(),
      limit: USAGE_PAGE_EVENTS,
    });
    let added = 0;
    for (const e of events)
      if (!byId.has(e.id)) {
        byId.set(e.id, e);
        added += 1;
      }
    if (events.length < USAGE_PAGE_EVENTS || added === 0) break;
    if (enough?.([...byId.values()])) break;
    // up to and including the oldest instant returned: the events there may go on past the page's end
    to = Math.min(...events.map((e) => Date.parse(e.at))) + 1;
  }
  return [...byId.values()];
}

/**
 * True once every scan of `scanIds` has its `SCAN_DEDUCTION` among `events` (read newest first, so its
 * refunds, which follow the deduction, are read already).
 */
export function deductionsRead(events: readonly LedgerEvent[], scanIds: Iterable<string>): boolean {
  const deducted = new Set(events.filter((e) => e.type === "SCAN_DEDUCTION").map((e) => e.scanId));
  for (const id of scanIds) if (!deducted.has(id)) return false;
  return true;
}

/**
 * Reads a scan's spend from the usage ledger ({@link readUsage}, window: from `since` less one day to a
 * minute past `now`, ms).
 */
export async function readScanSpend(
  tenant: ScannerTenant,
  scanId: string,
  since: number,
  now = Date.now(),
): Promise<ScanSpend> {
  const events = await readUsage(tenant, { from: since - 24 * 3600_000, to: now + 60_000 }, (read) =>
    deductionsRead(read, [scanId]),
  );
  return spendOf(events, scanId);
}

/**
 * Net credits spent this calendar month (UTC) by scans of one service repository: the scans of the
 * repository are found in the scan list (newest first, stopping at the month's start), their spend in
 * the usage ledger ({@link readUsage}: deductions less refunds). Scans still running count once they settle.
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
  const events = await readUsage(tenant, { from: start, to: now + 60_000 }, (read) =>
    deductionsRead(read, scanIds),
  );
  let net = 0;
  for (const e of events) {
    if (e.scanId && scanIds.has(e.scanId) && (e.type === "SCAN_DEDUCTION" || e.type === "SCAN_REFUND"))
      net += e.credits;
  }
  return Math.max(0, -net);
}
