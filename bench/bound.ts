/**
 * The bound of `docs/benchmarks.md`: the best first feedback and report delay an ideal scheduler could give
 * the same pull requests under the same GitHub limits. From each pull request's webhook time and its scan's
 * completion time (both measured in the run), it simulates one installation's write slots (at least
 * `minGapMs` apart, at most `perMinute` in any minute and `perHour` in any hour; a write takes no time) and
 * spends each slot on, in order: completing the check run of a finished scan (oldest finish first), then
 * creating the check run of a pull request that has none (oldest webhook first): 2 writes per pull request,
 * nothing else (no progress, no review). Pure.
 */

/** One pull request of the run, times in ms since any common origin. */
export interface BoundInput {
  key: string;
  /** webhook sent */
  webhookAt: number;
  /** the scan reached a terminal status (absent: never finished; its completion is not scheduled) */
  scanDoneAt?: number;
}

/** GitHub's limits the bound respects (the same as diffward's write lane). */
export interface BoundLimits {
  minGapMs: number;
  perMinute: number;
  perHour: number;
}

/** Per pull request: webhook → check run created, and scan done → check run completed, in ms. */
export interface BoundResult {
  firstFeedbackMs: Map<string, number>;
  reportDelayMs: Map<string, number>;
}

/** Simulates the ideal scheduler (see the module). */
export function idealBound(pulls: readonly BoundInput[], limits: BoundLimits): BoundResult {
  const created = new Map<string, number>();
  const completed = new Map<string, number>();
  const sent: number[] = [];
  const byWebhook = [...pulls].sort((a, b) => a.webhookAt - b.webhookAt);
  const byDone = pulls
    .filter((p) => p.scanDoneAt !== undefined)
    .sort((a, b) => a.scanDoneAt! - b.scanDoneAt!);
  const total = byWebhook.length + byDone.length;
  let t = byWebhook.length ? byWebhook[0]!.webhookAt : 0;
  while (created.size + completed.size < total) {
    // the earliest time a slot is allowed at or after t
    const last = sent.at(-1);
    let slot = Math.max(t, last !== undefined ? last + limits.minGapMs : t);
    if (sent.length >= limits.perMinute)
      slot = Math.max(slot, sent[sent.length - limits.perMinute]! + 60_000);
    if (sent.length >= limits.perHour) slot = Math.max(slot, sent[sent.length - limits.perHour]! + 3_600_000);
    // the work ready at that slot: completions of finished scans whose check run exists, then creations
    const completion = byDone.find(
      (p) => !completed.has(p.key) && p.scanDoneAt! <= slot && (created.get(p.key) ?? Infinity) <= slot,
    );
    const creation = completion
      ? undefined
      : byWebhook.find((p) => !created.has(p.key) && p.webhookAt <= slot);
    if (completion) completed.set(completion.key, slot);
    else if (creation) created.set(creation.key, slot);
    else {
      // nothing ready: jump to the next event
      const next = Math.min(
        ...byWebhook.filter((p) => !created.has(p.key)).map((p) => p.webhookAt),
        ...byDone
          .filter((p) => !completed.has(p.key))
          .map((p) => Math.max(p.scanDoneAt!, created.get(p.key) ?? Infinity)),
      );
      if (!Number.isFinite(next)) break;
      t = Math.max(slot, next);
      continue;
    }
    sent.push(slot);
    t = slot;
  }
  const firstFeedbackMs = new Map<string, number>();
  const reportDelayMs = new Map<string, number>();
  for (const p of pulls) {
    const c = created.get(p.key);
    if (c !== undefined) firstFeedbackMs.set(p.key, c - p.webhookAt);
    const d = completed.get(p.key);
    if (d !== undefined && p.scanDoneAt !== undefined) reportDelayMs.set(p.key, d - p.scanDoneAt);
  }
  return { firstFeedbackMs, reportDelayMs };
}

/**
 * {@link idealBound} for pull requests of several installations: GitHub's limits are per installation
 * (docs: "About secondary rate limits"), so each installation's pull requests are simulated on their own
 * write slots and the per-pull-request figures merged (keys must be unique across installations). Pure.
 */
export function idealBoundByInstallation(
  pulls: readonly (BoundInput & { installationId: number })[],
  limits: BoundLimits,
): BoundResult {
  const groups = new Map<number, BoundInput[]>();
  for (const p of pulls) {
    const list = groups.get(p.installationId) ?? [];
    list.push(p);
    groups.set(p.installationId, list);
  }
  const out: BoundResult = { firstFeedbackMs: new Map(), reportDelayMs: new Map() };
  for (const group of groups.values()) {
    const r = idealBound(group, limits);
    for (const [k, v] of r.firstFeedbackMs) out.firstFeedbackMs.set(k, v);
    for (const [k, v] of r.reportDelayMs) out.reportDelayMs.set(k, v);
  }
  return out;
}
