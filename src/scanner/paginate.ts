/**
 * Following a paged listing of the service (spec §Scans, §Findings: `items`, `page` from 1, `limit`, `total`;
 * spec §Limits) under the client's caps on untrusted answers.
 */
import { ScannerLimitError } from "./errors.js";

/**
 * Yields every item of every page until `total` is reached or a page comes back short or empty, at most
 * `maxPages` pages and `maxItems` items.
 *
 * @throws {ScannerLimitError} (`pages` or `items`) when the listing goes on past a cap.
 */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<{ items: T[]; total: number; limit: number }>,
  caps: { maxPages: number; maxItems: number },
  endpoint: string,
): AsyncGenerator<T> {
  let seen = 0;
  for (let page = 1; ; page++) {
    if (page > caps.maxPages) throw new ScannerLimitError(endpoint, "pages", caps.maxPages);
    const p = await fetchPage(page);
    if (seen + p.items.length > caps.maxItems) throw new ScannerLimitError(endpoint, "items", caps.maxItems);
    yield* p.items;
    seen += p.items.length;
    if (p.items.length === 0 || seen >= p.total || p.items.length < p.limit) return;
  }
}
