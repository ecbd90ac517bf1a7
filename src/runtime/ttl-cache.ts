/**
 * A cache of answers from outside systems, per key, each kept `ttlMs` (ms) from when it was asked: the
 * organization's page asks the service's billing balance and GitHub at most once per installation per minute,
 * whatever the viewers and reloads; a team membership is read at most once a minute. Concurrent asks share one request; a failed ask is not kept (the next one asks again).
 */
export class TtlCache<T> {
  readonly #entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor(
    readonly ttlMs: number,
    readonly now: () => number = Date.now,
  ) {}

  /** The kept answer of `key` when younger than `ttlMs`, else the answer of `load()` (then kept). */
  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = load();
    const entry = { at: this.now(), value };
    this.#entries.set(key, entry);
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    // keep the map small: drop answers past their time
    if (this.#entries.size > 1_000)
      for (const [k, e] of this.#entries) if (this.now() - e.at >= this.ttlMs) this.#entries.delete(k);
    return value;
  }
}

/**
 * `value` when it settles within `budgetMs` (ms), else `fallback()`: the page never waits longer than its
 * budget for an outside system (a slow service or GitHub would hold it for their whole client timeout). The
 * answer still lands in its {@link TtlCache} entry, so a reload a moment later shows it.
 */
export async function within<T>(value: Promise<T>, budgetMs: number, fallback: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback()), budgetMs);
  });
  try {
    return await Promise.race([value, late]);
  } finally {
    clearTimeout(timer);
  }
}
