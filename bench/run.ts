/**
 * `npm run bench`: diffward under load on this machine against the sandbox of the scanning service, the
 * GitHub stand-in and a real Redis, with a plain fixed-interval poller (every 5 s) measured side by side.
 * Prints every figure next to its target and the peer's, and writes `out/bench/bench.json` and
 * `out/bench/bench.html` (inline SVG, no external resources). See `docs/benchmarks.md`.
 *
 * Flags: `--prs N` (main run, default 100; 0 skips), `--fairness-prs N` (org A's burst, default 500; 0 skips),
 * `--inflight N` (scans held by one worker, default 10000; 0 skips), `--inflight-window S` (default 40),
 * `--throughput-prs N` (default 12; 0 skips), `--throughput-installations N` (default 4),
 * `--ack-deliveries N` (default 500 at 100/s; 0 skips), `--github-limits` (adds the 80/min, 500/h
 * content-creation run, with the ideal scheduler's bound of `bench/bound.ts`), `--limits-prs N` (default 30),
 * `--main-timeout S` (default 150), `--seed N` (scan durations, default 1).
 *
 * The `--github-limits` run's own flags: `--limits-installations K` (the PRs spread evenly over K
 * installations, one organization and repository each; default 1), `--limits-scan-min S` / `--limits-scan-max S`
 * (scan durations uniform in [S_min, S_max] seconds; default 3 / 20), `--limits-retry-after S` (the sandbox's
 * `Retry-After`, seconds; default 2), `--limits-workers N` (diffward's workers in N child processes and its web
 * server in one more, webhooks sent there, with peak RSS per process; default 0: all in this process),
 * `--limits-timeout S` (give up after S seconds; default 1800).
 * `--outage` adds the service-outage runs: for each of `--outage-prs N,M` (default 20,50) pull requests of one
 * installation, opened in 5 waves over the first 80 % of a `--outage-seconds S` (default 300) outage in which every
 * service route answers 503 with `Retry-After: --outage-retry-after S` (default 5): first feedback and report
 * delay against the bound, and the service requests during the outage against one per probe interval.
 * `--reconcile` adds the restart run (`bench/reconcile.ts`): `--reconcile-installations N` (default 20),
 * `--reconcile-repositories N` (per installation, default 200), `--reconcile-pulls N` (open pull requests per
 * repository, default 3), `--reconcile-total-pulls N` (open pull requests of each installation in all, spread
 * over its repositories, instead of `--reconcile-pulls`), `--reconcile-inflight N` (scans in flight, default 10), `--reconcile-configured F`
 * (share of repositories with their own `.github/diffward.yml`, default 1), `--reconcile-feedback N` (new pull
 * requests opened during the state-lost walk, and as many after it, whose first feedback is compared; default 5,
 * 0 skips).
 *
 * `--org-page` adds the organization's page run (`bench/org-page.ts`): `--org-page-installations N` (default 50),
 * `--org-page-reports N` (default 2000), `--org-page-inflight N` (scans in flight, default 200),
 * `--org-page-loads N` (default 200), `--org-page-busy-share F` (the busiest installation's share, default 0.25);
 * target: load + render p95 < 300 ms.
 * The 1,000-PR run of `docs/benchmarks.md`: `--limits-prs 1000 --limits-installations 10 --limits-scan-min 20
 * --limits-scan-max 60 --limits-retry-after 5 --limits-workers 2`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { makePulls, percentile, seeded, sum } from "./lib.js";
import { runPipeline, type PipelineResult, type SideFigures } from "./pipeline.js";
import { ackPhase, inflightPhase, throughputPhase } from "./phases.js";
import { escapeHtml } from "../src/render/html.js";
import { idealBoundByInstallation } from "./bound.js";
import { reconcilePhase } from "./reconcile.js";
import { orgPagePhase } from "./org-page.js";
import { weekPhase } from "./week.js";
import { GITHUB_WRITE_LIMITS } from "../src/runtime/write-lane.js";

const Args = z.object({
  prs: z.coerce.number().int().min(0).default(100),
  fairnessPrs: z.coerce.number().int().min(0).default(500),
  inflight: z.coerce.number().int().min(0).default(10_000),
  inflightWindow: z.coerce.number().int().min(5).default(40),
  throughputPrs: z.coerce.number().int().min(0).default(12),
  throughputInstallations: z.coerce.number().int().min(1).default(4),
  ackDeliveries: z.coerce.number().int().min(0).default(500),
  githubLimits: z.boolean().default(false),
  limitsPrs: z.coerce.number().int().min(1).default(30),
  limitsInstallations: z.coerce.number().int().min(1).default(1),
  limitsScanMin: z.coerce.number().min(0).default(3),
  limitsScanMax: z.coerce.number().min(0).default(20),
  limitsRetryAfter: z.coerce.number().int().min(1).default(2),
  limitsWorkers: z.coerce.number().int().min(0).default(0),
  limitsTimeout: z.coerce.number().int().min(10).default(1800),
  mainTimeout: z.coerce.number().int().min(10).default(150),
  outage: z.boolean().default(false),
  outagePrs: z
    .string()
    .regex(/^\d+(,\d+)*$/, "a comma-separated list of pull request counts")
    .default("20,50"),
  outageSeconds: z.coerce.number().int().min(1).default(300),
  outageRetryAfter: z.coerce.number().int().min(1).default(5),
  reconcile: z.boolean().default(false),
  reconcileInstallations: z.coerce.number().int().min(1).default(20),
  reconcileRepositories: z.coerce.number().int().min(0).default(200),
  reconcilePulls: z.coerce.number().int().min(0).default(3),
  reconcileTotalPulls: z.coerce.number().int().min(0).default(0),
  reconcileFeedback: z.coerce.number().int().min(0).default(5),
  reconcileInflight: z.coerce.number().int().min(0).default(10),
  reconcileConfigured: z.coerce.number().min(0).max(1).default(1),
  orgPage: z.boolean().default(false),
  orgPageInstallations: z.coerce.number().int().min(1).default(50),
  orgPageReports: z.coerce.number().int().min(0).default(2000),
  orgPageInflight: z.coerce.number().int().min(0).default(200),
  orgPageLoads: z.coerce.number().int().min(1).default(200),
  orgPageBusyShare: z.coerce.number().min(0).max(1).default(0.25),
  week: z.boolean().default(false),
  hours: z.coerce.number().positive().optional(),
  minutes: z.coerce.number().positive().optional(),
  weekPrs: z.coerce.number().int().min(1).default(30),
  weekRepositories: z.coerce.number().int().min(1).default(3),
  weekDrain: z.coerce.number().int().min(0).default(180),
  seed: z.coerce.number().int().default(1),
});

function parseArgs(argv: string[]): z.infer<typeof Args> {
  const raw: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
    const name = a.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (["githubLimits", "reconcile", "outage", "orgPage", "week"].includes(name)) raw[name] = true;
    else raw[name] = argv[++i];
  }
  const strict = Args.strict()
    .refine((a) => a.limitsScanMin <= a.limitsScanMax, {
      message: "--limits-scan-min must not exceed --limits-scan-max",
    })
    .refine((a) => a.limitsInstallations <= a.limitsPrs, {
      message: "--limits-installations must not exceed --limits-prs",
    })
    .safeParse(raw);
  if (!strict.success) {
    console.error(`bench: ${z.prettifyError(strict.error)}`);
    process.exit(2);
  }
  return strict.data;
}

const args = parseArgs(process.argv.slice(2));
const RETRY_AFTER = 2;
const rng = seeded(args.seed);
/**
 * Scan durations: uniform `minS`–`maxS` seconds (ms out), drawn per scan from the seeded generator (sandbox
 * `scanDurationMs`). The default 3–20 s draws the same values as before the range was a flag.
 */
