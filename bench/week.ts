/**
 * `npm run bench -- --week`: a simulated week of one organization (bench/week-scenario.ts) replayed against
 * diffward's web server and workers in child processes (bench/child.ts), the sandbox of the scanning service
 * and the GitHub stand-in (in this process), and a `redis-server` of the bench's own on a free port (never the
 * machine's shared 6379), started with an append-only file so its restart keeps the data. A worker is killed
 * with SIGKILL every 1/12 of the wall time and replaced; a load generator sends signed deliveries at 100/s
 * for 10 s twice before the week (a new web process's first window, reported apart as cold; then idle) and
 * in three windows during it. Once the week has drained, the invariants of
 * bench/week-invariants.ts are read from the stand-in, the sandbox, Redis and the processes' samples.
 */
import { randomUUID } from "node:crypto";
import type { Job } from "bullmq";
import { startHarness, type Harness, type HeadlessHarness } from "../dev/harness/harness.js";
import { webhookExample } from "../dev/harness/examples.js";
import { demoConfig, demoPullFiles } from "../dev/harness/demo-repo.js";
import { findingComments, writeConversationComment, writeReviewReply } from "../dev/harness/triage.js";
import { freePort, startRedisServer, type RedisServerProcess } from "../dev/harness/redis.js";
import { mergeGroupPayload, pushPayload } from "../dev/github-standin/index.js";
import { applyFaults } from "../dev/sandbox/index.js";
import { QUEUE_NAMES, REDIS_KEYS, jobId, pullKey, redisKeyRegExp } from "../src/runtime/names.js";
import { JOBS } from "../src/job-catalogue/index.js";
import { seeded, sleep } from "./lib.js";
import { childUrl, startChild, stopChild, waitForChildren, type BenchChild } from "./processes.js";
import { countKinds, weekScenario, type WeekEvent } from "./week-scenario.js";
import {
  checkWeek,
  launchedTwice,
  owedAnswers,
  serverP99Ms,
  webhookBuckets,
  wronglyReported,
  type InvariantRow,
  type WeekFacts,
} from "./week-invariants.js";
import { tellHead } from "./week-stories.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw webhook payloads, edited in place
type Payload = any;

/** Options of {@link weekPhase}. */
export interface WeekPhaseOptions {
  seed: number;
  wallMs: number;
  pulls: number;
  repositories: number;
  /** after the wall time, how long to wait at most for the last check runs, ms */
  drainMs: number;
  log: (s: string) => void;
}

/** What the week measured: the invariants' rows and the counts behind them. */
export interface WeekResult {
  rows: InvariantRow[];
  /** each failing head's timeline (bench/week-stories.ts) */
  stories: string[];
  events: ReturnType<typeof countKinds>;
  deliveries: { sent: number; failed: number };
  workerKills: number;
  wallMs: number;
}

const ORG = "weekorg";
const WRITER = "octo-writer";
const INSTALLATION = 7401;
const ACK_INSTALLATION = 7499;
const CONFIG = demoConfig("mergeQueue: scan\nbaseline:\n  on: push\n  preset: full-standard");

/** One pull request of the week as the driver knows it. */
interface WeekPull {
  repo: string;
  number: number;
  payload: Payload;
  head: string;
  open: boolean;
}

/** The running week: processes, stand-ins and what was sent. */
interface Week {
  h: HeadlessHarness;
  redis: RedisServerProcess;
  web: BenchChild;
  stable: BenchChild;
  rotating: BenchChild;
  webhookUrl: string;
  installationId: number;
  pulls: Map<string, WeekPull>;
  /** per thread or conversation: diffward's answers there, and the commands written (in order) */
  places: Map<string, { answers: () => number; sent: SentCommand[] }>;
  /** finding-thread commands sent per head SHA (each may recompute that head's check run in place) */
  findingCommands: Map<string, number>;
  rescans: Map<string, number>;
  leftByUninstall: Set<number>;
  sent: number;
  failed: number;
  kills: number;
  shas: number;
  log: (s: string) => void;
}

