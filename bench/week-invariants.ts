/**
 * The invariants `npm run bench -- --week` checks once the week has drained, as pure functions of what the
 * GitHub stand-in, the sandbox, Redis and the processes' samples showed. Each gives one row of the table:
 * what was measured, the target, and whether it holds.
 */
import { percentile } from "./lib.js";

/** One row of the week's table. */
export interface InvariantRow {
  figure: string;
  target: string;
  measured: string;
  met: boolean | null;
}

/** A `diffward` check run as the stand-in holds it, and the completing PATCHes it received. */
export interface RunFact {
  id: number;
  headSha: string;
  status: string;
  conclusion: string | null;
  /** requests that set a conclusion on it */
  completions: number;
  /** unfinished when its installation was removed (GitHub refuses the old installation; the reinstall ends it) */
  leftByUninstall: boolean;
  /** the scan it reports (`external_id`), when it names one */
  externalId?: string;
}

/** A scan as the sandbox holds it. */
export interface ScanFact {
  id: string;
  commitHash: string;
  finalStatus: "COMPLETED" | "FAILED" | "CANCELLED" | null;
  /** cancel requests received after a read answered its terminal status */
  cancelsAfterEndRead: number;
  settled: boolean;
  /** credits spent minus credits refunded, once settled */
  netCredits: number;
}

/** Everything the checks read. */
export interface WeekFacts {
  runs: RunFact[];
  /** the newest head of every pull request open at the end */
  openHeads: Array<{ key: string; headSha: string }>;
  scans: ScanFact[];
  /**
   * finding-thread commands sent per head SHA: each may complete that head's check run once more, in place,
   * with the verdict it recomputes (`src/triage/check.ts`), which is not a second report
   */
  findingCommands: Map<string, number>;
  /** `/rescan` commands sent per head SHA (each may launch one more scan of that head) */
  rescans: Map<string, number>;
  /** the sum of the organization's SCAN_DEDUCTION and SCAN_REFUND ledger events (negative: spent) */
  ledgerScanCredits: number;
  /** per place a command was written (a thread's root comment, a conversation): commands sent, answers seen */
  /**
   * per thread or conversation: commands written, diffward's answers, and the commands whose job ran after
   * the uninstall was processed (`installation-removed`: GitHub refuses the removed installation's token, so
   * nothing can be answered; counted apart, as check runs left by the uninstall are)
   */
  commandPlaces: Array<{ place: string; commands: number; answers: number; leftByUninstall?: number }>;
  /** diffward's own keys without a TTL (PTTL −1), BullMQ's aside */
  keysWithoutEnd: string[];
  ownKeys: number;
  /** per process: its RSS samples over the week */
  processes: Array<{
    name: string;
    samples: Array<{
      at: number;
      rssBytes: number;
      heapUsedBytes?: number;
      heapTotalBytes?: number;
      externalBytes?: number;
    }>;
  }>;
  /** the week's wall window, epoch ms */
  window: { from: number; to: number };
  /** answer times, ms: the web process's first window (cold), the idle window after it, the week's windows */
  /**
   * answer times in ms: the cold window, the idle one, the week's windows together and, when given, each
   * of them apart (`weekWindowsMs`, in order)
   */
  ack: {
    coldMs: number[];
    idleMs: number[];
    weekMs: number[];
    weekWindowsMs?: number[][];
    failed: number;
    /**
     * the same windows timed inside diffward's web process (`diffward_webhook_duration_seconds`, every
     * delivery of the window): the p99's bucket bound in ms ({@link serverP99Ms}), when scraped
     */
    server?: { idleP99Ms?: number; weekP99Ms?: number[] };
  };
}

/** A histogram's cumulative buckets as scraped: upper bound in seconds (`Infinity` for `+Inf`) → count. */
export type Buckets = Map<number, number>;

/**
 * The cumulative buckets of `diffward_webhook_duration_seconds` in a Prometheus text exposition, summed over
 * its events. Pure.
 */
export function webhookBuckets(text: string): Buckets {
  const out: Buckets = new Map();
  for (const line of text.split("\n")) {
    const m = /^diffward_webhook_duration_seconds_bucket\{(.*)\} (\S+)$/.exec(line);
    const le = m && /(?:^|,)le="([^"]+)"/.exec(m[1]!)?.[1];
    if (!m || !le) continue;
    const bound = le === "+Inf" ? Infinity : Number(le);
    out.set(bound, (out.get(bound) ?? 0) + Number(m[2]));
  }
  return out;
}

