/**
 * The bench's `--org-page` run: how long the organization's page takes to load and render with a deployment's
 * volume in Redis. `installations` installations, `reports` reports and `inflight` scans in flight are written
 * the way diffward's flows write them (the report log and spend records of `src/stores/org-records.ts`, scan
 * links and the installation's in-flight set, delayed poll jobs carrying their last read as BullMQ progress,
 * held approvals through the approvals store, invalid configs, failed jobs), each scan's spend in one of the
 * last six months. The first installation is the busiest: it holds `busyShare` of the reports (at most the 500
 * its log keeps) and of the scans in flight, and 20 held approvals; the others share the rest evenly. Then
 * `loads` page loads (`loadInstallationPage` + `renderInstallationPage`, an organization owner's view), one in
 * four of the busiest installation's, the rest round the others; the service's balance (sandbox over HTTP)
 * and GitHub's answer (the stand-in) are read through the page's 60 s caches as in production.
 */
import { randomBytes } from "node:crypto";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import pino from "pino";
import { ProbotOctokit } from "probot";
import { devPrivateKey } from "../dev/harness/harness.js";
import { startGitHubStandIn } from "../dev/github-standin/index.js";
import { startSandbox } from "../dev/sandbox/index.js";
import type { InstallationOctokit } from "../src/github/octokit-types.js";
import { loadInstallationPage, type OrgPageDeps } from "../src/org-page/page-data.js";
import { renderInstallationPage } from "../src/org-page/render-page.js";
import { serviceReachability } from "../src/runtime/health.js";
import { jobId } from "../src/runtime/names.js";
import { REPORT_LOG_SIZE } from "../src/stores/org-records.js";
import { createQueues } from "../src/runtime/queues.js";
import type { Runtime } from "../src/runtime/runtime.js";
import { createStores } from "../src/stores/index.js";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";
import { createScannerAccess } from "../src/tenants/index.js";
import { storeApprovalRequest } from "../src/triage/approvals.js";
import { percentile, seeded, sleep } from "./lib.js";
import { REDIS_URL, startChild, stopChild } from "./processes.js";
import { JOBS } from "../src/job-catalogue/index.js";

/** Options of {@link orgPagePhase}. */
export interface OrgPageOptions {
  installations: number;
  reports: number;
  inflight: number;
  loads: number;
  /** share of the reports and scans in flight held by the first installation, 0–1 */
  busyShare: number;
}

/** Load-and-render times of one kind of page, ms. */
export interface PageTimes {
  loads: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** the rendered page's size, bytes (the last load) */
  bytes: number;
}

/** What {@link orgPagePhase} measured. */
export interface OrgPageFigures {
  options: OrgPageOptions;
  /** every load */
  all: PageTimes;
  /** the busiest installation's loads */
  busiest: PageTimes & { reports: number; inflight: number };
  /** the first load of each installation (outside answers not cached yet), and the others */
  cold: PageTimes;
  warm: PageTimes;
  /** the same loads through HTTP (`GET /installations/<id>`, a signed-in owner's session) */
  http: ChildFigures["http"];
  /** loads that showed the balance or GitHub's answer as not there yet (past the page's 200 ms budget) */
  pending: number;
  /** service balance reads (sandbox) during the loads: at most one per installation per minute */
  balanceCalls: number;
  seedSeconds: number;
}

const REPOS = 10;
const BALANCE = "GET /projects/:projectId/billing/balance";

/** What the child measured: the page's functions called directly, then through HTTP. */
export type ChildFigures = Awaited<ReturnType<typeof measure>> & {
  http: Awaited<ReturnType<typeof measureHttp>>;
};

