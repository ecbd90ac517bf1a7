/**
 * One pipeline run of the bench: the harness (sandbox + GitHub stand-in + real Redis + diffward web and
 * workers) and the fixed-interval peer following the same scans, then the figures read from the sandbox's
 * counters (`state.stats`, per-scan `polls`, `final.atMs`) and the stand-ins' recorded requests.
 */
import { startHarness, type Harness, type HarnessOptions } from "../dev/harness/harness.js";
import { parseRepoConfigYaml, type RepoConfig } from "../src/config/repo-config.js";
import { demoConfig } from "../dev/harness/demo-repo.js";
import { startGitHubStandIn, type GitHubStandIn } from "../dev/github-standin/index.js";
import { ScannerClient } from "../src/scanner/client.js";
import type { ScanRecord } from "../dev/sandbox/index.js";
import { FixedIntervalPoller } from "./peer.js";
import {
  flatten,
  percentile,
  seedPulls,
  sleep,
  sum,
  terminalTimes,
  writesByPull,
  type BenchPull,
} from "./lib.js";

/** How a batch of pull requests is sent. */
export interface Wave {
  pulls: BenchPull[];
  /** ms after the run's start to send this wave (all at once) */
  atMs: number;
}

/** Options of {@link runPipeline}. */
export interface PipelineOptions {
  waves: Wave[];
  /** scan duration per scan, ms (seeded by the caller) */
  scanDurationMs: (scan: Readonly<ScanRecord>) => number;
  retryAfterSeconds: number;
  peerIntervalMs: number;
  /** give up waiting after this many ms; unfinished pull requests are reported as such */
  timeoutMs: number;
  github?: HarnessOptions["github"];
  /** extra sandbox repositories (id) in `prj_demo`, for pull requests whose config names them */
  extraRepositories?: string[];
  repositoryFor?: (p: BenchPull) => string;
  withPeer?: boolean;
  /** wait only for these pull requests (keys) instead of all of them */
  waitForKeys?: string[];
  log?: (line: string) => void;
}

/** Figures of one side (diffward or the peer). */
export interface SideFigures {
  scans: number;
  reported: number;
  /** polling + reporting calls (scan reads, findings pages, finding details) */
  pollReportCalls: number;
  /** their lower bound: Σ ⌈duration / Retry-After⌉ + ⌈findings / 100⌉ + details shown */
  pollReportLowerBound: number;
  /** per-scan poll ratio (polls ÷ ⌈duration / Retry-After⌉) p50 / max */
  pollRatioP50: number;
  pollRatioMax: number;
  /** other calls per scan, by route */
  otherCallsPerScan: Record<string, number>;
  /** 429 answers to this side's own scan reads */
  poll429s: number;
  /** scan terminal → check run completed, ms */
  reportDelays: number[];
  /** GitHub writes per pull request and the budget 3 + ⌈annotations / 50⌉ + progress updates */
  writesPerPull: number[];
  writeBudgetPerPull: number[];
  progressUpdatesPerPull: number[];
  overBudgetPulls: number;
  refusedWrites: number;
  inlineComments: number;
}

/** What {@link runPipeline} returns. */
export interface PipelineResult {
  wallMs: number;
  diffward: SideFigures;
  peer?: SideFigures;
  /** per pull request key: webhook sent → check run created (first feedback), and report delay (ms) */
  perPull: Map<
    string,
    {
      sentAt: number;
      firstFeedbackMs?: number;
      reportDelayMs?: number;
      completedAt?: number;
      /** the scan reached a terminal status (sandbox `final.atMs`), epoch ms */
      scanDoneAt?: number;
    }
  >;
  ackMs: number[];
  /** first to last accepted GitHub write, ms */
  writeSpanMs: number;
  unfinished: string[];
  openapiViolations: number;
  /** the peer's report delay (scan terminal → its check run completed) for one pull request, ms */
  peerDelayOf?: (key: string) => number | undefined;
}

const SCAN_READ = "GET /projects/*/scans/*";
const FINDINGS = "GET /projects/*/findings";
const FINDING = "GET /projects/*/findings/*";

