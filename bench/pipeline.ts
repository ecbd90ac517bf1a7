/**
 * One pipeline run of the bench: the harness (sandbox + GitHub stand-in + real Redis + diffward web and
 * workers, or with `workerProcesses` diffward's web server and workers in child processes) and the fixed-interval peer following the same scans, then the figures read from the sandbox's
 * counters (`state.stats`, per-scan `polls`, `final.atMs`) and the stand-ins' recorded requests.
 */
import { randomUUID } from "node:crypto";
import { startHarness, type HarnessOptions, type HeadlessHarness } from "../dev/harness/harness.js";
import { parseRepoConfigYaml, type RepoConfig } from "../src/config/repo-config.js";
import { demoConfig } from "../dev/harness/demo-repo.js";
import {
  sendWebhook,
  startGitHubStandIn,
  type GitHubStandIn,
  type SendWebhookResult,
} from "../dev/github-standin/index.js";
import { ScannerClient } from "../src/scanner/client.js";
import { WHERE_TO_READ_LEAD } from "../src/render/check-run.js";
import { applyFaults, type ScanRecord } from "../dev/sandbox/index.js";
import { FixedIntervalPoller } from "./peer.js";
import {
  REDIS_URL,
  peakRssMb,
  cpuSeconds,
  sampleOwnRss,
  childUrl,
  startChild,
  stopChild,
  waitForChildren,
  type BenchChild,
} from "./processes.js";
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
  /** diffward's settings for the run, over the defaults (in-process workers only) */
  settings?: HarnessOptions["settings"];
  /** extra sandbox repositories (id) in `prj_demo`, for pull requests whose config names them */
  extraRepositories?: string[];
  repositoryFor?: (p: BenchPull) => string;
  withPeer?: boolean;
  /** wait only for these pull requests (keys) instead of all of them */
  waitForKeys?: string[];
  /**
   * diffward's queue workers run in this many worker child processes (`bench/child.ts` `mode: "worker"`) and
   * its web server in one more (`mode: "web"`; webhooks are sent there), the sandbox and stand-ins staying in
   * this process; 0 (default): web server and workers in this process, as the harness does
   */
  workerProcesses?: number;
  /**
   * a scanning-service outage starting right before the first wave: every service route answers 503 with
   * `Retry-After: retryAfterSeconds` for `durationMs` (the sandbox's `outage` fault)
   */
  serviceOutage?: { durationMs: number; retryAfterSeconds: number };
  log?: (line: string) => void;
}

/** Figures of one side (diffward or the peer). */
export interface SideFigures {
  scans: number;
  reported: number;
  /** polling + reporting calls (scan reads, findings pages, finding details) */
  pollReportCalls: number;
  /** their lower bound: Σ ⌈duration / Retry-After⌉ + ⌈findings / 100⌉ + details shown (review comments or check-run details) */
  pollReportLowerBound: number;
  /** per-scan poll ratio (polls ÷ ⌈duration / Retry-After⌉) p50 / max */
  pollRatioP50: number;
  pollRatioMax: number;
  /** other calls per scan, by route */
  otherCallsPerScan: Record<string, number>;
  /** 429 answers to this side's own scan reads */
  poll429s: number;
  /** every 429 answer the service gave this side, by route normalized with `normalizeRoute` of `bench/lib.ts` */
  service429sByRoute: Record<string, number>;
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
  /** diffward's GitHub stand-in answers 403 to writes (its secondary rate limit; nothing else answers 403 there) */
  secondaryRefusals: number;
  /** diffward's GitHub stand-in answers 429 (only injected faults give them) */
  github429s: number;
  /** accepted writes per installation id (the stand-in's counter of content-creating requests) */
  writesByInstallation: Record<string, number>;
  /**
   * Peak RSS per process, MB (2^20 bytes), sampled once a second: `parentPeakRssMb` is this process (the
   * sandbox, the GitHub stand-ins, the peer and the bench itself, plus diffward's web server and workers when
   * `workerProcesses` is 0); `workerPeakRssMb` one entry per worker child process, `workerBootRssMb` its first
   * sample (booted, before any webhook: the floor of Node + tsx + diffward's modules); `webPeakRssMb` and
   * `webBootRssMb` the same for the web server's child process (only with `workerProcesses` > 0).
   * `workerCpuSeconds` and `webCpuSeconds`: CPU time (user + system, s) each child used up to its last sample.
   */
  processes: {
    parentPeakRssMb: number;
    workerPeakRssMb: number[];
    workerBootRssMb: number[];
    webPeakRssMb?: number;
    webBootRssMb?: number;
    workerCpuSeconds: number[];
    webCpuSeconds?: number;
  };
  /** the peer's report delay (scan terminal → its check run completed) for one pull request, ms */
  peerDelayOf?: (key: string) => number | undefined;
  /**
   * with `serviceOutage`: when it began and ended (epoch ms), the service requests it answered 503 (every
   * client's: diffward's alone when the peer is off), and per pull request webhook → its scan launched (ms)
   */
  outage?: { startedAt: number; endedAt: number; requests: number; launchAfterEndMs: number[] };
}