const childConfig = (w: Pick<Week, "h" | "redis">) => ({
  redisUrl: `redis://127.0.0.1:${w.redis.port}`,
  prefix: w.h.prefix,
  sandboxUrl: w.h.sandbox.url,
  githubUrl: w.h.github.url,
  firstPollDelayMs: 1000,
});

async function deliver(w: Week, name: string, payload: Payload, guid: string = randomUUID()): Promise<void> {
  w.sent += 1;
  const r = await w.h.github.deliver(name, payload, guid);
  if (r.status < 200 || r.status >= 300) w.failed += 1;
}

/** A job as BullMQ has it: state, attempts, outcome or failure, when taken and ended (`s` tells a time). */
async function tellJob(job: Job | undefined, s: (at: number) => string): Promise<string> {
  if (!job) return "no job";
  const failed = job.failedReason ? `, failed: ${job.failedReason}` : "";
  const taken = job.processedOn ? `, taken ${s(job.processedOn)}` : "";
  const ended = job.finishedOn ? `, ended ${s(job.finishedOn)}` : "";
  return `${await job.getState()}, ${job.attemptsMade} attempts, ${JSON.stringify(job.returnvalue ?? null)}${failed}${taken}${ended}`;
}

/**
 * The `pull-request` jobs of a head, as BullMQ has them (state, attempts, outcome or failure, when taken and
 * ended, in seconds into the week): those of the deliveries that named it (job id `pr-<delivery>`), then the
 * others (the reinstall's, reconciliation's, an approval's); and diffward's state of the pull request now.
 */
async function tellEventJobs(w: Week, head: { key: string; headSha: string }, from: number): Promise<string> {
  const { headSha } = head;
  const s = (at: number) => `${((at - from) / 1000).toFixed(1)} s`;
  const events = w.h.booted.rt.queues.events;
  const lines = [`${headSha.slice(0, 8)}: its pull-request jobs`];
  for (const d of w.h.github.state.deliveries.list()) {
    const p = d.payload as { pull_request?: { head?: { sha?: string } } };
    if (d.event !== "pull_request" || p.pull_request?.head?.sha !== headSha) continue;
    const how = await tellJob(await events.getJob(jobId("pr", d.guid)), s);
    lines.push(`  ${d.event}.${d.action ?? ""} ${d.guid.slice(0, 8)}: ${how}`);
  }
  const others = (
    await events.getJobs(["completed", "failed", "active", "waiting", "delayed", "prioritized"])
  )
    .filter((j) => j?.name === JOBS.pullRequest.name && !j.id?.startsWith("pr-"))
    .filter((j) => (j.data as { headSha?: string }).headSha === headSha);
  for (const j of others) lines.push(`  ${j.id}: ${await tellJob(j, s)}`);
  const [repo, number] = head.key.split("#");
  const state = await w.h.booted.rt.stores.pulls.getPull(pullKey(ORG, repo!, Number(number)));
  const { headSha: followed, installationId, checkRunId, closed, uninstalled, updatedAt } = state ?? {};
  lines.push(
    `  state: ${state ? JSON.stringify({ headSha: followed?.slice(0, 8), installationId, checkRunId, closed, uninstalled, updatedAt }) : "none"}`,
  );
  return lines.join("\n");
}

/**
 * How many of `sent` had their `command` job run after the uninstall was processed (outcome
 * `installation-removed`): nothing can be answered for them.
 */
async function leftByUninstall(w: Week, sent: readonly SentCommand[]): Promise<number> {
  let n = 0;
  for (const c of sent)
    if (
      (await w.h.booted.rt.queues.events.getJob(jobId("cmd", c.guid)))?.returnvalue === "installation-removed"
    )
      n += 1;
  return n;
}

/** A command the bench wrote: when (epoch ms), what, and its delivery's id. */
interface SentCommand {
  at: number;
  body: string;
  guid: string;
}

/**
 * The timeline of a thread or conversation whose commands are not all answered: each command (seconds into
 * the week, body) with its `command` job as BullMQ has it (state, attempts, outcome or failure), and, in a
 * conversation, diffward's answers.
 */