const durationIn = (minS: number, maxS: number) => () =>
  minS * 1000 + Math.round(rng.next() * (maxS - minS) * 1000);
const duration = durationIn(3, 20);
const log = (s: string) => console.log(s);
const fmt = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : String(n));
const s1 = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : "∞ (unfinished)");

/** One printed row: figure, target, diffward, peer, verdict. */
interface Row {
  group: string;
  figure: string;
  target: string;
  diffward: string;
  peer: string;
  met: boolean | null;
}
const rows: Row[] = [];
const json: Record<string, unknown> = {
  command: `npm run bench -- ${process.argv.slice(2).join(" ")}`.trim(),
  args,
};

/** Delay percentiles counting unfinished pull requests as infinitely late. */
function delays(side: SideFigures, expected: number): { p50: number; p99: number } {
  const xs = [
    ...side.reportDelays,
    ...Array(Math.max(0, expected - side.reportDelays.length)).fill(Infinity),
  ];
  return { p50: percentile(xs, 50), p99: percentile(xs, 99) };
}

function pipelineRows(group: string, r: PipelineResult, pulls: number, retryAfter = RETRY_AFTER) {
  const d = r.diffward;
  const p = r.peer;
  const ratio = (s: SideFigures) => s.pollReportCalls / Math.max(1, s.pollReportLowerBound);
  // call and write figures of an unfinished run count only what happened so far: no verdict then
  const complete = d.reported === pulls && d.scans === pulls;
  const partial = complete ? "" : " (run incomplete)";
  rows.push({
    group,
    figure: "polling+reporting calls ÷ lower bound",
    target: "≤ 1.05",
    diffward: `${fmt(ratio(d))} (${d.pollReportCalls}/${d.pollReportLowerBound})${partial}`,
    peer: p ? `${fmt(ratio(p))} (${p.pollReportCalls}/${p.pollReportLowerBound})` : "–",
    met: complete ? ratio(d) <= 1.05 : null,
  });
  rows.push({
    group,
    figure: "scan reads per scan ÷ ⌈duration/Retry-After⌉ p50 / max",
    target: "–",
    diffward: `${fmt(d.pollRatioP50)} / ${fmt(d.pollRatioMax)}`,
    peer: p ? `${fmt(p.pollRatioP50)} / ${fmt(p.pollRatioMax)}` : "–",
    met: null,
  });
  const other = (s: SideFigures) =>
    Object.entries(s.otherCallsPerScan)
      .map(([k, n]) => `${k} ${fmt(n)}`)
      .join("; ") || "none";
  rows.push({
    group,
    figure: "other calls per scan",
    target: "–",
    diffward: other(d),
    peer: p ? other(p) : "–",
    met: null,
  });
  rows.push({
    group,
    figure: "429s caused by own polling",
    target: "0",
    diffward: String(d.poll429s),
    peer: p ? String(p.poll429s) : "–",
    met: d.poll429s === 0,
  });
  const dd = delays(d, pulls);
  const pd = p ? delays(p, pulls) : undefined;
  rows.push({
    group,
    figure: "scan terminal → check run completed p50 / p99",
    target: `p99 ≤ ${retryAfter + 1} s`,
    diffward: `${s1(dd.p50)} / ${s1(dd.p99)}`,
    peer: pd ? `${s1(pd.p50)} / ${s1(pd.p99)}` : "–",
    met: dd.p99 <= (retryAfter + 1) * 1000,
  });
  const wr = (s: SideFigures) => {
    const n = s.writesPerPull.length;
    return `mean ${fmt(sum(s.writesPerPull) / Math.max(1, n))}, max ${Math.max(0, ...s.writesPerPull)}; progress max ${Math.max(0, ...s.progressUpdatesPerPull)}; over budget ${s.overBudgetPulls}/${n}`;
  };
  rows.push({
    group,
    figure: "GitHub writes per PR (budget 3 + ⌈ann/50⌉ + progress ≤ 5)",
    target: "0 PRs over budget",
    diffward: wr(d) + partial,
    peer: p ? wr(p) : "–",
    met: complete ? d.overBudgetPulls === 0 : null,
  });
  rows.push({
    group,
    figure: "reported / pull requests (wall time)",
    target: "all",
    diffward: `${d.reported}/${pulls}, ${d.scans} scans (${s1(r.wallMs)})`,
    peer: p ? `${p.reported}/${pulls}` : "–",
    met: d.reported === pulls && d.scans === pulls,
  });
}

