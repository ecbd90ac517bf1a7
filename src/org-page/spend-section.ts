/**
 * The spend section from the recorded spends (pure): per repository and month with the pull requests that
 * spent it, and, for an organization-wide viewer, this month's total and each cap's forecast.
 */
import { forecastCapDay } from "../domain/cap-forecast.js";
import type { CapRow, PullSpend, RepoSpend, SpendSection } from "./page-model.js";
import type { ScanSpendRecord } from "../stores/org-records.js";

/** One month's records as `OrgRecords.monthSpend` reads them. */
export interface MonthRecords {
  month: string;
  scans: readonly ScanSpendRecord[];
  caps: ReadonlyMap<string, number>;
}

/**
 * Builds the spend section.
 * @param months the months shown, oldest first, the current one last (each present in `records`)
 * @param visible the viewer's repository filter; other repositories count in `monthSpent` only
 * @param now ms since the epoch (the forecast's pace)
 */
export function spendSection(
  records: readonly MonthRecords[],
  visible: (repository: string) => boolean,
  orgWide: boolean,
  now: number,
): SpendSection {
  const months = records.map((r) => r.month);
  const current = records[records.length - 1];
  const byRepo = new Map<string, Map<string, Map<number, PullSpend>>>();
  for (const { month, scans } of records)
    for (const s of scans) {
      if (!visible(s.repository)) continue;
      const repo = byRepo.get(s.repository) ?? new Map<string, Map<number, PullSpend>>();
      byRepo.set(s.repository, repo);
      const pulls = repo.get(month) ?? new Map<number, PullSpend>();
      repo.set(month, pulls);
      const p = pulls.get(s.pullNumber) ?? { pullNumber: s.pullNumber, credits: 0, settled: true };
      pulls.set(s.pullNumber, { ...p, credits: p.credits + s.credits, settled: p.settled && s.settled });
    }
  const repositories: RepoSpend[] = [...byRepo.entries()].map(([repository, perMonth]) => {
    const rows = months.map((month) => {
      const pulls = [...(perMonth.get(month)?.values() ?? [])].sort(
        (a, b) => b.credits - a.credits || a.pullNumber - b.pullNumber,
      );
      return { month, credits: pulls.reduce((n, p) => n + p.credits, 0), pulls };
    });
    return { repository, months: rows, total: rows.reduce((n, m) => n + m.credits, 0) };
  });
  repositories.sort((a, b) => b.total - a.total || a.repository.localeCompare(b.repository));
  return {
    month: current?.month ?? "",
    months,
    monthSpent: orgWide && current ? current.scans.reduce((n, s) => n + s.credits, 0) : null,
    caps: orgWide && current ? capRows(current, visible, now) : [],
    repositories,
  };
}

/** Each repository with a cap this month, its spend and the forecast of the day it is reached. */
function capRows(current: MonthRecords, visible: (repository: string) => boolean, now: number): CapRow[] {
  const spent = new Map<string, number>();
  for (const s of current.scans) spent.set(s.repository, (spent.get(s.repository) ?? 0) + s.credits);
  return [...current.caps.entries()]
    .filter(([repository]) => visible(repository))
    .map(([repository, cap]) => {
      const n = spent.get(repository) ?? 0;
      return { repository, cap, spent: n, forecast: forecastCapDay(n, cap, now) };
    })
    .sort((a, b) => b.spent / b.cap - a.spent / a.cap || a.repository.localeCompare(b.repository));
}
