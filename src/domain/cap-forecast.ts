/**
 * When a monthly credit cap is reached at the month's pace (pure). `creditCap.monthly` caps a repository's
 * spend per calendar month, UTC (README "creditCap.monthly"); the pace is the month's spend so far divided by
 * the time elapsed since the month's first instant, and the forecast is the instant the spend, going on at
 * that pace, meets the cap.
 */
import { monthWindow } from "./month.js";

/** The forecast of one cap ({@link forecastCapDay}). */
export type CapForecast =
  /** no `creditCap.monthly`: nothing to reach */
  | { kind: "no-cap" }
  /** nothing spent this month yet: no pace to extrapolate */
  | { kind: "no-spend"; cap: number }
  /** the month's spend is at or over the cap already */
  | { kind: "reached"; cap: number; spent: number }
  /** at this pace the cap is reached on `date` (`YYYY-MM-DD`, UTC), `day` of the month */
  | { kind: "this-month"; cap: number; spent: number; date: string; day: number; at: number }
  /** at this pace the month ends first: the cap is not reached this month */
  | { kind: "not-this-month"; cap: number; spent: number; monthEndSpend: number };

/**
 * Forecasts the day a monthly cap is reached at the month's pace.
 * @param spent the month's spend so far, in credits (settled spend and budgets of scans not settled yet)
 * @param cap the cap, in credits, or `undefined` when there is none
 * @param now ms since the epoch
 * @returns `reached` when `spent ≥ cap`; else the instant `now + (cap − spent) / pace`, with
 *   `pace = spent / (now − month start)`, when it falls before the next month's first instant; else
 *   `not-this-month` with the spend the month ends on at that pace (rounded down).
 */
export function forecastCapDay(spent: number, cap: number | undefined, now: number): CapForecast {
  if (cap === undefined) return { kind: "no-cap" };
  if (spent >= cap) return { kind: "reached", cap, spent };
  if (spent <= 0) return { kind: "no-spend", cap };
  const { start, next } = monthWindow(now);
  const elapsed = Math.max(1, now - start);
  const pace = spent / elapsed;
  const at = now + (cap - spent) / pace;
  if (at >= next)
    return { kind: "not-this-month", cap, spent, monthEndSpend: Math.floor(pace * (next - start)) };
  const date = new Date(at).toISOString().slice(0, 10);
  return { kind: "this-month", cap, spent, date, day: new Date(at).getUTCDate(), at: Math.floor(at) };
}

/**
 * The last `count` UTC months up to the one of `now`, oldest first, as `YYYY-MM` (pure).
 * @param now ms since the epoch
 */
export function lastMonths(now: number, count: number): string[] {
  const d = new Date(now);
  const out: string[] = [];
  for (let i = count - 1; i >= 0; i -= 1)
    out.push(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - i, 1)).toISOString().slice(0, 7));
  return out;
}