function serialize(r: PipelineResult) {
  return { ...r, perPull: Object.fromEntries(r.perPull) };
}

/**
 * The ideal scheduler's bound (`bench/bound.ts`) from the run's own webhook and scan-completion times, next
 * to diffward's first feedback and report delay, with the ratio; target (docs/benchmarks.md): p99 ≤
 * 1.2 × bound + (Retry-After + 2 s). Unfinished pull requests count as ∞. GitHub's limits are per
 * installation, so the bound is simulated for each installation's pull requests (`installationOf`: key →
 * installation id) on its own and the per-pull-request figures merged before taking percentiles.
 */
function boundRows(
  group: string,
  r: PipelineResult,
  pulls: number,
  installationOf: (key: string) => number,
  retryAfter = RETRY_AFTER,
) {
  const inputs = [...r.perPull].map(([key, pp]) => ({
    key,
    installationId: installationOf(key),
    webhookAt: pp.sentAt,
    ...(pp.scanDoneAt !== undefined ? { scanDoneAt: pp.scanDoneAt } : {}),
  }));
  const bound = idealBoundByInstallation(inputs, GITHUB_WRITE_LIMITS);
  const pad = (xs: number[]) => [...xs, ...Array(Math.max(0, pulls - xs.length)).fill(Infinity)];
  const of = (
    pick: (pp: PipelineResult["perPull"] extends Map<string, infer V> ? V : never) => number | undefined,
  ) => pad([...r.perPull.values()].map(pick).filter((x): x is number => x !== undefined));
  const figures = [
    {
      figure: "first feedback (webhook → check run created) p50 / p99",
      dw: of((pp) => pp.firstFeedbackMs),
      bd: pad([...bound.firstFeedbackMs.values()]),
    },
    {
      figure: "report delay (scan done → check run completed) p50 / p99",
      dw: of((pp) => pp.reportDelayMs),
      bd: pad([...bound.reportDelayMs.values()]),
    },
  ];
  const slackMs = (retryAfter + 2) * 1000;
  for (const f of figures) {
    const dw = { p50: percentile(f.dw, 50), p99: percentile(f.dw, 99) };
    const bd = { p50: percentile(f.bd, 50), p99: percentile(f.bd, 99) };
    const limit = 1.2 * bd.p99 + slackMs;
    rows.push({
      group,
      figure: f.figure,
      target: `p99 ≤ 1.2 × bound + ${retryAfter + 2} s`,
      diffward: `${s1(dw.p50)} / ${s1(dw.p99)}; bound ${s1(bd.p50)} / ${s1(bd.p99)}; p99 ratio ${fmt(dw.p99 / Math.max(1, bd.p99))}, limit ${s1(limit)}`,
      peer: "–",
      met: dw.p99 <= limit,
    });
  }
  json[`${group}Bound`] = {
    firstFeedbackMs: Object.fromEntries(bound.firstFeedbackMs),
    reportDelayMs: Object.fromEntries(bound.reportDelayMs),
  };
}