/** Seeds the volume, loads the pages, and tears everything down. */
export async function orgPagePhase(o: OrgPageOptions): Promise<OrgPageFigures> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = `{bench-org-${randomBytes(3).toString("hex")}}`;
  const queues = createQueues({ connection: redis, prefix });
  const sandbox = await startSandbox({ seed: 26 });
  const github = await startGitHubStandIn();
  try {
    const rt = runtimeOf(redis, prefix, queues, sandbox.url, github.url);
    for (let i = 1; i <= o.installations; i += 1) {
      github.state.addInstallation({ id: i, account: { login: `org-${i}`, type: "Organization" } });
      for (let r = 0; r < REPOS; r += 1)
        github.state.addRepository({ owner: `org-${i}`, name: `repo-${r}`, installationId: i });
    }
    const started = Date.now();
    const seededCounts = await seed(rt, o);
    const seedSeconds = (Date.now() - started) / 1000;
    const calls = () => Object.values(sandbox.state.stats.requests[BALANCE] ?? {}).reduce((a, b) => a + b, 0);
    const before = calls();
    const { all, busiest, cold, warm, pending, http } = await measureInChild(
      o,
      prefix,
      sandbox.url,
      github.url,
    );
    return {
      options: o,
      http,
      pending,
      all,
      cold,
      warm,
      busiest: { ...busiest, ...seededCounts },
      balanceCalls: calls() - before,
      seedSeconds,
    };
  } finally {
    await Promise.all(Object.values(queues).map((q) => q.obliterate({ force: true }).then(() => q.close())));
    for (let cursor = "0"; ;) {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length) await redis.del(...keys);
      if ((cursor = next) === "0") break;
    }
    redis.disconnect();
    await Promise.all([sandbox.close(), github.close()]);
  }
}

function runtimeOf(
  redis: Redis,
  prefix: string,
  queues: Runtime["queues"],
  sandboxUrl: string,
  githubUrl: string,
): OrgPageDeps["rt"] {
  const log = pino({ level: "silent" });
  return {
    redis,
    stores: createStores(redis, prefix, { settings: DEFAULT_SETTINGS, now: Date.now, log }),
    queues,
    scanner: createScannerAccess({ baseUrl: sandboxUrl, defaultToken: "sandbox-token" }),
    octokit: async (installationId) =>
      new ProbotOctokit({
        baseUrl: githubUrl,
        auth: { appId: 1, privateKey: devPrivateKey(), installationId },
        retry: { enabled: false },
        throttle: { enabled: false },
      }) as unknown as InstallationOctokit,
    now: Date.now,
    log,
    serviceHealth: serviceReachability({ baseUrl: sandboxUrl, token: "sandbox-token" }),
  };
}

/** Which installation the `n`-th of `count` items goes to: the busiest its share, the rest round the others. */
function ownerOf(n: number, count: number, o: OrgPageOptions): number {
  const busy = Math.round(count * o.busyShare);
  return n < busy || o.installations === 1 ? 1 : 2 + ((n - busy) % (o.installations - 1));
}