/**
 * The p99 of what was observed between two scrapes, as the bound of the first bucket that holds 99 % of it,
 * in ms (a histogram gives no finer answer); `undefined` when nothing was observed. Pure.
 */
export function serverP99Ms(before: Buckets, after: Buckets): number | undefined {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  if (total <= 0) return undefined;
  for (const b of bounds) if ((after.get(b) ?? 0) - (before.get(b) ?? 0) >= 0.99 * total) return b * 1000;
  return Infinity;
}

const list = (xs: readonly string[], n = 5) =>
  xs.length > n ? `${xs.slice(0, n).join(", ")} …` : xs.join(", ");

/** Open pull requests whose newest head is not reported exactly once, with what its check runs show. */
export function wronglyReported(f: WeekFacts): Array<{ key: string; headSha: string; why: string }> {
  const byHead = new Map<string, RunFact[]>();
  for (const r of f.runs) byHead.set(r.headSha, [...(byHead.get(r.headSha) ?? []), r]);
  const wrong: Array<{ key: string; headSha: string; why: string }> = [];
  for (const h of f.openHeads) {
    const runs = byHead.get(h.headSha) ?? [];
    // a triage recompute whose annotations change posts the same scan's report in a fresh check run (GitHub
    // appends annotations: src/triage/check.ts): one report per scan reported
    const reported = [
      ...new Map(
        runs
          .filter((r) => r.status === "completed" && r.conclusion !== "cancelled")
          .map((r) => [r.externalId ?? `run-${r.id}`, r]),
      ).values(),
    ];
    const twice = runs.some((r) => r.completions > 1 + (f.findingCommands.get(h.headSha) ?? 0));
    if (reported.length === 0 || reported.length > 1 + (f.rescans.get(h.headSha) ?? 0) || twice)
      wrong.push({
        ...h,
        why: `${reported.length} reported${twice ? ", completed twice" : ""}; runs: ${runs.map((r) => r.conclusion ?? r.status).join(", ") || "none"}`,
      });
  }
  return wrong;
}

/** Heads launched more often than allowed (once, plus each `/rescan`, plus the reinstall's relaunch), with the count. */
export function launchedTwice(f: WeekFacts): Array<[string, number]> {
  const perHead = new Map<string, number>();
  for (const s of f.scans) perHead.set(s.commitHash, (perHead.get(s.commitHash) ?? 0) + 1);
  // a head whose check run the uninstall left unfinished is launched once more by the reinstall, by design
  // (src/scan/reinstall.ts: its scan was cancelled, or it never reached the service)
  const reinstalled = new Set(f.runs.filter((r) => r.leftByUninstall).map((r) => r.headSha));
  const allowed = (sha: string) => 1 + (f.rescans.get(sha) ?? 0) + (reinstalled.has(sha) ? 1 : 0);
  return [...perHead].filter(([sha, n]) => n > allowed(sha));
}

function checkRunsRows(f: WeekFacts): InvariantRow[] {
  // the check runs the uninstall left unfinished count like the others: the reinstall ends them
  const open = f.runs.filter((r) => r.status !== "completed");
  const left = f.runs.filter((r) => r.leftByUninstall);
  const leftEnded = left.filter((r) => r.status === "completed").length;
  const wrong = wronglyReported(f).map((h) => `${h.key}@${h.headSha.slice(0, 8)} (${h.why})`);
  return [
    {
      figure: "check runs completed",
      target: "all",
      measured: `${f.runs.length - open.length}/${f.runs.length}${left.length ? ` (of which ${left.length} left unfinished by the uninstall, ${leftEnded} ended after the reinstall)` : ""}${open.length ? `; open: ${list(open.map((r) => `${r.id}@${r.headSha.slice(0, 7)}`))}` : ""}`,
      met: open.length === 0,
    },
    {
      figure: "pull requests whose newest head is reported exactly once",
      target: "all open ones",
      measured: `${f.openHeads.length - wrong.length}/${f.openHeads.length}${wrong.length ? `; not: ${list(wrong)}` : ""}`,
      met: wrong.length === 0,
    },
  ];
}