async function main() {
  const started = Date.now();
  log(`diffward bench: ${JSON.stringify(args)}`);
  if (args.week) await weekRun();
  else await otherRuns();
  json.rows = rows;
  json.totalSeconds = (Date.now() - started) / 1000;
  printTable();
  mkdirSync("out/bench", { recursive: true });
  writeFileSync(
    "out/bench/bench.json",
    JSON.stringify(json, (_k, v) => (v === Infinity ? "Infinity" : v), 2),
  );
  writeFileSync("out/bench/bench.html", html());
  log(`\nwrote out/bench/bench.json and out/bench/bench.html in ${fmt(json.totalSeconds as number, 0)} s`);
}

/** The week (`--week`, bench/week.ts): its invariants and acknowledgement times as the table's rows. */
async function weekRun() {
  const wallMs = Math.round((args.minutes ?? (args.hours ?? 1) * 60) * 60_000);
  log(`\n[week] one organization's week in ${fmt(wallMs / 60_000, 1)} min (seed ${args.seed})`);
  const r = await weekPhase({
    seed: args.seed,
    wallMs,
    pulls: args.weekPrs,
    repositories: args.weekRepositories,
    drainMs: args.weekDrain * 1000,
    log,
  });
  for (const row of r.rows)
    rows.push({
      group: "week",
      figure: row.figure,
      target: row.target,
      diffward: row.measured,
      peer: "–",
      met: row.met,
    });
  rows.push({
    group: "week",
    figure: "deliveries sent (not 2xx) / worker kills / wall time",
    target: "–",
    diffward: `${r.deliveries.sent} (${r.deliveries.failed}) / ${r.workerKills} / ${s1(r.wallMs)}; events ${JSON.stringify(r.events)}`,
    peer: "–",
    met: null,
  });
  json.week = r;
}