async function tellPlace(w: Week, place: string, from: number): Promise<string> {
  const p = w.places.get(place)!;
  const s = (at: number) => `${((at - from) / 1000).toFixed(1)} s`;
  const lines = [`${place}: ${p.answers()} answers to ${p.sent.length} commands`];
  for (const c of p.sent) {
    const how = await tellJob(await w.h.booted.rt.queues.events.getJob(jobId("cmd", c.guid)), s);
    lines.push(`  ${s(c.at)} ${JSON.stringify(c.body)}: ${how}`);
  }
  if (!place.startsWith("conversation:")) return lines.join("\n");
  const [repo, number] = place.replace("conversation:", "").split("#");
  for (const a of w.h.github.state.issueComments(ORG, repo!, Number(number)))
    if (a.user.type === "Bot")
      lines.push(`  answer: ${JSON.stringify(a.body.split("\n")[0]!.slice(0, 100))}`);
  return lines.join("\n");
}

function nextSha(w: Week): string {
  w.shas += 1;
  return `${w.shas.toString(16).padStart(8, "0")}`.padEnd(40, "d");
}

/** The `pull_request.opened` payload of a new pull request, seeded in the stand-in. */
function openPayload(w: Week, repo: string, number: number, head: string): Payload {
  const p: Payload = webhookExample("pull_request", "opened");
  p.number = number;
  p.pull_request.number = number;
  p.pull_request.head.sha = head;
  p.pull_request.head.ref = `feature-${number}`;
  p.pull_request.updated_at = new Date().toISOString();
  p.repository.owner.login = ORG;
  p.repository.owner.type = "Organization";
  p.repository.name = repo;
  p.repository.full_name = `${ORG}/${repo}`;
  p.repository.id = 60_000 + Number(repo.replace(/\D/g, ""));
  p.installation = { ...(p.installation ?? {}), id: w.installationId };
  p.pull_request.head.repo = { ...p.repository };
  p.pull_request.base.repo = { ...p.repository };
  w.h.seed(p, {
    files: demoPullFiles(),
    mergeBaseSha: "c".repeat(40),
    repoFiles: { [p.repository.default_branch]: { ".github/diffward.yml": CONFIG } },
    permissions: { [WRITER]: "write" },
  });
  return p;
}

/** A `pull_request` delivery of `action` for the pull request as it is now. */
function pullPayload(w: Week, pr: WeekPull, action: string, extra: Record<string, unknown> = {}): Payload {
  const p: Payload = structuredClone(pr.payload);
  p.action = action;
  p.installation = { ...p.installation, id: w.installationId };
  p.pull_request.head.sha = pr.head;
  p.pull_request.updated_at = new Date().toISOString();
  Object.assign(p.pull_request, extra);
  return p;
}

async function push(w: Week, pr: WeekPull, force: boolean): Promise<void> {
  const before = pr.head;
  pr.head = nextSha(w);
  w.h.github.state.updatePullRequestHead({ owner: ORG, repo: pr.repo, number: pr.number, sha: pr.head });
  const p = pullPayload(w, pr, "synchronize");
  p.before = force ? "f".repeat(40) : before;
  p.after = pr.head;
  await deliver(w, "pull_request", p);
}

/**
 * Records a command about to be written in `place` (created with `answers`, how to count diffward's answers
 * there, on its first command). Returns the delivery id to send it with.
 */
function noteCommand(w: Week, place: string, body: string, answers: () => number): string {
  const guid = randomUUID();
  if (!w.places.has(place)) w.places.set(place, { answers, sent: [] });
  w.places.get(place)!.sent.push({ at: Date.now(), body, guid });
  return guid;
}

