/**
 * The bench's `--reconcile` run: what a restart costs. `installations` organizations × `repositories`
 * repositories × `pulls` open pull requests on the GitHub stand-in, and `inflight` scans in flight (one pull
 * request each, in the first installations, scans running long in the sandbox). A running deployment's state
 * is built (its pull requests opened, launched, polled, and the state marker an earlier start's sweep wrote),
 * then:
 * - state intact: the running workers stop and a new process boots on the same Redis and reconciles;
 * - state lost: Redis is flushed (diffward's state and BullMQ's jobs) and a new process boots and reconciles.
 * Each figure counts the GitHub requests the stand-in received from the new process's start until every
 * in-flight scan is followed again (its `poll-<scanId>` job waiting, delayed or running), and the seconds it took.
 */
import { Redis } from "ioredis";
import { boot, type Booted } from "../src/boot.js";
import { devPrivateKey, startHarness, type Harness } from "../dev/harness/harness.js";
import { seedOrganization } from "../dev/github-standin/index.js";
import { demoConfig } from "../dev/harness/demo-repo.js";
import { jobId } from "../src/runtime/names.js";
import { createLogger } from "../src/runtime/logger.js";
import { makePulls, seedPulls, sleep, type BenchPull } from "./lib.js";
import { REDIS_URL } from "./processes.js";

/** Options of {@link reconcilePhase}. */
export interface ReconcileOptions {
  installations: number;
  repositories: number;
  pulls: number;
  /** open pull requests of each installation in all, spread over its repositories (instead of `pulls` each) */
  totalPulls?: number;
  inflight: number;
  /** share of the repositories with their own `.github/diffward.yml` (the rest have none), 0–1 */
  configured: number;
  /** new pull requests opened during the state-lost walk, and as many after it, for first feedback; 0 skips */
  feedbackPulls?: number;
}

/** One restart's cost. */
export interface RestartFigures {
  /** GitHub requests (REST and GraphQL, app JWT and installation tokens) from the new process's start */
  requests: number;
  /** of which creating installation tokens */
  tokens: number;
  /** of which GraphQL queries, and the points they cost (GitHub's `rateLimit.cost`, summed) */
  graphql: number;
  points: number;
  /** seconds from the new process's start until every in-flight scan's poll job is there */
  seconds: number;
  /** in-flight scans followed again at the end (of `inflight`) */
  followed: number;
  /** the reconciliation's summary as it returned it */
  summary: Record<string, unknown>;
}

/** New pull requests' first feedback (webhook sent → diffward's check run created on the stand-in), ms each. */
export interface FeedbackFigures {
  /** sent one after another, 2 s apart, while a state-lost reconciliation walks the organization */
  duringWalk: number[];
  /** the same number sent the same way after the walk ended, with nothing else running */
  alone: number[];
  /** the walk's seconds in this run (workers running beside it) */
  walkSeconds: number;
}

/** What {@link reconcilePhase} measured. */
export interface ReconcileFigures {
  options: ReconcileOptions;
  intact: RestartFigures;
  lost: RestartFigures;
  feedback?: FeedbackFigures;
}

/** How many of the scans have a poll job waiting, delayed or running. */
async function followedCount(b: Booted, scanIds: readonly string[]): Promise<number> {
  let n = 0;
  for (const id of scanIds) {
    const job = await b.rt.queues.scans.getJob(jobId("poll", id));
    const state = job ? await job.getState() : undefined;
    if (state === "waiting" || state === "delayed" || state === "active" || state === "prioritized") n += 1;
  }
  return n;
}

/** A new diffward process on the harness's Redis prefix and stand-ins (no web server, no workers). */
function newProcess(h: Harness): Booted {
  return boot({
    appId: 1,
    privateKey: devPrivateKey(),
    webhookSecret: h.webhookSecret,
    githubBaseUrl: h.github.url,
    redisUrl: REDIS_URL,
    queuePrefix: h.prefix,
    statePrefix: h.prefix,
    scannerApiUrl: h.sandbox.url,
    scannerToken: "sandbox-token",
    log: createLogger({ level: process.env.LOG_LEVEL ?? "silent" }),
    settings: { firstPollDelayMs: 1_000 },
  });
}

/** Boots a new process, reconciles, and measures until every in-flight scan is followed (or 30 min). */
async function restart(h: Harness, scanIds: readonly string[]): Promise<RestartFigures> {
  const from = h.github.requests.length;
  const t0 = performance.now();
  const b = newProcess(h);
  try {
    const summary = (await b.reconcile()) as unknown as Record<string, unknown>;
    const until = Date.now() + 30 * 60_000;
    let followed = await followedCount(b, scanIds);
    while (followed < scanIds.length && Date.now() < until) {
      await sleep(50);
      followed = await followedCount(b, scanIds);
    }
    const seconds = (performance.now() - t0) / 1000;
    const asked = h.github.requests.slice(from);
    return {
      requests: asked.length,
      tokens: asked.filter((r) => r.operationId === "apps/create-installation-access-token").length,
      graphql: asked.filter((r) => r.operationId === "graphql").length,
      points: asked.reduce((n, r) => n + (r.graphqlCost ?? 0), 0),
      seconds,
      followed,
      summary: {
        ...summary,
        resumed: (summary.resumed as unknown[]).length,
        alreadyFollowed: (summary.alreadyFollowed as unknown[]).length,
      },
    };
  } finally {
    await b.close();
  }
}