async function otherRuns() {
  // 1. main run: N pull requests opened at once in one organization
  if (args.prs > 0) {
    log(
      `\n[main] ${args.prs} PRs opened at once; scans 3–20 s (seed ${args.seed}); Retry-After ${RETRY_AFTER} s`,
    );
    const main = await runPipeline({
      waves: [{ pulls: makePulls("acme", 1, args.prs), atMs: 0 }],
      scanDurationMs: duration,
      retryAfterSeconds: RETRY_AFTER,
      peerIntervalMs: 5000,
      timeoutMs: args.mainTimeout * 1000,
      log,
    });
    pipelineRows("main", main, args.prs);
    json.main = serialize(main);
  }

  // 2. webhook acknowledgement at 100 deliveries/s
  if (args.ackDeliveries > 0) {
    log(`\n[ack] ${args.ackDeliveries} deliveries at 100/s`);
    const ack = await ackPhase(100, args.ackDeliveries);
    const p99 = percentile(ack.diffward, 99);
    rows.push({
      group: "ack",
      figure: "webhook acknowledgement p50 / p99 at 100/s",
      target: "p99 < 50 ms",
      diffward: `${fmt(percentile(ack.diffward, 50), 1)} / ${fmt(p99, 1)} ms`,
      peer: `${fmt(percentile(ack.peer, 50), 1)} / ${fmt(percentile(ack.peer, 99), 1)} ms (verify + 202 only)`,
      met: p99 < 50 && ack.non2xx === 0,
    });
    json.ack = ack;
  }

  // 3. fairness: org A opens many PRs, org B one, vs B alone
  if (args.fairnessPrs > 0) {
    log(`\n[fairness] org B alone, then org A ${args.fairnessPrs} PRs + org B 1 PR`);
    const bDuration = () => 3000;
    const alone = await runPipeline({
      waves: [{ pulls: makePulls("org-b", 3, 1), atMs: 0 }],
      scanDurationMs: bDuration,
      retryAfterSeconds: RETRY_AFTER,
      peerIntervalMs: 5000,
      timeoutMs: 60_000,
      log,
    });
    const bPulls = makePulls("org-b", 3, 1);
    const aPulls = makePulls("org-a", 2, args.fairnessPrs);
    const mixed = await runPipeline({
      waves: [
        { pulls: aPulls, atMs: 0 },
        { pulls: bPulls, atMs: 200 },
      ],
      scanDurationMs: (s) => (s.commitHash === bPulls[0]!.headSha ? 3000 : duration()),
      retryAfterSeconds: RETRY_AFTER,
      peerIntervalMs: 5000,
      timeoutMs: 120_000,
      waitForKeys: [bPulls[0]!.key],
      log,
    });
    const a = alone.perPull.get(bPulls[0]!.key)!;
    const m = mixed.perPull.get(bPulls[0]!.key)!;
    const feedbackDiff = (m.firstFeedbackMs ?? Infinity) - (a.firstFeedbackMs ?? Infinity);
    const reportDiff = (m.reportDelayMs ?? Infinity) - (a.reportDelayMs ?? Infinity);
    const peerAlone = alone.peer?.reportDelays[0] ?? Infinity;
    const peerMixed = mixed.peerDelayOf?.(bPulls[0]!.key) ?? Infinity;
    rows.push({
      group: "fairness",
      figure: `org B first feedback: alone → with A's ${args.fairnessPrs}`,
      target: "within 5 s of alone",
      diffward: `${s1(a.firstFeedbackMs ?? Infinity)} → ${s1(m.firstFeedbackMs ?? Infinity)}`,
      peer: "– (the peer has no webhook path)",
      met: feedbackDiff <= 5000,
    });
    rows.push({
      group: "fairness",
      figure: `org B report delay: alone → with A's ${args.fairnessPrs}`,
      target: "within 5 s of alone",
      diffward: `${s1(a.reportDelayMs ?? Infinity)} → ${s1(m.reportDelayMs ?? Infinity)}`,
      peer: `${s1(peerAlone)} → ${s1(peerMixed)}`,
      met: reportDiff <= 5000,
    });
    json.fairness = { alone: serialize(alone), mixed: serialize(mixed) };
  }

  // 4. one worker holding many scans in flight
  if (args.inflight > 0) {
    log(`\n[in-flight] one worker process holding ${args.inflight} scans, ${args.inflightWindow} s window`);
    const f = await inflightPhase(args.inflight, args.inflightWindow);
    rows.push({
      group: "in-flight",
      figure: `RSS of one worker holding ${args.inflight} scans (peak)`,
      target: "< 300 MB",
      diffward: `${fmt(f.diffward.peakRssMb, 0)} MB`,
      peer: `${fmt(f.peer.peakRssMb, 0)} MB`,
      met: f.diffward.peakRssMb < 300,
    });
    rows.push({
      group: "in-flight",
      figure: "CPU (% of one core) / scan reads done ÷ due in window",
      target: "–",
      diffward: `${fmt(f.diffward.cpuPercent, 0)} % / ${f.diffward.polls}÷${f.diffward.expectedPolls}`,
      peer: `${fmt(f.peer.cpuPercent, 0)} % / ${f.peer.polls}÷${f.peer.expectedPolls}`,
      met: null,
    });
    json.inflight = f;
  }

  // 5. throughput of one worker process vs two
  if (args.throughputPrs > 0) {
    log(
      `\n[throughput] ${args.throughputPrs} PRs over ${args.throughputInstallations} installations, one worker process then two`,
    );
    const t = await throughputPhase(args.throughputPrs, 180_000, args.throughputInstallations);
    rows.push({
      group: "throughput",
      figure: `PRs reported per second, 1 process → 2 (${args.throughputPrs} PRs, ${args.throughputInstallations} installations)`,
      target: "2 ≈ 2 × 1",
      diffward: `${fmt(t.oneProcess.perSecond)} → ${fmt(t.twoProcesses.perSecond)} (×${fmt(t.twoProcesses.perSecond / t.oneProcess.perSecond)})`,
      peer: "–",
      met: null,
    });
    json.throughput = t;
  }

  // 6. GitHub's content-creation limits
  if (args.githubLimits) {
    const k = args.limitsInstallations;
    const ra = args.limitsRetryAfter;
    log(
      `\n[github-limits] ${args.limitsPrs} PRs over ${k} installation(s), stand-in enforcing 80 writes/min and 500/h per installation; scans ${args.limitsScanMin}–${args.limitsScanMax} s; Retry-After ${ra} s; workers ${args.limitsWorkers === 0 ? "in-process" : `in ${args.limitsWorkers} child processes`}`,
    );
    // one installation: today's organization (index 5); several: organizations `limited-1…K` at indexes
    // 200 + i (installation ids 1200 + i), clear of the other phases' indexes (1–3, 70–99)
    const pulls =
      k === 1
        ? makePulls("limited", 5, args.limitsPrs)
        : Array.from({ length: k }, (_, i) =>
            makePulls(
              `limited-${i + 1}`,
              200 + i,
              Math.floor(args.limitsPrs / k) + (i < args.limitsPrs % k ? 1 : 0),
            ),
          ).flat();
    const installationByKey = new Map(pulls.map((p) => [p.key, p.installationId]));
    const lim = await runPipeline({
      waves: [{ pulls, atMs: 0 }],
      scanDurationMs: durationIn(args.limitsScanMin, args.limitsScanMax),
      retryAfterSeconds: ra,
      peerIntervalMs: 5000,
      timeoutMs: args.limitsTimeout * 1000,
      github: { limits: { contentCreation: { perMinute: 80, perHour: 500 } } },
      withPeer: false,
      workerProcesses: args.limitsWorkers,
      log,
    });
    const lost = args.limitsPrs - lim.diffward.reported;
    rows.push({
      group: "github-limits",
      figure: "burst drain time (first → last accepted write) / refused writes",
      target: "drains; 0 lost",
      diffward: `${s1(lim.writeSpanMs)} / ${lim.diffward.refusedWrites} refused (403 secondary)`,
      peer: "–",
      met: null,
    });
    rows.push({
      group: "github-limits",
      figure: "PRs with completed check run + all writes",
      target: "all (0 writes lost)",
      diffward: `${lim.diffward.reported}/${args.limitsPrs}; lost ${lost}`,
      peer: "–",
      met: lost === 0,
    });
    rows.push({
      group: "github-limits",
      figure: "secondary-limit refusals (stand-in 403s) / GitHub 429s",
      target: "0 / 0",
      diffward: `${lim.secondaryRefusals} / ${lim.github429s}`,
      peer: "–",
      met: lim.secondaryRefusals === 0 && lim.github429s === 0,
    });
    const service429s =
      Object.entries(lim.diffward.service429sByRoute)
        .map(([route, n]) => `${route} ${n}`)
        .join("; ") || "none";
    rows.push({
      group: "github-limits",
      figure: "all 429s the service gave diffward, by route (early-poll 429s are self-caused)",
      target: "0 self-caused",
      diffward: `${service429s}; early-poll ${lim.diffward.poll429s}`,
      peer: "–",
      met: lim.diffward.poll429s === 0,
    });
    const perInstallation = Object.values(lim.writesByInstallation);
    rows.push({
      group: "github-limits",
      figure: `accepted writes per installation (${k}) min / max`,
      target: "≤ 500 (GitHub's hourly budget)",
      diffward: `${Math.min(...perInstallation)} / ${Math.max(...perInstallation)}`,
      peer: "–",
      met: null,
    });
    const pr = lim.processes;
    const mb = (x: number) => `${fmt(x, 0)} MB`;
    // diffward's own processes: the web child and the worker children (with --limits-workers)
    const diffwardMax = Math.max(0, pr.webPeakRssMb ?? 0, ...pr.workerPeakRssMb);
    const split = pr.workerPeakRssMb.length > 0;
    rows.push({
      group: "github-limits",
      figure: split
        ? `peak RSS per process: diffward web server (1 process), workers (${pr.workerPeakRssMb.length} processes); parent (sandbox + GitHub stand-in + bench, not diffward)`
        : "peak RSS: one process (diffward web server and workers + sandbox + GitHub stand-in + bench)",
      target: "< 300 MB per process",
      diffward: split
        ? `web ${mb(pr.webPeakRssMb ?? 0)} (at boot ${mb(pr.webBootRssMb ?? 0)}); workers ${pr.workerPeakRssMb.map(mb).join(", ")} (at boot ${pr.workerBootRssMb.map(mb).join(", ")}); parent ${mb(pr.parentPeakRssMb)} (not diffward)`
        : `${mb(pr.parentPeakRssMb)} (includes the stand-ins)`,
      peer: "–",
      // with child processes the verdict is diffward's processes': the parent holds the sandbox and stand-in
      met: split ? diffwardMax < 300 : pr.parentPeakRssMb < 300,
    });
    if (split)
      rows.push({
        group: "github-limits",
        figure: "CPU time per diffward process (user + system, whole run)",
        target: "–",
        diffward: `web ${fmt(pr.webCpuSeconds ?? 0, 1)} s; workers ${pr.workerCpuSeconds.map((c) => `${fmt(c, 1)} s`).join(", ")}`,
        peer: "–",
        met: null,
      });
    boundRows("github-limits", lim, args.limitsPrs, (key) => installationByKey.get(key) ?? 0, ra);
    pipelineRows("github-limits", lim, args.limitsPrs, ra);
    json.githubLimits = serialize(lim);
    json.githubLimitsSummary = {
      pulls: args.limitsPrs,
      installations: k,
      scanSeconds: [args.limitsScanMin, args.limitsScanMax],
      retryAfterSeconds: ra,
      workerProcesses: args.limitsWorkers,
      reported: lim.diffward.reported,
      wallMs: lim.wallMs,
      secondaryRefusals: lim.secondaryRefusals,
      github429s: lim.github429s,
      serviceEarlyPoll429s: lim.diffward.poll429s,
      service429sByRoute: lim.diffward.service429sByRoute,
      writesPerPullMean: sum(lim.diffward.writesPerPull) / Math.max(1, lim.diffward.writesPerPull.length),
      writesByInstallation: lim.writesByInstallation,
      processes: lim.processes,
    };
  }

  if (args.outage) await outageRuns();

  if (args.reconcile) {
    const pulls = args.reconcileTotalPulls
      ? `, ${args.reconcileTotalPulls} open pull requests each`
      : ` × ${args.reconcilePulls} open pull requests`;
    log(
      `\nrestart: ${args.reconcileInstallations} installations × ${args.reconcileRepositories} repositories${pulls}, ${args.reconcileInflight} scans in flight …`,
    );
    const r = await reconcilePhase({
      installations: args.reconcileInstallations,
      repositories: args.reconcileRepositories,
      pulls: args.reconcilePulls,
      totalPulls: args.reconcileTotalPulls,
      inflight: args.reconcileInflight,
      configured: args.reconcileConfigured,
      feedbackPulls: args.reconcileFeedback,
    });
    const target = 2 * args.reconcileInflight + args.reconcileInstallations;
    for (const [label, f] of [
      ["state intact", r.intact],
      ["state lost", r.lost],
    ] as const) {
      const all = f.followed === args.reconcileInflight;
      rows.push({
        group: "reconcile",
        figure: `${label}: GitHub requests (of which installation tokens) until every in-flight scan is followed`,
        target: label === "state intact" ? `≤ ${target} (2 per scan in flight + 1 per installation)` : "–",
        diffward: `${f.requests} (${f.tokens}; ${f.graphql} GraphQL, ${f.points} points)${all ? "" : ` — only ${f.followed}/${args.reconcileInflight} followed`}`,
        peer: "–",
        met: label === "state intact" ? all && f.requests <= target : all ? null : false,
      });
      rows.push({
        group: "reconcile",
        figure: `${label}: seconds until every in-flight scan is followed`,
        target: "–",
        diffward: `${fmt(f.seconds, 1)} s`,
        peer: "–",
        met: null,
      });
    }
    if (r.feedback) {
      const f = r.feedback;
      const p = (xs: number[]) => `${fmt(percentile(xs, 50), 0)} / ${fmt(Math.max(...xs), 0)} ms`;
      rows.push({
        group: "reconcile",
        figure: `state lost: first feedback of new pull requests during the walk (${f.duringWalk.length}, walk ${fmt(f.walkSeconds, 1)} s) vs after it (${f.alone.length}): p50 / max`,
        target: "during ≈ after",
        diffward: `${p(f.duringWalk)} vs ${p(f.alone)}`,
        peer: "–",
        met: null,
      });
    }
    json.reconcile = r;
  }

  if (args.orgPage) await orgPageRun();
}