/** Writes `body` as a reply in one of diffward's finding threads (or the conversation when none is there yet). */
async function command(w: Week, pr: WeekPull, body: string, where: "thread" | "conversation"): Promise<void> {
  const at = { owner: ORG, repo: pr.repo, pullNumber: pr.number };
  const h = w.h as Harness;
  const roots = where === "thread" ? findingComments(h, at) : [];
  if (body.includes("rescan")) w.rescans.set(pr.head, (w.rescans.get(pr.head) ?? 0) + 1);
  if (roots.length > 0) {
    const root = roots[w.shas % roots.length]!;
    const guid = noteCommand(
      w,
      `thread:${root.id}`,
      body,
      () =>
        h.github.state
          .reviewComments(ORG, pr.repo, pr.number)
          .filter((c) => c.inReplyToId === root.id && c.user.type === "Bot").length,
    );
    // an acceptance's expiry recomputes the head's check run once more, in place (src/triage/expiry.ts)
    const recomputes = body.includes("risk_accepted until") ? 2 : 1;
    w.findingCommands.set(pr.head, (w.findingCommands.get(pr.head) ?? 0) + recomputes);
    const p = writeReviewReply(h, { ...at, parentId: root.id, login: WRITER, body });
    p.installation.id = w.installationId;
    return deliver(w, "pull_request_review_comment", p, guid);
  }
  const text = where === "thread" ? "/diffward status" : body;
  const guid = noteCommand(
    w,
    `conversation:${pr.repo}#${pr.number}`,
    text,
    () => h.github.state.issueComments(ORG, pr.repo, pr.number).filter((c) => c.user.type === "Bot").length,
  );
  const p = writeConversationComment(h, { ...at, login: WRITER, body: text });
  p.installation.id = w.installationId;
  await deliver(w, "issue_comment", p, guid);
}

/** Puts the pull request into the merge queue, and merges it once the group's check had time to run. */
async function merge(w: Week, pr: WeekPull, settleMs: number): Promise<void> {
  const group = w.h.github.state.addMergeGroup({
    owner: ORG,
    repo: pr.repo,
    pullNumber: pr.number,
    headSha: nextSha(w),
    baseSha: "c".repeat(40),
  });
  const requested = mergeGroupPayload(w.h.github.state, group, "checks_requested") as Payload;
  requested.installation = { ...requested.installation, id: w.installationId };
  await deliver(w, "merge_group", requested);
  pr.open = false;
  setTimeout(() => {
    const destroyed = mergeGroupPayload(w.h.github.state, group, "destroyed", "merged") as Payload;
    destroyed.installation = { ...destroyed.installation, id: w.installationId };
    void deliver(w, "merge_group", destroyed).then(() =>
      deliver(w, "pull_request", pullPayload(w, pr, "closed", { state: "closed", merged: true })),
    );
  }, settleMs).unref();
}

/** The `installation` delivery of `action` for the organization's installation as it is now. */
function installationPayload(w: Week, action: "created" | "deleted"): Payload {
  const p: Payload = webhookExample("installation", action);
  p.installation = {
    ...p.installation,
    id: w.installationId,
    account: { ...p.installation.account, login: ORG },
  };
  return p;
}

async function uninstall(w: Week): Promise<void> {
  await deliver(w, "installation", installationPayload(w, "deleted"));
  w.h.github.state.uninstall(w.installationId);
  // what is in flight now can no longer be written by the app (GitHub refuses a removed installation)
  for (const pr of new Set([...w.pulls.values()].map((x) => x.repo)))
    for (const c of w.h.github.state.checkRuns(ORG, pr))
      if (c.status !== "completed") w.leftByUninstall.add(c.id);
}

/** The organization installs the app again: GitHub gives the new installation a new id. */
async function reinstall(w: Week): Promise<void> {
  const old = w.installationId;
  w.installationId = old + 1;
  const account = w.h.github.state.installation(old)!.account;
  w.h.github.state.addInstallation({
    id: w.installationId,
    account: { login: account.login, type: account.type },
  });
  for (const r of w.h.github.state.repositoriesOf(old))
    (r as { installationId: number }).installationId = w.installationId;
  const created = installationPayload(w, "created");
  // as GitHub sends it: the new installation's creation time (Unix seconds) and the app's id
  created.installation.created_at = Math.floor(Date.now() / 1000);
  created.installation.app_id = w.h.github.state.installation(w.installationId)!.appId;
  await deliver(w, "installation", created);
}