/** Deletes every key of the harness's prefix: diffward's state and BullMQ's jobs, as a lost Redis would. */
async function flush(prefix: string): Promise<void> {
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== "0");
  } finally {
    r.disconnect();
  }
}

/** Opens `pull` (its webhook through the harness's web server) and waits for diffward's check run: ms. */
async function firstFeedback(h: Harness, pull: BenchPull): Promise<number> {
  const t0 = Date.now();
  const from = h.github.requests.length;
  await h.send("pull_request", pull.payload);
  const created = await h.waitFor(
    () =>
      h.github.requests
        .slice(from)
        .find(
          (r) =>
            r.operationId === "checks/create" &&
            (r.body as { head_sha?: string } | undefined)?.head_sha === pull.headSha,
        ),
    120_000,
    `check run of ${pull.key}`,
  );
  return created.at - t0;
}

/**
 * First feedback while a walk runs: the state is lost again, a new process with workers starts, and its
 * reconciliation (a full sweep) runs while `n` new pull requests of a configured repository are opened
 * 2 s apart (the installation's write lane keeps GitHub's one second between two writes,
 * `src/runtime/write-lane.ts`, and each pull request writes twice, its check run's creation and its scan id:
 * closer pull requests would measure that wait); then `n` more with nothing else
 * running. First feedback is read from the stand-in's request log: webhook sent → the head's
 * `POST /repos/{owner}/{repo}/check-runs` received (ms, not a polling step).
 */
async function feedbackRun(h: Harness, n: number): Promise<FeedbackFigures> {
  await flush(h.prefix);
  const b = newProcess(h);
  b.startWorkers();
  try {
    const pulls = makePulls("org-0", 0, 2 * n, "fresh");
    for (const p of pulls) {
      // a repository id of its own (makePulls gives each organization's repositories one)
      const repository = { ...p.payload.repository, id: 59_999 };
      p.payload.repository = repository;
      p.payload.pull_request.head.repo = repository;
      p.payload.pull_request.base.repo = repository;
    }
    seedPulls(h, pulls);
    const t0 = performance.now();
    let walking = true;
    const walk = b.reconcile().finally(() => (walking = false));
    const duringWalk: number[] = [];
    for (const p of pulls.slice(0, n)) {
      if (!walking) break;
      duringWalk.push(await firstFeedback(h, p));
      await sleep(2_000);
    }
    await walk;
    const walkSeconds = (performance.now() - t0) / 1000;
    const alone: number[] = [];
    for (const p of pulls.slice(n, n + Math.max(duringWalk.length, 1))) {
      alone.push(await firstFeedback(h, p));
      await sleep(2_000);
    }
    return { duringWalk, alone, walkSeconds };
  } finally {
    await b.close();
  }
}

/**
 * Runs the restart bench (see the file's comment).
 * @throws when the in-flight scans are not launched within 2 minutes.
 */
export async function reconcilePhase(o: ReconcileOptions): Promise<ReconcileFigures> {
  const h = await startHarness({
    sandbox: { scenario: "demo", scanDurationMs: 3_600_000, retryAfterSeconds: 30 },
  });
  try {
    const configuredEvery = o.configured <= 0 ? Infinity : Math.round(1 / o.configured);
    for (let i = 0; i < o.installations; i++)
      seedOrganization(h.github.state, {
        installationId: 1000 + i,
        login: `org-${i}`,
        repositories: o.repositories,
        pullsPerRepository: o.pulls,
        ...(o.totalPulls ? { pulls: o.totalPulls } : {}),
        config: (r) => (r % configuredEvery === 0 ? demoConfig() : null),
      });
    const inflight = Array.from({ length: o.inflight }, (_, k) => {
      const i = k % o.installations;
      return makePulls(`org-${i}`, i, Math.floor(k / o.installations) + 1, "inflight").at(-1)!;
    });
    seedPulls(h, inflight);
    for (const p of inflight) await h.send("pull_request", p.payload);
    const scanIds = await h.waitFor(
      () => {
        const ids = inflight.map(
          (p) =>
            h.github.state
              .checkRuns(p.owner, p.repo)
              .find((c) => c.headSha === p.headSha && c.externalId && c.status !== "completed")?.externalId,
        );
        return ids.every(Boolean) ? (ids as string[]) : undefined;
      },
      120_000,
      "every in-flight scan launched",
    );
    // the deployment's state as an earlier start left it: the marker its full sweep wrote (a version without
    // the marker sweeps at every start whatever Redis holds)
    const state = h.booted.rt.stores.pulls as { markSwept?: (at: string) => Promise<void> };
    await state.markSwept?.(new Date().toISOString());
    // the deployment stops: its workers finish what they run; the scans stay in flight in the sandbox
    for (const w of h.booted.workers) await w.close();

    const intact = await restart(h, scanIds);
    await flush(h.prefix);
    const lost = await restart(h, scanIds);
    const feedback = o.feedbackPulls ? await feedbackRun(h, o.feedbackPulls) : undefined;
    return { options: o, intact, lost, ...(feedback ? { feedback } : {}) };
  } finally {
    await h.close();
  }
}