/**
 * The service-outage runs (`--outage`): N pull requests of one installation opened while every service route
 * answers 503 with `Retry-After`; targets (docs/benchmarks.md): first feedback and report delay p99 ≤ 1.2 ×
 * bound + (Retry-After + 2 s), and service requests during the outage ≤ 1 per breaker probe interval (the
 * service's `Retry-After`, which the breaker honours) per tenant.
 */
async function outageRuns() {
  const ra = args.outageRetryAfter;
  const outageMs = args.outageSeconds * 1000;
  for (const [i, n] of args.outagePrs.split(",").map(Number).entries()) {
    if (n === 0) continue;
    const group = `outage-${n}`;
    log(
      `\n[${group}] ${n} PRs of one installation opened during a ${args.outageSeconds} s outage (503, Retry-After ${ra} s); scans 3–20 s`,
    );
    const pulls = makePulls(`outage-${n}`, 300 + i, n);
    const waves = Array.from({ length: 5 }, (_, w) => ({
      pulls: pulls.filter((_p, k) => k % 5 === w),
      atMs: Math.round((w * 0.8 * outageMs) / 5),
    })).filter((w) => w.pulls.length > 0);
    const r = await runPipeline({
      waves,
      scanDurationMs: duration,
      retryAfterSeconds: ra,
      peerIntervalMs: 5000,
      timeoutMs: outageMs + args.mainTimeout * 1000,
      withPeer: false,
      serviceOutage: { durationMs: outageMs, retryAfterSeconds: ra },
      log,
    });
    const o = r.outage!;
    const intervals = Math.ceil(outageMs / (ra * 1000));
    rows.push({
      group,
      figure: "service requests during the outage (all routes, answered 503)",
      target: `≤ 1 per probe interval (${ra} s): ${intervals}`,
      diffward: `${o.requests} in ${args.outageSeconds} s (${fmt(o.requests / intervals)} per interval)`,
      peer: "–",
      met: o.requests <= intervals,
    });
    const launch = [...o.launchAfterEndMs].sort((a, b) => a - b);
    rows.push({
      group,
      figure: "outage end → each scan launched: first / p50 / last; scans launched / PRs",
      target: `each once; first ≤ Retry-After + 2 s (${ra + 2} s)`,
      diffward: `${s1(launch[0] ?? Infinity)} / ${s1(percentile(launch, 50))} / ${s1(launch.at(-1) ?? Infinity)}; ${launch.length}/${n}`,
      peer: "–",
      met: launch.length === n && (launch[0] ?? Infinity) <= (ra + 2) * 1000,
    });
    boundRows(group, r, n, () => 1300 + i, ra);
    json[group] = { ...serialize(r), outage: o };
  }
}