/** Runs the waves through diffward (and the peer), waits for every report, and measures. */
export async function runPipeline(opts: PipelineOptions): Promise<PipelineResult> {
  const log = opts.log ?? (() => undefined);
  const h: Harness = await startHarness({
    sandbox: { seed: 7, retryAfterSeconds: opts.retryAfterSeconds, scanDurationMs: opts.scanDurationMs },
    ...(opts.github ? { github: opts.github } : {}),
  });
  const sb = h.sandbox.state;
  sb.setBalance(100_000_000);
  for (const id of opts.extraRepositories ?? []) sb.addRepository({ id, name: id, readiness: "ready" });
  const allPulls = opts.waves.flatMap((w) => w.pulls);
  let peerGh: GitHubStandIn | undefined;
  let peer: FixedIntervalPoller | undefined;
  if (opts.withPeer !== false) {
    peerGh = await startGitHubStandIn({});
    const peerCalls: Record<string, Record<string, number>> = {};
    const peerToken = sb.createToken({ scopes: ["read"], name: "fixed-interval-peer" });
    const cfg = parseRepoConfigYaml(demoConfig());
    if (!cfg.ok) throw new Error("demo config does not parse");
    peer = new FixedIntervalPoller({
      client: new ScannerClient({
        baseUrl: h.sandbox.url,
        token: peerToken,
        onResponse: FixedIntervalPoller.counter(peerCalls),
      }),
      projectId: "prj_demo",
      github: peerGh,
      config: cfg.config as RepoConfig,
      intervalMs: opts.peerIntervalMs,
      calls: peerCalls,
    });
  }
  for (const p of allPulls) {
    const repositoryId = opts.repositoryFor?.(p) ?? "repo_demo";
    seedPulls(h, [p], peerGh, repositoryId);
  }
  const bySha = new Map(allPulls.map((p) => [p.headSha, p]));
  const perPull: PipelineResult["perPull"] = new Map();
  const ackMs: number[] = [];
  const start = Date.now();

  // the peer follows every scan diffward launches, from the moment it appears in the service
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      if (peer) {
        for (const s of sb.scans.values()) {
          if (peer.records.has(s.id)) continue;
          const p = bySha.get(s.commitHash);
          if (p)
            peer.follow({
              scanId: s.id,
              installationId: p.installationId,
              owner: p.owner,
              repo: p.repo,
              pullNumber: p.pullNumber,
              headSha: p.headSha,
            });
        }
      }
      await sleep(100);
    }
  })();

  const sends: Promise<void>[] = [];
  for (const wave of opts.waves) {
    const wait = start + wave.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    log(`  sending ${wave.pulls.length} pull_request.opened deliveries`);
    for (const p of wave.pulls) {
      const sentAt = Date.now();
      perPull.set(p.key, { sentAt });
      sends.push(
        h.send("pull_request", p.payload).then((r) => {
          if (r.status >= 300) throw new Error(`webhook answered ${r.status} for ${p.key}`);
          ackMs.push(r.durationMs);
        }),
      );
    }
  }
  await Promise.all(sends);

  // wait for every diffward check run to complete and the peer to report every scan
  const deadline = start + opts.timeoutMs;
  const waited = opts.waitForKeys ? allPulls.filter((p) => opts.waitForKeys!.includes(p.key)) : allPulls;
  const completedOf = () => {
    let n = 0;
    for (const p of waited)
      if (
        h.github.state
          .checkRuns(p.owner, p.repo)
          .some((c) => c.headSha === p.headSha && c.status === "completed")
      )
        n += 1;
    return n;
  };
  let lastLog = 0;
  for (;;) {
    const done = completedOf();
    const peerDone = peer
      ? opts.waitForKeys
        ? [...peer.records.values()].filter(
            (r) => r.reportedAt !== undefined && waited.some((p) => p.headSha === r.target.headSha),
          ).length
        : peer.done()
      : waited.length;
    if (done === waited.length && peerDone >= waited.length) break;
    if (Date.now() > deadline) {
      log(
        `  timed out after ${opts.timeoutMs} ms: diffward ${done}/${waited.length}, peer ${peerDone}/${waited.length}`,
      );
      break;
    }
    if (Date.now() - lastLog > 15_000) {
      lastLog = Date.now();
      log(`  … diffward reported ${done}/${waited.length}, peer ${peerDone}/${waited.length}`);
    }
    await sleep(200);
  }
  const wallMs = Date.now() - start;
  watching = false;
  await watcher;
  peer?.stop();
  // let the last annotation batches land
  await sleep(300);

  // ---------------------------------------------------------------- measure
  const terminal = terminalTimes(sb);
  const scans = [...sb.scans.values()].filter((s) => bySha.has(s.commitHash));
  const ra = opts.retryAfterSeconds;
  const lbPolls = (s: ScanRecord) => Math.max(1, Math.ceil(s.durationMs / 1000 / ra));
  const lbPages = (s: ScanRecord) => Math.ceil(s.findingIds.length / 100);
  const peerCalls = peer ? flatten(peer.calls) : new Map<string, number>();
  const peerPollsByScan = new Map<string, number>();
  for (const r of peer?.records.values() ?? []) peerPollsByScan.set(r.target.scanId, r.polls);
  const total = flatten(sb.stats.requests);
  const dwCalls = new Map<string, number>();
  for (const [k, n] of total) {
    if (k.startsWith("GET /_sandbox") || k.startsWith("POST /_sandbox")) continue;
    const peerN = peerCalls.get(k) ?? 0;
    dwCalls.set(k, n - peerN);
  }
  const peer429 = peer ? sum([...peer.records.values()].map((r) => r.poll429s)) : 0;

  // diffward GitHub side
  const writes = writesByPull(h.github, allPulls);
  const accepted = writes.filter((w) => w.status < 400);
  const checkByKey = new Map<string, { completedAt?: number; annotations: number }>();
  for (const p of allPulls) {
    const c = h.github.state.checkRuns(p.owner, p.repo).find((x) => x.headSha === p.headSha);
    checkByKey.set(p.key, { annotations: c?.annotations.length ?? 0 });
  }
  for (const w of accepted) {
    const pp = perPull.get(w.key);
    if (!pp) continue;
    if (w.kind === "check-create" && pp.firstFeedbackMs === undefined) pp.firstFeedbackMs = w.at - pp.sentAt;
    if (w.kind === "check-complete") {
      pp.completedAt = w.at;
      const c = checkByKey.get(w.key);
      if (c) c.completedAt = w.at;
    }
  }
  const scanByKey = new Map<string, ScanRecord>();
  for (const s of scans) scanByKey.set(bySha.get(s.commitHash)!.key, s);
  const dwDelays: number[] = [];
  for (const p of allPulls) {
    const s = scanByKey.get(p.key);
    const pp = perPull.get(p.key)!;
    const t = s ? terminal.get(s.id) : undefined;
    if (t !== undefined) pp.scanDoneAt = t;
    if (t !== undefined && pp.completedAt !== undefined) {
      pp.reportDelayMs = pp.completedAt - t;
      dwDelays.push(pp.reportDelayMs);
    }
  }
  const inlineByKey = new Map<string, number>();
  for (const p of allPulls)
    inlineByKey.set(
      p.key,
      h.github.state
        .reviewComments(p.owner, p.repo, p.pullNumber)
        .filter((c) => c.body.includes("<!-- diffward:finding=")).length,
    );
  const side = (
    name: "diffward" | "peer",
    calls: Map<string, number>,
    pollsOf: (s: ScanRecord) => number,
    shownOf: (p: BenchPull) => number,
    writeRecs: ReturnType<typeof writesByPull>,
    annotationsOf: (p: BenchPull) => number,
    delays: number[],
    poll429s: number,
    reported: number,
  ): SideFigures => {
    const pollReport = (calls.get(SCAN_READ) ?? 0) + (calls.get(FINDINGS) ?? 0) + (calls.get(FINDING) ?? 0);
    const lb = sum(scans.map((s) => lbPolls(s) + lbPages(s))) + sum(allPulls.map(shownOf));
    const ratios = scans.filter((s) => s.final).map((s) => pollsOf(s) / lbPolls(s));
    const other: Record<string, number> = {};
    for (const [k, n] of calls) {
      if (k === SCAN_READ || k === FINDINGS || k === FINDING || n === 0) continue;
      other[k] = n / Math.max(1, scans.length);
    }
    const ok = writeRecs.filter((w) => w.status < 400);
    const wp: number[] = [];
    const budget: number[] = [];
    const prog: number[] = [];
    let over = 0;
    for (const p of allPulls) {
      const mine = ok.filter((w) => w.key === p.key);
      const progress = mine.filter((w) => w.kind === "check-progress").length;
      const b = 3 + Math.ceil(annotationsOf(p) / 50) + progress;
      wp.push(mine.length);
      budget.push(b);
      prog.push(progress);
      if (mine.length > b || progress > 5) over += 1;
    }
    void name;
    return {
      scans: scans.length,
      reported,
      pollReportCalls: pollReport,
      pollReportLowerBound: lb,
      pollRatioP50: percentile(ratios, 50),
      pollRatioMax: ratios.length ? Math.max(...ratios) : Number.NaN,
      otherCallsPerScan: other,
      poll429s,
      reportDelays: delays,
      writesPerPull: wp,
      writeBudgetPerPull: budget,
      progressUpdatesPerPull: prog,
      overBudgetPulls: over,
      refusedWrites: writeRecs.filter((w) => w.status >= 400).length,
      inlineComments: sum(allPulls.map(shownOf)),
    };
  };
  const dw = side(
    "diffward",
    dwCalls,
    (s) => s.polls - (peerPollsByScan.get(s.id) ?? 0),
    (p) => inlineByKey.get(p.key) ?? 0,
    writes,
    (p) => checkByKey.get(p.key)?.annotations ?? 0,
    dwDelays,
    sb.stats.earlyPoll429s - peer429,
    allPulls.filter((p) => perPull.get(p.key)?.completedAt !== undefined).length,
  );
  let peerFig: SideFigures | undefined;
  const peerDelayByKey = new Map<string, number>();
  if (peer && peerGh) {
    const recBySha = new Map([...peer.records.values()].map((r) => [r.target.headSha, r]));
    const peerDelays: number[] = [];
    for (const r of peer.records.values()) {
      const t = terminal.get(r.target.scanId);
      if (t !== undefined && r.reportedAt !== undefined) {
        peerDelays.push(r.reportedAt - t);
        const p = bySha.get(r.target.headSha);
        if (p) peerDelayByKey.set(p.key, r.reportedAt - t);
      }
    }
    const pw = writesByPull(peerGh, allPulls);
    const peerAnn = new Map<string, number>();
    for (const p of allPulls) {
      const c = peerGh.state.checkRuns(p.owner, p.repo).find((x) => x.headSha === p.headSha);
      peerAnn.set(p.key, c?.annotations.length ?? 0);
    }
    peerFig = side(
      "peer",
      peerCalls,
      (s) => peerPollsByScan.get(s.id) ?? 0,
      (p) => recBySha.get(p.headSha)?.shown ?? 0,
      pw,
      (p) => peerAnn.get(p.key) ?? 0,
      peerDelays,
      peer429,
      [...peer.records.values()].filter((r) => r.reportedAt !== undefined).length,
    );
  }
  const okTimes = accepted.map((w) => w.at);
  const unfinished = allPulls.filter((p) => perPull.get(p.key)?.completedAt === undefined).map((p) => p.key);
  const openapiViolations = h.github.violations().length;
  await h.close();
  await peerGh?.close();
  return {
    wallMs,
    diffward: dw,
    ...(peerFig ? { peer: peerFig } : {}),
    perPull,
    ackMs,
    writeSpanMs: okTimes.length ? Math.max(...okTimes) - Math.min(...okTimes) : 0,
    unfinished,
    openapiViolations,
    peerDelayOf: (key) => peerDelayByKey.get(key),
  };
}
