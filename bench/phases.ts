/**
 * The bench phases other than the main pipeline run: webhook acknowledgement at a fixed rate, one worker
 * holding many scans in flight (RSS, CPU), and throughput of one worker process against two.
 */
import { createHmac, timingSafeEqual, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startHarness } from "../dev/harness/harness.js";
import { parseRepoConfigYaml } from "../src/config/repo-config.js";
import { demoConfig } from "../dev/harness/demo-repo.js";
import { sendWebhook } from "../dev/github-standin/index.js";
import { jobId } from "../src/runtime/names.js";
import { makePulls, seedPulls, sleep } from "./lib.js";
import { REDIS_URL, startChild, stopChild } from "./processes.js";
import { JOBS, type PollJobData } from "../src/job-catalogue/index.js";

/** Webhook acknowledgement times (ms) of diffward and of a plain verify-and-answer receiver. */
export interface AckFigures {
  rate: number;
  deliveries: number;
  diffward: number[];
  peer: number[];
  non2xx: number;
}

/**
 * Sends `deliveries` signed `pull_request.opened` deliveries at `rate` per second (paced, not awaited in
 * turn) to diffward's webhook endpoint while its workers run, then the same to the peer's receiver: a bare
 * `node:http` server that checks `X-Hub-Signature-256` (HMAC-SHA256, GitHub "Validating webhook
 * deliveries") and answers 202. The repository has no `.github/diffward.yml`, so each job stops after
 * reading the config; the acknowledgement path (signature, guards, enqueue) is the one measured.
 */
export async function ackPhase(rate: number, deliveries: number): Promise<AckFigures> {
  const h = await startHarness({});
  const pulls = makePulls("ack-org", 90, deliveries, "not-onboarded");
  for (const p of pulls) h.seed(p.payload, { files: [] });
  const secret = "peer-secret";
  const peerServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const want = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
      const got = String(req.headers["x-hub-signature-256"] ?? "");
      const ok = got.length === want.length && timingSafeEqual(Buffer.from(got), Buffer.from(want));
      res.writeHead(ok ? 202 : 401).end();
    });
  });
  await new Promise<void>((r) => peerServer.listen(0, "127.0.0.1", () => r()));
  const peerUrl = `http://127.0.0.1:${(peerServer.address() as AddressInfo).port}/`;
  const pace = async (send: (i: number) => Promise<{ status: number; durationMs: number }>) => {
    const out: number[] = [];
    let bad = 0;
    const start = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < deliveries; i++) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(
        send(i).then((r) => {
          if (r.status >= 300) bad += 1;
          out.push(r.durationMs);
        }),
      );
    }
    await Promise.all(pending);
    return { out, bad };
  };
  const dw = await pace((i) => h.send("pull_request", pulls[i]!.payload));
  const pr = await pace((i) =>
    sendWebhook({ url: peerUrl, secret, name: "pull_request", payload: pulls[i]!.payload, id: randomUUID() }),
  );
  await new Promise<void>((r) => peerServer.close(() => r()));
  await h.close();
  return { rate, deliveries, diffward: dw.out, peer: pr.out, non2xx: dw.bad + pr.bad };
}

/** RSS and CPU of one process over an observation window. */
export interface ProcessFigures {
  peakRssMb: number;
  endRssMb: number;
  /** CPU time over the window ÷ wall time, in % of one core */
  cpuPercent: number;
  windowSeconds: number;
  /** scan reads answered during the window */
  polls: number;
  /** scan reads expected in the window at one per `Retry-After` (or per interval) per scan */
  expectedPolls: number;
}

/**
 * One diffward worker process (a child) holding `scans` scans in flight: the scans exist in the sandbox
 * (30 minutes long, `Retry-After` 30 s, so they stay `QUEUED` and write nothing to GitHub in the window:
 * the lighter setup the issue allows) and each has its delayed poll job in Redis, due spread over one
 * `Retry-After`. Measures the child's RSS and CPU over `windowSeconds`, then the peer's (a child holding the
 * same scans as in-memory timers, polling every 5 s).
 */
