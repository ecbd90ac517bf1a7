/** The first instant of the current calendar month and of the next one, UTC (ms). */
export function monthWindow(now: number): { start: number; next: number } {
  const d = new Date(now);
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    next: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}