function printTable() {
  const head: Row = {
    group: "group",
    figure: "figure",
    target: "target",
    diffward: "diffward",
    peer: "peer (5 s poller)",
    met: null,
  };
  const all = [head, ...rows];
  const w = (k: keyof Row) => Math.max(...all.map((r) => String(r[k]).length));
  const widths = { group: w("group"), figure: w("figure"), target: w("target"), diffward: w("diffward") };
  log("");
  for (const r of all) {
    const verdict = r === head ? "" : r.met === null ? "" : r.met ? "met" : "MISSED";
    log(
      [
        r.group.padEnd(widths.group),
        r.figure.padEnd(widths.figure),
        r.target.padEnd(widths.target),
        r.diffward.padEnd(widths.diffward),
        r.peer,
        verdict,
      ].join(" | "),
    );
  }
}

/** A self-contained page: the table and one inline SVG bar chart of report delays (p50, p99). */
function html(): string {
  const m = json.main as ReturnType<typeof serialize> | undefined;
  const bars: Array<{ label: string; ms: number }> = [];
  if (m) {
    const dd = delays(m.diffward, args.prs);
    bars.push({ label: "diffward p50", ms: dd.p50 }, { label: "diffward p99", ms: dd.p99 });
    if (m.peer) {
      const pd = delays(m.peer, args.prs);
      bars.push({ label: "peer p50", ms: pd.p50 }, { label: "peer p99", ms: pd.p99 });
    }
  }
  const finite = bars.map((b) => (Number.isFinite(b.ms) ? b.ms : 0));
  const max = Math.max(1, ...finite, (RETRY_AFTER + 1) * 1000);
  const W = 520;
  const svgBars = bars
    .map((b, i) => {
      const v = Number.isFinite(b.ms) ? b.ms : max;
      const len = Math.round((v / max) * (W - 170));
      const y = 10 + i * 28;
      return `<text x="0" y="${y + 14}" font-size="12">${escapeHtml(b.label)}</text><rect x="110" y="${y}" width="${len}" height="18" fill="${b.label.startsWith("peer") ? "#999" : "#2a6"}"/><text x="${115 + len}" y="${y + 14}" font-size="12">${escapeHtml(s1(b.ms))}</text>`;
    })
    .join("");
  const targetX = 110 + Math.round((((RETRY_AFTER + 1) * 1000) / max) * (W - 170));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${20 + bars.length * 28}" role="img" aria-label="report delay">${svgBars}<line x1="${targetX}" x2="${targetX}" y1="0" y2="${10 + bars.length * 28}" stroke="#c00" stroke-dasharray="4 3"/><text x="${targetX + 3}" y="${18 + bars.length * 28}" font-size="11" fill="#c00">target p99 ${RETRY_AFTER + 1} s</text></svg>`;
  const tr = rows
    .map(
      (r) =>
        `<tr><td>${escapeHtml(r.group)}</td><td>${escapeHtml(r.figure)}</td><td>${escapeHtml(r.target)}</td><td>${escapeHtml(r.diffward)}</td><td>${escapeHtml(r.peer)}</td><td>${r.met === null ? "" : r.met ? "met" : "<b>MISSED</b>"}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html><html><head><meta charset="utf-8"><title>diffward bench</title><style>body{font:14px system-ui,sans-serif;margin:2em}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}table{border-collapse:collapse}</style></head><body><h1>diffward bench</h1><p><code>${escapeHtml(String(json.command))}</code></p><h2>Scan terminal → check run completed (main run)</h2>${svg}<h2>Figures</h2><table><tr><th>group</th><th>figure</th><th>target</th><th>diffward</th><th>peer (5 s poller)</th><th></th></tr>${tr}</table></body></html>\n`;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error("bench failed:", error);
    process.exit(1);
  },
);