function scanRows(f: WeekFacts): InvariantRow[] {
  const twice = launchedTwice(f);
  const cancelledFinished = f.scans.filter((s) => s.cancelsAfterEndRead > 0);
  const unsettled = f.scans.filter((s) => s.finalStatus !== null && !s.settled);
  const settlements = f.scans.reduce((a, s) => a + (s.settled ? s.netCredits : 0), 0);
  const spent = -f.ledgerScanCredits;
  return [
    {
      figure: "scans launched twice (same head, no /rescan, no reinstall)",
      target: "0",
      measured: `${twice.length} of ${f.scans.length} scans${twice.length ? `: ${list(twice.map(([s, n]) => `${s.slice(0, 7)}×${n}`))}` : ""}`,
      met: twice.length === 0,
    },
    {
      figure: "finished scans cancelled (cancel after a read showed the end)",
      target: "0",
      measured: `${cancelledFinished.length}${cancelledFinished.length ? `: ${list(cancelledFinished.map((s) => s.id))}` : ""}`,
      met: cancelledFinished.length === 0,
    },
    {
      figure: "credits spent (billing ledger) = launched scans' settlements",
      target: "equal; every ended scan settled",
      measured: `${spent} = ${settlements}; unsettled ended scans ${unsettled.length}`,
      met: spent === settlements && unsettled.length === 0,
    },
  ];
}

/** RSS growth of one process: mean of the last quarter of the window over the mean of the second, minus 1. */
export function rssGrowth(
  samples: ReadonlyArray<{ at: number; rssBytes: number }>,
  from: number,
  to: number,
): number {
  const [second, last] = quarters(samples, from, to, (s) => s.rssBytes, mean);
  return last / second - 1;
}

/**
 * A quarter's figure of the samples in the second and in the last quarter of the window: `of` reads a sample's
 * value (`undefined`: left out), `figure` reduces the quarter's values (`NaN` for none).
 */
function quarters<S extends { at: number }>(
  samples: readonly S[],
  from: number,
  to: number,
  of: (s: S) => number | undefined,
  figure: (xs: number[]) => number,
): [number, number] {
  const q = (to - from) / 4;
  const values = (a: number, b: number) =>
    samples.filter((s) => s.at >= a && s.at < b).flatMap((s) => (of(s) === undefined ? [] : [of(s)!]));
  return [figure(values(from + q, from + 2 * q)), figure(values(from + 3 * q, to + 1))];
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((x, y) => x + y, 0) / xs.length : Number.NaN);
const lowest = (xs: number[]) => (xs.length ? Math.min(...xs) : Number.NaN);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

function processRows(f: WeekFacts): InvariantRow[] {
  return f.processes.flatMap((p) => {
    const g = rssGrowth(p.samples, f.window.from, f.window.to);
    const [rss2, rss4] = quarters(p.samples, f.window.from, f.window.to, (s) => s.rssBytes, mean);
    // the heap's floor: its lowest sample in a quarter, after the collections in it (what stays live)
    const [heap2, heap4] = quarters(p.samples, f.window.from, f.window.to, (s) => s.heapUsedBytes, lowest);
    return [
      {
        figure: `RSS growth, ${p.name}: last quarter ÷ second quarter − 1`,
        target: "< 10 %",
        measured: Number.isFinite(g)
          ? `${(100 * g).toFixed(1)} % (${mb(rss2)} → ${mb(rss4)})`
          : "no samples in a quarter",
        met: Number.isFinite(g) && g < 0.1,
      },
      ...(Number.isFinite(heap2) && Number.isFinite(heap4)
        ? [
            {
              figure: `V8 heap in use, lowest sample, ${p.name}: second quarter → last quarter`,
              target: "–",
              measured: `${mb(heap2)} → ${mb(heap4)} (${(100 * (heap4 / heap2 - 1)).toFixed(1)} %)`,
              met: null,
            },
          ]
        : []),
      ...partsRow(f, p),
    ];
  });
}

/**
 * Where a process's RSS sits, each part's mean in the second and the last quarter: the pages V8 holds for its
 * heap (`heapTotal`), memory bound to JS objects outside it (`external`: Buffers, ArrayBuffers) and the rest
 * (RSS less both: the allocator's arenas, code, stacks). A growth in the rest with the other two flat is
 * native memory, not a JS leak. No row without the samples' parts.
 */