async function killWorker(w: Week): Promise<void> {
  const victim = w.rotating;
  victim.child.kill("SIGKILL");
  w.kills += 1;
  w.rotating = startChild({ mode: "worker", ...childConfig(w) });
  w.log(`  worker ${victim.child.pid} killed (SIGKILL); ${w.rotating.child.pid} started`);
}

/** Plays one event of the week. */
async function play(w: Week, e: WeekEvent, wallMs: number): Promise<void> {
  const sb = w.h.sandbox.state;
  if ("pull" in e) {
    const key = `${e.repo}#${e.pull}`;
    if (e.kind === "open") {
      const head = nextSha(w);
      const pr: WeekPull = {
        repo: e.repo,
        number: e.pull,
        payload: openPayload(w, e.repo, e.pull, head),
        head,
        open: true,
      };
      w.pulls.set(key, pr);
      return deliver(w, "pull_request", pullPayload(w, pr, "opened"));
    }
    const pr = w.pulls.get(key);
    if (!pr) return;
    if (e.kind === "reopen") {
      if (pr.open) return;
      pr.open = true;
      return deliver(w, "pull_request", pullPayload(w, pr, "reopened", { state: "open" }));
    }
    if (!pr.open) return;
    switch (e.kind) {
      case "push":
        return push(w, pr, e.force);
      case "review": {
        const p: Payload = webhookExample("pull_request_review", "submitted");
        p.repository = pr.payload.repository;
        p.installation = { ...p.installation, id: w.installationId };
        p.pull_request = { ...p.pull_request, number: pr.number };
        return deliver(w, "pull_request_review", p);
      }
      case "command":
        return command(w, pr, e.body, e.where);
      case "accept": {
        const until = new Date(Date.now() + e.expiresInMs).toISOString().replace(/\.\d{3}Z$/, "Z");
        return command(w, pr, `/wontfix risk_accepted until ${until}`, "thread");
      }
      case "merge":
        return merge(w, pr, Math.round(0.02 * wallMs));
      case "close":
        pr.open = false;
        return deliver(w, "pull_request", pullPayload(w, pr, "closed", { state: "closed", merged: false }));
    }
    return;
  }
  switch (e.kind) {
    case "baseline": {
      const p = pushPayload(w.h.github.state, { owner: ORG, repo: e.repo, after: nextSha(w) }) as Payload;
      p.installation = { ...p.installation, id: w.installationId };
      return deliver(w, "push", p);
    }
    case "uninstall":
      return uninstall(w);
    case "reinstall":
      return reinstall(w);
    case "errors":
      return applyFaults(sb, { errors: { count: e.count, statuses: [500, 502, 503] } });
    case "outage":
      w.log(`  service outage for ${(e.durationMs / 1000).toFixed(0)} s`);
      return applyFaults(sb, { outage: { durationMs: e.durationMs, retryAfterSeconds: 5 } });
    case "kill-worker":
      return killWorker(w);
    case "redis-restart":
      w.log("  redis-server restarted");
      return w.redis.restart(500);
  }
}

/**
 * 100 deliveries/s for 10 s from a child process of its own (bench/ack-load.ts): its answers' times in ms, and
 * the p99 of the same window inside the web process (its `/metrics` scraped before and after, every delivery
 * the window answered), so a slow answer can be told apart: the web process's own time, or the machine's.
 */
async function ackWindow(
  w: Week,
  from: number,
): Promise<{ ms: number[]; failed: number; serverP99Ms?: number }> {
  const scrape = () =>
    fetch(new URL("/metrics", w.webhookUrl))
      .then((r) => r.text())
      .then(webhookBuckets, () => undefined);
  const before = await scrape();
  const c = startChild({
    mode: "ack-load",
    url: w.webhookUrl,
    secret: w.h.webhookSecret,
    rate: 100,
    seconds: 10,
    installationId: ACK_INSTALLATION,
    from,
  });
  const read = () => {
    for (const line of c.lines)
      if (line.startsWith('{"ack"'))
        return (JSON.parse(line) as { ack: { ms: number[]; failed: number } }).ack;
    return undefined;
  };
  for (const until = Date.now() + 120_000; read() === undefined && Date.now() < until;) await sleep(500);
  await stopChild(c.child);
  const after = await scrape();
  const server = before && after ? serverP99Ms(before, after) : undefined;
  return {
    ...(read() ?? { ms: [], failed: 1000 }),
    ...(server !== undefined ? { serverP99Ms: server } : {}),
  };
}