/** Writes the volume as the flows do; returns what the busiest installation holds. */
async function seed(
  rt: OrgPageDeps["rt"],
  o: OrgPageOptions,
): Promise<{ reports: number; inflight: number }> {
  const rng = seeded(26);
  const records = rt.stores.orgRecords;
  const now = Date.now();
  const tasks: Array<() => Promise<unknown>> = [];
  for (let n = 0; n < o.reports; n += 1) {
    const inst = ownerOf(n, o.reports, o);
    const repository = `org-${inst}/repo-${n % REPOS}`;
    const at = now - Math.floor(rng.next() * 170 * 24 * 3600_000);
    const scanId = `scan_r${n}`;
    tasks.push(() =>
      records.recordReport(inst, {
        scanId,
        repository,
        pullNumber: 1 + (n % 97),
        headSha: n.toString(16).padStart(40, "0"),
        conclusion: n % 3 === 0 ? "failure" : "success",
        severities: { CRITICAL: n % 2, HIGH: n % 4, MEDIUM: n % 5, LOW: 1 },
        receivedAt: at - 120_000,
        reportedAt: at,
      }),
    );
    const spend = {
      scanId,
      repository,
      pullNumber: 1 + (n % 97),
      credits: 10 + (n % 40),
      settled: n % 10 !== 0,
    };
    tasks.push(() => records.recordSpend(inst, at, spend, n % REPOS === 0 ? 2_000 : undefined));
  }
  for (let n = 0; n < o.inflight; n += 1)
    tasks.push(() => inFlightScan(rt, ownerOf(n, o.inflight, o), n, now));
  for (let n = 0; n < 20; n += 1) tasks.push(() => heldApproval(rt, n));
  for (let i = 1; i <= o.installations; i += 1)
    tasks.push(() =>
      records.recordConfig(i, `org-${i}/repo-9`, "failOn: expected one of critical, high", now),
    );
  for (let n = 0; n < 50; n += 1)
    tasks.push(() =>
      rt.queues.reports.add(
        JOBS.report.name,
        {
          installationId: 1 + (n % o.installations),
          owner: `org-${1 + (n % o.installations)}`,
          repo: "repo-0",
        },
        { attempts: 1 },
      ),
    );
  for (let i = 0; i < tasks.length; i += 200) await Promise.all(tasks.slice(i, i + 200).map((t) => t()));
  await failReports(rt, 50);
  return {
    reports: Math.min(REPORT_LOG_SIZE, Math.round(o.reports * o.busyShare)),
    inflight: Math.round(o.inflight * o.busyShare),
  };
}

/**
 * Runs {@link measure} in a child process booted as diffward's web process is (`bench/child.ts` `mode:
 * "org-page"`: `boot()` on the same Redis prefixes, the parent's sandbox and GitHub stand-in), so the stand-ins'
 * own work in this process does not count in the page's time.
 */
async function measureInChild(
  o: OrgPageOptions,
  prefix: string,
  sandboxUrl: string,
  githubUrl: string,
): Promise<ChildFigures> {
  const c = startChild({ mode: "org-page", redisUrl: REDIS_URL, prefix, sandboxUrl, githubUrl, options: o });
  try {
    for (const until = Date.now() + 600_000; Date.now() < until; await sleep(100)) {
      if (c.child.exitCode !== null) throw new Error(`the org-page child exited with ${c.child.exitCode}`);
      for (const line of c.lines)
        if (line.startsWith('{"orgPage"')) return (JSON.parse(line) as { orgPage: ChildFigures }).orgPage;
    }
    throw new Error("the org-page child printed no figures in 10 minutes");
  } finally {
    await stopChild(c.child);
  }
}

/** Runs the report jobs waiting to a failure each (a worker that throws): the page's failed jobs. */
async function failReports(rt: OrgPageDeps["rt"], count: number): Promise<void> {
  const worker = new Worker(
    rt.queues.reports.name,
    async () => Promise.reject(new Error("GitHub 502 on every attempt")),
    {
      connection: rt.redis,
      prefix: rt.stores.prefix,
    },
  );
  try {
    while ((await rt.queues.reports.getFailedCount()) < count) await new Promise((r) => setTimeout(r, 50));
  } finally {
    await worker.close();
  }
}

/** A scan in flight: its link, the installation's in-flight set, and its delayed poll job with its last read. */
async function inFlightScan(rt: OrgPageDeps["rt"], inst: number, n: number, now: number): Promise<void> {
  const scanId = `scan_f${n}`;
  const link = {
    scanId,
    projectId: "prj_demo",
    installationId: inst,
    accountLogin: `org-${inst}`,
    owner: `org-${inst}`,
    repo: `repo-${n % REPOS}`,
    pullNumber: 100 + n,
    headSha: n.toString(16).padStart(40, "a"),
    checkRunId: 1000 + n,
  };
  await rt.stores.scans.linkScan(link);
  const job = await rt.queues.scans.add(
    JOBS.poll.name,
    { ...link, launchedAt: now - 60_000 * (n % 30) },
    { jobId: jobId("poll", scanId), delay: 600_000 },
  );
  await job.updateProgress({ status: "PROCESSING", percent: n % 100, readAt: now, nextReadAt: now + 5_000 });
}