/**
 * The organization's page run (`--org-page`, `bench/org-page.ts`): load + render times of an organization
 * owner's page with the volume in Redis; target (docs/benchmarks.md): p95 < 300 ms.
 */
async function orgPageRun(): Promise<void> {
  const o = {
    installations: args.orgPageInstallations,
    reports: args.orgPageReports,
    inflight: args.orgPageInflight,
    loads: args.orgPageLoads,
    busyShare: args.orgPageBusyShare,
  };
  log(
    `\norganization's page: ${o.installations} installations, ${o.reports} reports, ${o.inflight} scans in flight, ${o.loads} loads …`,
  );
  const r = await orgPagePhase(o);
  const ms = (n: number) => `${fmt(n, 1)} ms`;
  for (const [label, t] of [
    ["every load", r.all],
    ["an installation's first load (balance and GitHub not cached)", r.cold],
    ["the other loads", r.warm],
    [
      `the busiest installation (${r.busiest.reports} reports logged, ${r.busiest.inflight} in flight)`,
      r.busiest,
    ],
  ] as const)
    rows.push({
      group: "org-page",
      figure: `${label}: load + render p50 / p95 / p99 / max (${t.loads} loads${t.bytes ? `, page ${fmt(t.bytes / 1024, 0)} KiB` : ""})`,
      target: "p95 < 300 ms",
      diffward: `${ms(t.p50)} / ${ms(t.p95)} / ${ms(t.p99)} / ${ms(t.max)}`,
      peer: "–",
      met: t.p95 < 300,
    });
  rows.push({
    group: "org-page",
    figure: "service balance reads during the loads",
    target: `≤ ${2 * o.installations} (one per installation per minute in each pass's cache: direct, then HTTP)`,
    diffward: String(r.balanceCalls),
    peer: "–",
    met: r.balanceCalls <= 2 * o.installations,
  });
  for (const [label, t] of [
    ["through HTTP, every load", r.http.all],
    ["through HTTP, an installation's first load", r.http.cold],
    ["through HTTP, the other loads", r.http.warm],
  ] as const)
    rows.push({
      group: "org-page",
      figure: `${label}: GET /installations/<id> p50 / p95 / p99 / max (${t.loads} loads${t.bytes ? `, page ${fmt(t.bytes / 1024, 0)} KiB` : ""}; statuses ${JSON.stringify(r.http.statuses)})`,
      target: "p95 < 300 ms",
      diffward: `${ms(t.p50)} / ${ms(t.p95)} / ${ms(t.p99)} / ${ms(t.max)}`,
      peer: "–",
      met: t.p95 < 300 && Object.keys(r.http.statuses).every((k) => k === "200"),
    });
  rows.push({
    group: "org-page",
    figure: "loads that showed the balance or GitHub as not answered yet (200 ms budget)",
    target: "–",
    diffward: `${r.pending} of ${r.all.loads}`,
    peer: "–",
    met: null,
  });
  json.orgPage = r;
}