/**
 * Waits until no event job waits, is delayed or runs (at most 120 s), then 1 s more: the deliveries sent so
 * far are handled. Returns how long it waited, in ms.
 */
async function eventsSettled(w: Week): Promise<number> {
  const began = Date.now();
  const events = w.h.booted.rt.queues.events;
  for (const until = began + 120_000; Date.now() < until; await sleep(250)) {
    const counts = await events.getJobCounts("waiting", "active", "delayed", "prioritized");
    if (Object.values(counts).every((n) => n === 0)) break;
  }
  await sleep(1000);
  return Date.now() - began;
}

async function setUp(o: WeekPhaseOptions): Promise<Week> {
  const redis = await startRedisServer(await freePort(), ["--appendonly", "yes"]);
  const rng = seeded(o.seed + 1);
  const h = await startHarness({
    redisUrl: `redis://127.0.0.1:${redis.port}`,
    web: false,
    workers: false,
    sandbox: {
      seed: o.seed,
      retryAfterSeconds: 2,
      scanDurationMs: () => 2000 + Math.round(rng.next() * 6000),
    },
  });
  h.sandbox.state.setBalance(1_000_000);
  const base = { h, redis } as Pick<Week, "h" | "redis">;
  const web = startChild({ mode: "web", ...childConfig(base), webhookSecret: h.webhookSecret });
  const stable = startChild({ mode: "worker", ...childConfig(base) });
  const rotating = startChild({ mode: "worker", ...childConfig(base) });
  await waitForChildren([web, stable, rotating]);
  const webhookUrl = `${childUrl(web)}/api/github/webhooks`;
  h.github.setWebhookTarget({ url: webhookUrl, secret: h.webhookSecret });
  const ack: Payload = webhookExample("pull_request", "opened");
  ack.repository.name = "not-onboarded";
  ack.repository.full_name = `${ack.repository.owner.login}/not-onboarded`;
  ack.installation = { ...(ack.installation ?? {}), id: ACK_INSTALLATION };
  h.seed(ack, { files: [] });
  h.github.state.addInstallation({ id: INSTALLATION, account: { login: ORG, type: "Organization" } });
  for (let i = 1; i <= o.repositories; i++)
    h.github.state.addRepository({
      owner: ORG,
      name: `service-${i}`,
      id: 60_000 + i,
      installationId: INSTALLATION,
      private: false,
      // the example payloads' default branch
      defaultBranch: "master",
      files: { master: { ".github/diffward.yml": CONFIG } },
    });
  return {
    h,
    redis,
    web,
    stable,
    rotating,
    webhookUrl,
    installationId: INSTALLATION,
    pulls: new Map(),
    places: new Map(),
    findingCommands: new Map(),
    rescans: new Map(),
    leftByUninstall: new Set(),
    sent: 0,
    failed: 0,
    kills: 0,
    shas: 0,
    log: o.log,
  };
}

/**
 * Waits, at most `ms`, until every check run of the organization has completed, every open pull request's
 * newest head has a completed one, and every place a command was written has as many answers as commands: a
 * late push or command may not have its check run or answer yet when the others have ended.
 */