const SCAN_READ = "GET /projects/*/scans/*";
const FINDINGS = "GET /projects/*/findings";
const FINDING = "GET /projects/*/findings/*";

/** Runs the waves through diffward (and the peer), waits for every report, and measures. */
export async function runPipeline(opts: PipelineOptions): Promise<PipelineResult> {
  const log = opts.log ?? (() => undefined);
  const ownRss = sampleOwnRss();
  const workerProcesses = opts.workerProcesses ?? 0;
  const harnessOptions: Omit<HarnessOptions, "web"> = {
    sandbox: { seed: 7, retryAfterSeconds: opts.retryAfterSeconds, scanDurationMs: opts.scanDurationMs },
    ...(opts.github ? { github: opts.github } : {}),
    ...(opts.settings ? { settings: opts.settings } : {}),
  };
  let h: HeadlessHarness;
  let send: (name: string, payload: Record<string, unknown>) => Promise<SendWebhookResult>;
  const children: BenchChild[] = [];
  let webChild: BenchChild | undefined;
  if (workerProcesses === 0) {
    const full = await startHarness(harnessOptions);
    h = full;
    send = (name, payload) => full.send(name, payload);
  } else {
    // diffward's web server and workers each in a child process, so that their RSS is diffward's alone
    const headless = await startHarness({ ...harnessOptions, web: false, workers: false });
    h = headless;
    const shared = {
      redisUrl: REDIS_URL,
      prefix: h.prefix,
      sandboxUrl: h.sandbox.url,
      githubUrl: h.github.url,
      firstPollDelayMs: 1000,
    };
    const web = startChild({ mode: "web", ...shared, webhookSecret: h.webhookSecret });
    webChild = web;
    for (let i = 0; i < workerProcesses; i++) children.push(startChild({ mode: "worker", ...shared }));
    let webhookUrl: string;
    try {
      await waitForChildren([web, ...children]);
      webhookUrl = `${childUrl(web)}/api/github/webhooks`;
    } catch (error) {
      await Promise.all([web, ...children].map((c) => stopChild(c.child)));
      ownRss.stop();
      await h.close();
      throw error;
    }
    send = (name, payload) =>
      sendWebhook({ url: webhookUrl, secret: headless.webhookSecret, name, payload, id: randomUUID() });
    log(
      `  web server in a child process (pid ${web.child.pid}, ${webhookUrl}); ${children.length} worker child processes (pids ${children.map((c) => c.child.pid).join(", ")})`,
    );
  }
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

  let outageStartedAt: number | undefined;
  if (opts.serviceOutage) {
    applyFaults(sb, {
      outage: {
        durationMs: opts.serviceOutage.durationMs,
        retryAfterSeconds: opts.serviceOutage.retryAfterSeconds,
      },
    });
    outageStartedAt = Date.now();
    log(`  service outage: every route answers 503 for ${opts.serviceOutage.durationMs / 1000} s`);
  }
  const sends: Promise<void>[] = [];
  for (const wave of opts.waves) {
    const wait = start + wave.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    log(`  sending ${wave.pulls.length} pull_request.opened deliveries`);
    for (const p of wave.pulls) {
      const sentAt = Date.now();
      perPull.set(p.key, { sentAt });
      sends.push(
        send("pull_request", p.payload).then((r) => {
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
  const waitedRepos = [...new Set(waited.map((p) => `${p.owner}/${p.repo}`))];
  // one pass over each repository's check runs per tick: linear in check runs, not PRs × check runs
  const completedOf = () => {
    const done = new Set<string>();
    for (const r of waitedRepos) {
      const [owner, repo] = r.split("/") as [string, string];
      for (const c of h.github.state.checkRuns(owner, repo))
        if (c.status === "completed") done.add(`${r}@${c.headSha}`);
    }
    let n = 0;
    for (const p of waited) if (done.has(`${p.owner}/${p.repo}@${p.headSha}`)) n += 1;
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
      log(
        `  … diffward reported ${done}/${waited.length}${peer ? `, peer ${peerDone}/${waited.length}` : ""}`,
      );
    }
    await sleep(200);
  }
  const wallMs = Date.now() - start;
  const outageRequests = sb.faults.outage?.requests ?? 0;
  watching = false;
  await watcher;
  peer?.stop();
  // let the last annotation batches land
  await sleep(300);
  await Promise.all([...(webChild ? [webChild] : []), ...children].map((c) => stopChild(c.child)));
  const processes: PipelineResult["processes"] = {
    parentPeakRssMb: ownRss.stop(),
    workerPeakRssMb: children.map((c) => peakRssMb(c.samples)),
    workerBootRssMb: children.map((c) => peakRssMb(c.samples.slice(0, 1))),
    workerCpuSeconds: children.map((c) => cpuSeconds(c.samples)),
    ...(webChild
      ? {
          webCpuSeconds: cpuSeconds(webChild.samples),
          webPeakRssMb: peakRssMb(webChild.samples),
          webBootRssMb: peakRssMb(webChild.samples.slice(0, 1)),
        }
      : {}),
  };

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
  const peer429ByRoute = peer ? flatten(peer.calls, "429") : new Map<string, number>();
  const dw429ByRoute: Record<string, number> = {};
  for (const [k, n] of flatten(sb.stats.requests, "429")) {
    if (k.startsWith("GET /_sandbox") || k.startsWith("POST /_sandbox")) continue;
    const mine = n - (peer429ByRoute.get(k) ?? 0);
    if (mine > 0) dw429ByRoute[k] = mine;
  }
  const peer429Table: Record<string, number> = {};
  for (const [k, n] of peer429ByRoute) if (n > 0) peer429Table[k] = n;

  // diffward GitHub side
  const writes = writesByPull(h.github, allPulls);
  const accepted = writes.filter((w) => w.status < 400);
  const checkByKey = new Map<string, { completedAt?: number; annotations: number }>();
  const firstRunBySha = (gh: GitHubStandIn) => {
    const out = new Map<string, { annotations: unknown[] }>();
    for (const r of new Set(allPulls.map((p) => `${p.owner}/${p.repo}`))) {
      const [owner, repo] = r.split("/") as [string, string];
      for (const c of gh.state.checkRuns(owner, repo))
        if (!out.has(`${r}@${c.headSha}`)) out.set(`${r}@${c.headSha}`, c);
    }
    return (p: BenchPull) => out.get(`${p.owner}/${p.repo}@${p.headSha}`);
  };
  const dwRunOf = firstRunBySha(h.github);
  for (const p of allPulls) checkByKey.set(p.key, { annotations: dwRunOf(p)?.annotations.length ?? 0 });
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
  // Details shown per pull request: a finding's detail (GET …/findings/{id}) is needed when its description or
  // fix is shown, in a review comment or in the check run's details (`output.text`, one entry per open finding
  // split by "---"; an entry without a fetched detail points elsewhere instead). Both come from the same read,
  // so the distinct count is the larger of the two. Under the hourly budget's degrade the review is folded into
  // the check run, whose details then are the only place the text is shown.
  const inlineByKey = new Map<string, number>();
  for (const p of allPulls) {
    const inline = h.github.state
      .reviewComments(p.owner, p.repo, p.pullNumber)
      .filter((c) => c.body.includes("<!-- diffward:finding=")).length;
    const run = h.github.state
      .checkRuns(p.owner, p.repo)
      .find((c) => c.headSha === p.headSha && c.status === "completed");
    const entries = run?.output.text ? run.output.text.split("\n\n---\n\n") : [];
    const withDetail = entries.filter((e) => e.startsWith("### ") && !e.includes(WHERE_TO_READ_LEAD)).length;
    inlineByKey.set(p.key, Math.max(inline, withDetail));
  }
  const side = (
    name: "diffward" | "peer",
    calls: Map<string, number>,
    pollsOf: (s: ScanRecord) => number,
    shownOf: (p: BenchPull) => number,
    writeRecs: ReturnType<typeof writesByPull>,
    annotationsOf: (p: BenchPull) => number,
    delays: number[],
    poll429s: number,
    service429sByRoute: Record<string, number>,
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
    const okByKey = new Map<string, typeof writeRecs>();
    for (const w of writeRecs) {
      if (w.status >= 400) continue;
      const list = okByKey.get(w.key);
      if (list) list.push(w);
      else okByKey.set(w.key, [w]);
    }
    const wp: number[] = [];
    const budget: number[] = [];
    const prog: number[] = [];
    let over = 0;
    for (const p of allPulls) {
      const mine = okByKey.get(p.key) ?? [];
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
      service429sByRoute,
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
    dw429ByRoute,
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
    const peerRunOf = firstRunBySha(peerGh);
    for (const p of allPulls) peerAnn.set(p.key, peerRunOf(p)?.annotations.length ?? 0);
    peerFig = side(
      "peer",
      peerCalls,
      (s) => peerPollsByScan.get(s.id) ?? 0,
      (p) => recBySha.get(p.headSha)?.shown ?? 0,
      pw,
      (p) => peerAnn.get(p.key) ?? 0,
      peerDelays,
      peer429,
      peer429Table,
      [...peer.records.values()].filter((r) => r.reportedAt !== undefined).length,
    );
  }
  const okTimes = accepted.map((w) => w.at);
  const unfinished = allPulls.filter((p) => perPull.get(p.key)?.completedAt === undefined).map((p) => p.key);
  const openapiViolations = h.github.violations().length;
  let secondaryRefusals = 0;
  let github429s = 0;
  for (const req of h.github.requests) {
    if (req.status === 403 && req.method !== "GET") secondaryRefusals += 1;
    if (req.status === 429) github429s += 1;
  }
  const writesByInstallation: Record<string, number> = {};
  for (const id of new Set(allPulls.map((p) => p.installationId)))
    writesByInstallation[String(id)] = h.github.writes(id);
  await h.close();
  await peerGh?.close();
  return {
    wallMs,
    diffward: dw,
    ...(peerFig ? { peer: peerFig } : {}),
    perPull,
    ackMs,
    writeSpanMs: okTimes.length
      ? okTimes.reduce((a, b) => Math.max(a, b)) - okTimes.reduce((a, b) => Math.min(a, b))
      : 0,
    unfinished,
    openapiViolations,
    secondaryRefusals,
    github429s,
    writesByInstallation,
    processes,
    peerDelayOf: (key) => peerDelayByKey.get(key),
    ...(opts.serviceOutage && outageStartedAt !== undefined
      ? {
          outage: {
            startedAt: outageStartedAt,
            endedAt: outageStartedAt + opts.serviceOutage.durationMs,
            requests: outageRequests,
            launchAfterEndMs: scans.map(
              (s) => s.createdAtMs - (outageStartedAt! + opts.serviceOutage!.durationMs),
            ),
          },
        }
      : {}),
  };
}