/** A held dismissal on one of the busiest installation's pull requests. */
async function heldApproval(rt: OrgPageDeps["rt"], n: number): Promise<void> {
  await storeApprovalRequest(rt as Runtime, `org-1/repo-${n % REPOS}#${1 + n}`, {
    findingId: `fnd_${n}`,
    fingerprint: n.toString(16).padStart(64, "0"),
    severity: "HIGH",
    resolutionStatus: "FALSE_POSITIVE",
    requestedBy: "writer",
    requestedAt: new Date().toISOString(),
    approvers: "maintain",
  });
}

/**
 * Loads and renders `loads` pages: every fourth the busiest installation's. A load is `cold` when it is the
 * first of its installation (the balance and GitHub's answer are not cached yet).
 */
export async function measure(
  deps: OrgPageDeps,
  o: OrgPageOptions,
): Promise<{ all: PageTimes; busiest: PageTimes; cold: PageTimes; warm: PageTimes; pending: number }> {
  const access = { orgWide: true, repositories: "all" } as const;
  const seen = new Set<number>();
  const xs = { all: [] as number[], busy: [] as number[], cold: [] as number[], warm: [] as number[] };
  let bytes = { all: 0, busy: 0 };
  let pending = 0;
  let other = 0;
  for (let n = 0; n < o.loads; n += 1) {
    const inst = n % 4 === 0 || o.installations === 1 ? 1 : 2 + (other++ % (o.installations - 1));
    const t0 = performance.now();
    const page = await loadInstallationPage(deps, inst, access);
    const html = renderInstallationPage(page, { user: "owner", logoutPath: "/logout" });
    const ms = performance.now() - t0;
    xs.all.push(ms);
    if (page.problems.github.state === "checking" || (page.credits && "error" in page.credits)) pending += 1;
    (seen.has(inst) ? xs.warm : xs.cold).push(ms);
    seen.add(inst);
    bytes.all = Buffer.byteLength(html);
    if (inst === 1) {
      xs.busy.push(ms);
      bytes = { ...bytes, busy: Buffer.byteLength(html) };
    }
  }
  return {
    all: times(xs.all, bytes.all),
    busiest: times(xs.busy, bytes.busy),
    cold: times(xs.cold, 0),
    warm: times(xs.warm, 0),
    pending,
  };
}

/**
 * The same sequence of loads through HTTP: `GET /installations/<id>` on diffward's web server (the page's
 * route, `src/web/routes.ts`) with a signed-in owner's session cookie, timed to the last byte of the body.
 */
export async function measureHttp(
  baseUrl: string,
  cookie: string,
  o: OrgPageOptions,
): Promise<{ all: PageTimes; cold: PageTimes; warm: PageTimes; statuses: Record<string, number> }> {
  const seen = new Set<number>();
  const xs = { all: [] as number[], cold: [] as number[], warm: [] as number[] };
  const statuses: Record<string, number> = {};
  let bytes = 0;
  let other = 0;
  for (let n = 0; n < o.loads; n += 1) {
    const inst = n % 4 === 0 || o.installations === 1 ? 1 : 2 + (other++ % (o.installations - 1));
    const t0 = performance.now();
    const res = await fetch(`${baseUrl}/installations/${inst}`, { headers: { cookie } });
    const body = await res.text();
    const ms = performance.now() - t0;
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    xs.all.push(ms);
    (seen.has(inst) ? xs.warm : xs.cold).push(ms);
    seen.add(inst);
    bytes = Buffer.byteLength(body);
  }
  return { all: times(xs.all, bytes), cold: times(xs.cold, 0), warm: times(xs.warm, 0), statuses };
}

function times(xs: readonly number[], bytes: number): PageTimes {
  return {
    loads: xs.length,
    p50: percentile(xs, 50),
    p95: percentile(xs, 95),
    p99: percentile(xs, 99),
    max: Math.max(...xs),
    bytes,
  };
}