async function drain(w: Week, ms: number): Promise<void> {
  const until = Date.now() + ms;
  const repos = [...new Set([...w.pulls.values()].map((p) => p.repo))];
  const pending = async () => {
    const runs = repos.flatMap((r) => w.h.github.state.checkRuns(ORG, r));
    const done = new Set(runs.filter((c) => c.status === "completed").map((c) => c.headSha));
    const open = runs.filter((c) => c.status !== "completed").length;
    const heads = [...w.pulls.values()].filter((p) => p.open && !done.has(p.head)).length;
    let places = 0;
    for (const p of w.places.values()) {
      const answers = p.answers();
      // the jobs are read only for a place still short of answers
      if (answers < p.sent.length && answers < p.sent.length - (await leftByUninstall(w, p.sent)))
        places += 1;
    }
    return { open, heads, places };
  };
  while (Object.values(await pending()).some((n) => n > 0) && Date.now() < until) await sleep(1000);
  w.log(
    `  drained: ${JSON.stringify(await pending())} (check runs open, newest heads without one, places unanswered)`,
  );
}

/** diffward's own Redis keys (src/runtime/names.ts `REDIS_KEYS`) and the ones of them without a TTL. */
async function keysWithoutEnd(w: Week): Promise<{ own: number; without: string[] }> {
  const redis = w.h.booted.rt.redis;
  const queues = Object.values(QUEUE_NAMES) as string[];
  const own = Object.values(REDIS_KEYS).map((k) => redisKeyRegExp(w.h.prefix, k.pattern));
  let cursor = "0";
  let count = 0;
  const without: string[] = [];
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${w.h.prefix}:*`, "COUNT", 1000);
    cursor = next;
    for (const key of batch) {
      const rest = key.slice(w.h.prefix.length + 1);
      const mine = own.some((re) => re.test(key));
      if (!mine && queues.some((q) => rest.startsWith(`${q}:`))) continue; // BullMQ's own
      count += 1;
      if ((await redis.pttl(key)) === -1) without.push(rest);
    }
  } while (cursor !== "0");
  return { own: count, without };
}

async function facts(w: Week, window: WeekFacts["window"], ack: WeekFacts["ack"]): Promise<WeekFacts> {
  const gh = w.h.github;
  const repos = [...new Set([...w.pulls.values()].map((p) => p.repo))];
  const completions = new Map<number, number>();
  for (const r of gh.requests) {
    if (
      r.method !== "PATCH" ||
      r.route !== "/repos/{owner}/{repo}/check-runs/{check_run_id}" ||
      r.status >= 400
    )
      continue;
    if (!(r.body as { conclusion?: unknown } | undefined)?.conclusion) continue;
    const id = Number(r.path.split("/").pop());
    completions.set(id, (completions.get(id) ?? 0) + 1);
  }
  const runs = repos.flatMap((r) =>
    gh.state.checkRuns(ORG, r).map((c) => ({
      id: c.id,
      headSha: c.headSha,
      status: c.status,
      conclusion: c.conclusion,
      completions: completions.get(c.id) ?? 0,
      leftByUninstall: w.leftByUninstall.has(c.id),
      ...(c.externalId ? { externalId: c.externalId } : {}),
    })),
  );
  const sb = w.h.sandbox.state;
  sb.advance();
  const keys = await keysWithoutEnd(w);
  return {
    runs,
    findingCommands: w.findingCommands,
    openHeads: [...w.pulls.values()]
      .filter((p) => p.open)
      .map((p) => ({ key: `${p.repo}#${p.number}`, headSha: p.head })),
    scans: [...sb.scans.values()].map((s) => ({
      id: s.id,
      commitHash: s.commitHash,
      finalStatus: s.final?.status ?? null,
      cancelsAfterEndRead: s.cancelsAfterEndRead,
      settled: s.settled,
      netCredits: (s.spentCredits ?? 0) - s.refundedCredits,
    })),
    rescans: w.rescans,
    ledgerScanCredits: sb.ledger
      .filter((e) => e.type === "SCAN_DEDUCTION" || e.type === "SCAN_REFUND")
      .reduce((a, e) => a + e.credits, 0),
    commandPlaces: await Promise.all(
      [...w.places].map(async ([place, p]) => ({
        place,
        commands: p.sent.length,
        answers: p.answers(),
        leftByUninstall: await leftByUninstall(w, p.sent),
      })),
    ),
    keysWithoutEnd: keys.without,
    ownKeys: keys.own,
    processes: [
      { name: "web server (child)", samples: w.web.samples },
      { name: "worker never killed (child)", samples: w.stable.samples },
    ],
    window,
    ack,
  };
}