function partsRow(f: WeekFacts, p: WeekFacts["processes"][number]): InvariantRow[] {
  const part = (of: (s: (typeof p.samples)[number]) => number | undefined) =>
    quarters(p.samples, f.window.from, f.window.to, of, mean);
  const held = part((s) => s.heapTotalBytes);
  const external = part((s) => s.externalBytes);
  const rest = part((s) =>
    s.heapTotalBytes === undefined || s.externalBytes === undefined
      ? undefined
      : s.rssBytes - s.heapTotalBytes - s.externalBytes,
  );
  if (![...held, ...external, ...rest].every(Number.isFinite)) return [];
  const tell = ([a, b]: [number, number]) => `${mb(a)} → ${mb(b)}`;
  return [
    {
      figure: `RSS by part, mean, ${p.name}: second quarter → last quarter`,
      target: "–",
      measured: `V8 heap held ${tell(held)}; external ${tell(external)}; rest (native) ${tell(rest)}`,
      met: null,
    },
  ];
}

/** The answers a thread or conversation is owed: its commands, less those run after the uninstall. Pure. */
export function owedAnswers(p: WeekFacts["commandPlaces"][number]): number {
  return p.commands - (p.leftByUninstall ?? 0);
}

/** Every invariant of the week, in the table's order. */
export function checkWeek(f: WeekFacts): InvariantRow[] {
  const unanswered = f.commandPlaces.filter((p) => p.answers !== owedAnswers(p));
  const commands = f.commandPlaces.reduce((a, p) => a + p.commands, 0);
  const left = f.commandPlaces.reduce((a, p) => a + (p.leftByUninstall ?? 0), 0);
  const p99 = (xs: number[]) => percentile(xs, 99);
  const ms = (xs: number[]) =>
    `p50 ${percentile(xs, 50).toFixed(1)} / p99 ${p99(xs).toFixed(1)} ms (${xs.length})`;
  return [
    ...checkRunsRows(f),
    ...scanRows(f),
    {
      figure: "commands answered once (answers = commands in each thread and conversation)",
      target: "all",
      measured: `${commands} commands in ${f.commandPlaces.length} places${left ? ` (${left} written before the uninstall, run after it: not answerable)` : ""}; ${unanswered.length} places differ${unanswered.length ? `: ${list(unanswered.map((p) => `${p.place} ${p.answers}/${owedAnswers(p)}`))}` : ""}`,
      met: unanswered.length === 0,
    },
    {
      figure: "diffward's Redis keys without an end (TTL), BullMQ's own aside",
      target: "0",
      measured: `${f.keysWithoutEnd.length} of ${f.ownKeys}${f.keysWithoutEnd.length ? `: ${list(f.keysWithoutEnd)}` : ""}`,
      met: f.keysWithoutEnd.length === 0,
    },
    ...processRows(f),
    {
      figure: "webhook acknowledgement at 100 deliveries/s, a new web process's first 10 s (cold)",
      target: "–",
      measured: ms(f.ack.coldMs),
      met: null,
    },
    {
      figure: "webhook acknowledgement at 100 deliveries/s, idle",
      target: "p99 < 50 ms",
      measured:
        ms(f.ack.idleMs) +
        (f.ack.server?.idleP99Ms !== undefined
          ? `; inside the web process p99 ≤ ${f.ack.server.idleP99Ms} ms`
          : ""),
      met: f.ack.idleMs.length > 0 && p99(f.ack.idleMs) < 50,
    },
    {
      figure: "webhook acknowledgement at 100 deliveries/s, while the week runs",
      target: "p99 < 200 ms",
      measured:
        `${ms(f.ack.weekMs)}; ${f.ack.failed} not 2xx` +
        (f.ack.weekWindowsMs?.length
          ? `; p99 per window ${f.ack.weekWindowsMs.map((xs) => p99(xs).toFixed(1)).join(" / ")} ms`
          : "") +
        (f.ack.server?.weekP99Ms?.length
          ? `; inside the web process p99 ≤ ${f.ack.server.weekP99Ms.join(" / ")} ms`
          : ""),
      met: f.ack.weekMs.length > 0 && p99(f.ack.weekMs) < 200 && f.ack.failed === 0,
    },
  ];
}