export async function inflightPhase(
  scans: number,
  windowSeconds: number,
): Promise<{ diffward: ProcessFigures; peer: ProcessFigures }> {
  const retryAfterSeconds = 30;
  const h = await startHarness({
    workers: false,
    sandbox: { seed: 11, retryAfterSeconds, scanDurationMs: 30 * 60_000 },
  });
  const sb = h.sandbox.state;
  sb.setBalance(100_000_000);
  const [pull] = makePulls("inflight-org", 80, 1);
  seedPulls(h, [pull!]);
  const cfg = parseRepoConfigYaml(demoConfig());
  if (!cfg.ok) throw new Error("demo config does not parse");
  const tokenId = sb.tokens.get("sandbox-token")!.id;
  const now = Date.now();
  const ids: string[] = [];
  const jobs: Array<{
    name: string;
    data: PollJobData;
    opts: { jobId: string; delay: number; attempts: number };
  }> = [];
  for (let i = 0; i < scans; i++) {
    const s = sb.createScan({
      projectId: "prj_demo",
      repositoryId: "repo_demo",
      tokenId,
      presetRef: "diff-standard",
      presetName: "Diff standard",
      branch: null,
      commitHash: (i + 1).toString(16).padStart(40, "a"),
      baseCommit: "c".repeat(40),
      commitMessage: null,
      auditAreaKeys: [],
      guidance: undefined,
      creditBudget: 20,
    });
    ids.push(s.id);
    jobs.push({
      name: JOBS.poll.name,
      data: {
        installationId: pull!.installationId,
        accountLogin: pull!.owner,
        owner: pull!.owner,
        repo: pull!.repo,
        repoPrivate: false,
        defaultBranch: "main",
        pullNumber: 100_000 + i,
        headSha: s.commitHash,
        mergeBase: "c".repeat(40),
        checkRunId: 1,
        scanId: s.id,
        projectId: "prj_demo",
        presetRef: "diff-standard",
        config: cfg.config,
        launchedAt: now,
      },
      opts: {
        jobId: jobId("poll", s.id),
        delay: Math.round((i / scans) * retryAfterSeconds * 1000),
        attempts: 10,
      },
    });
  }
  for (let i = 0; i < jobs.length; i += 1000) await h.booted.rt.queues.scans.addBulk(jobs.slice(i, i + 1000));

  const measure = async (config: unknown, pollsExpected: number): Promise<ProcessFigures> => {
    const readsBefore = countReads(sb.stats.requests);
    const c = startChild(config);
    await sleep(windowSeconds * 1000);
    const readsAfter = countReads(sb.stats.requests);
    await stopChild(c.child);
    const s = c.samples;
    const first = s[Math.min(2, s.length - 1)];
    const last = s[s.length - 1];
    const cpuMs =
      first && last ? (last.cpuUserUs + last.cpuSystemUs - first.cpuUserUs - first.cpuSystemUs) / 1000 : 0;
    const wall = first && last ? last.at - first.at : 1;
    return {
      peakRssMb: Math.max(0, ...s.map((x) => x.rssBytes)) / 2 ** 20,
      endRssMb: (last?.rssBytes ?? 0) / 2 ** 20,
      cpuPercent: (100 * cpuMs) / Math.max(1, wall),
      windowSeconds,
      polls: readsAfter - readsBefore,
      expectedPolls: pollsExpected,
    };
  };
  const diffward = await measure(
    {
      mode: "worker",
      redisUrl: REDIS_URL,
      prefix: h.prefix,
      sandboxUrl: h.sandbox.url,
      githubUrl: h.github.url,
      firstPollDelayMs: 1000,
    },
    Math.round((scans * windowSeconds) / retryAfterSeconds),
  );
  const peerToken = sb.createToken({ scopes: ["read"], name: "peer" });
  const peer = await measure(
    { mode: "peer", sandboxUrl: h.sandbox.url, token: peerToken, scanIds: ids, intervalMs: 5000 },
    Math.round((scans * windowSeconds) / 5),
  );
  await h.close();
  return { diffward, peer };
}

function countReads(table: Record<string, Record<string, number>>): number {
  let n = 0;
  for (const [k, row] of Object.entries(table))
    if (/^GET \/projects\/[^/]+\/scans\/[^/]+$/.test(k)) n += Object.values(row).reduce((a, b) => a + b, 0);
  return n;
}

/** Pull requests fully reported per second with one worker process and with two. */
export interface ThroughputFigures {
  pulls: number;
  installations: number;
  oneProcess: { seconds: number; perSecond: number; reported: number };
  twoProcesses: { seconds: number; perSecond: number; reported: number };
}

/**
 * Sends `pulls` pull requests at once to diffward's web server (parent, no workers) and lets one or two
 * worker child processes carry them to completed check runs (scans of 1 s, `Retry-After` 1 s).
 */
export async function throughputPhase(
  pulls: number,
  timeoutMs: number,
  /** the pull requests are spread over this many installations (GitHub's write limits are per installation) */
  installations = 1,
): Promise<ThroughputFigures> {
  const run = async (processes: number) => {
    const h = await startHarness({
      workers: false,
      sandbox: { seed: 3, retryAfterSeconds: 1, scanDurationMs: 1000 },
    });
    h.sandbox.state.setBalance(100_000_000);
    const ps = Array.from({ length: installations }, (_, i) =>
      makePulls(
        `tp-org-${processes}-${i}`,
        70 + processes * 10 + i,
        Math.floor(pulls / installations) + (i < pulls % installations ? 1 : 0),
      ),
    ).flat();
    seedPulls(h, ps);
    const children = Array.from({ length: processes }, () =>
      startChild({
        mode: "worker",
        redisUrl: REDIS_URL,
        prefix: h.prefix,
        sandboxUrl: h.sandbox.url,
        githubUrl: h.github.url,
        firstPollDelayMs: 1000,
      }),
    );
    await sleep(3000); // let the children boot (tsx compile) before the clock starts
    const start = Date.now();
    await Promise.all(ps.map((p) => h.send("pull_request", p.payload)));
    const done = () =>
      ps.filter((p) =>
        h.github.state
          .checkRuns(p.owner, p.repo)
          .some((c) => c.headSha === p.headSha && c.status === "completed"),
      ).length;
    while (done() < ps.length && Date.now() - start < timeoutMs) await sleep(200);
    const seconds = (Date.now() - start) / 1000;
    const reported = done();
    await Promise.all(children.map((c) => stopChild(c.child)));
    await h.close();
    return { seconds, perSecond: reported / seconds, reported };
  };
  const oneProcess = await run(1);
  const twoProcesses = await run(2);
  return { pulls, installations, oneProcess, twoProcesses };
}