/** Runs the week (see the file's comment) and checks its invariants. */
export async function weekPhase(o: WeekPhaseOptions): Promise<WeekResult> {
  const events = weekScenario({
    seed: o.seed,
    wallMs: o.wallMs,
    pulls: o.pulls,
    repositories: o.repositories,
  });
  o.log(`  ${events.length} events: ${JSON.stringify(countKinds(events))}`);
  const w = await setUp(o);
  try {
    // a new process's first deliveries pay its JIT and first connections: reported apart, then idle measured
    o.log("  acknowledgement at 100 deliveries/s, a new web process's first 10 s (cold)");
    const cold = await ackWindow(w, 900_000);
    // idle means nothing else runs: the workers first finish the cold window's 1,000 jobs
    const waited = await eventsSettled(w);
    o.log(`  the cold window's jobs handled after ${(waited / 1000).toFixed(1)} s`);
    o.log("  acknowledgement at 100 deliveries/s, idle (10 s)");
    const idle = await ackWindow(w, 1_000_000);
    const start = Date.now();
    // one window in the second quarter and one in the last, whose RSS the flatness check compares
    const ackRuns = [0.3, 0.55, 0.8].map(async (share, i) => {
      await sleep(share * o.wallMs);
      return ackWindow(w, 2_000_000 + i * 10_000);
    });
    let lastLog = 0;
    for (const e of events) {
      const wait = start + e.at - Date.now();
      if (wait > 0) await sleep(wait);
      await play(w, e, o.wallMs).catch((error: Error) => o.log(`  ${e.kind} failed: ${error.message}`));
      if (Date.now() - lastLog > 30_000) {
        lastLog = Date.now();
        o.log(
          `  t=${((Date.now() - start) / 1000).toFixed(0)} s: ${w.sent} deliveries (${w.failed} failed), ${w.h.sandbox.state.scans.size} scans`,
        );
      }
    }
    const rest = start + o.wallMs - Date.now();
    if (rest > 0) await sleep(rest);
    const week = await Promise.all(ackRuns);
    const window = { from: start, to: Date.now() };
    await drain(w, o.drainMs);
    const f = await facts(w, window, {
      coldMs: cold.ms,
      idleMs: idle.ms,
      weekMs: week.flatMap((r) => r.ms),
      weekWindowsMs: week.map((r) => r.ms),
      server: {
        ...(idle.serverP99Ms !== undefined ? { idleP99Ms: idle.serverP99Ms } : {}),
        weekP99Ms: week.flatMap((r) => (r.serverP99Ms !== undefined ? [r.serverP99Ms] : [])),
      },
      failed: cold.failed + idle.failed + week.reduce((a, r) => a + r.failed, 0),
    });
    const stories = [
      ...launchedTwice(f).map(([headSha, n]) => ({ headSha, why: `launched ${n} times` })),
      ...wronglyReported(f).map((h) => ({ headSha: h.headSha, why: h.why })),
      ...f.runs
        .filter((r) => r.status !== "completed")
        .map((r) => ({ headSha: r.headSha, why: `check run ${r.id} open` })),
    ].map((h) => tellHead(w.h.github, w.h.sandbox.state, h, start));
    for (const h of wronglyReported(f)) stories.push(await tellEventJobs(w, h, start));
    for (const place of f.commandPlaces.filter((p) => p.answers !== owedAnswers(p)))
      stories.push(await tellPlace(w, place.place, start));
    for (const s of stories) o.log(s);
    return {
      rows: checkWeek(f),
      stories,
      events: countKinds(events),
      deliveries: { sent: w.sent, failed: w.failed },
      workerKills: w.kills,
      wallMs: Date.now() - start,
    };
  } finally {
    await Promise.all([w.web, w.stable, w.rotating].map((c) => stopChild(c.child)));
    await w.h.close().catch(() => undefined);
    await w.redis.stop();
  }
}
