import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createQueues } from "../src/runtime/queues.js";
import { RETRY_PAGE_SIZE } from "../src/runtime/queue-admin.js";
import { PullStateStore } from "../src/stores/pull-state.js";
import { flushPrefix } from "./support/flush.js";
import { addFailingJobs } from "./support/jobs.js";

/**
 * The admin CLI (`src/admin.ts`) run as a child process against a real Redis, under its own key prefixes
 * (`--queue-prefix`, `--state-prefix`): strict arguments, usage errors before anything is touched, and
 * `retry --all` over more failed jobs than one page.
 */
describe("admin CLI (child process, real Redis)", () => {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  const tag = randomBytes(3).toString("hex");
  const queuePrefix = `{dwt-admin-q-${tag}}`;
  const statePrefix = `{dwt-admin-s-${tag}}`;
  const queues = createQueues({ connection: redis, prefix: queuePrefix });

  afterAll(async () => {
    await Promise.all(Object.values(queues).map((q) => q.close()));
    await flushPrefix(queuePrefix, url);
    await flushPrefix(statePrefix, url);
    redis.disconnect();
  });

  /** Runs the CLI under this file's prefixes; never rejects: the exit code and both outputs. */
  async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const run = await promisify(execFile)(
        process.execPath,
        [
          "--import",
          "tsx",
          "src/admin.ts",
          ...args,
          "--queue-prefix",
          queuePrefix,
          "--state-prefix",
          statePrefix,
        ],
        { env: { ...process.env, REDIS_URL: url } },
      );
      return { code: 0, ...run };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  /** `n` failed report jobs, ids `<name>-<i>`. */
  async function failedReports(n: number, name: string): Promise<string[]> {
    const ids = Array.from({ length: n }, (_, i) => `${name}-${i}`);
    await addFailingJobs(queues.reports, ids, { connection: redis, prefix: queuePrefix });
    return ids;
  }

  it("a usage error (exit 2, the reason and the usage) for a bad limit, a misspelt or foreign option, a missing or extra argument; nothing touched", async () => {
    const [kept] = await failedReports(1, "kept");
    await new PullStateStore(redis, statePrefix).markSwept("2026-11-25T00:00:00Z");
    const cases: [string[], string][] = [
      [["failed", "events", "abc"], "limit must be a whole number from 1 to 1000, got abc"],
      [["failed", "events", "0"], "limit must be a whole number from 1 to 1000, got 0"],
      [["failed", "events", "2.5"], "got 2.5"],
      [["failed", "events", "1001"], "got 1001"],
      [["reconcile", "--ful"], "Unknown option '--ful'"],
      [["reconcile", "--full", "now"], "unexpected argument now"],
      [["reconcile", "--all"], "reconcile takes no --all"],
      [["retry", "reports", "--al"], "Unknown option '--al'"],
      [["retry", "reports"], "name the job ids or --all, one of the two"],
      [["retry", "reports", kept!, "--all"], "name the job ids or --all, one of the two"],
      [["retry", "--all"], "missing argument"],
      [["failed", "poll"], "unknown queue poll: one of events, launch, scans, reports"],
      [["status", "now"], "unexpected argument now"],
      [["pause", "--full"], "pause takes no --full"],
      [["frobnicate"], "unknown command frobnicate"],
      [[], "no command"],
    ];
    // four child processes at a time (two cores are shared)
    const runs: Awaited<ReturnType<typeof admin>>[] = [];
    for (let i = 0; i < cases.length; i += 4)
      runs.push(...(await Promise.all(cases.slice(i, i + 4).map(([args]) => admin(...args)))));
    for (const [i, run] of runs.entries()) {
      const [args, reason] = cases[i]!;
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toContain(reason);
      expect(run.stderr, args.join(" ")).toContain("usage: admin status | pause [queue…]");
      expect(run.stdout, args.join(" ")).toBe("");
    }
    // nothing was retried, enqueued or forgotten
    expect(await (await queues.reports.getJob(kept!))!.getState()).toBe("failed");
    expect(await queues.events.count()).toBe(0);
    expect(await new PullStateStore(redis, statePrefix).sweptAt()).toBe("2026-11-25T00:00:00Z");
  });

  it("failed <queue> <limit> lists that many; reconcile --full forgets the marker and enqueues one", async () => {
    await failedReports(3, "listed");
    const listed = await admin("failed", "reports", "2");
    expect(listed.code).toBe(0);
    expect(listed.stdout.match(/listed-\d|kept-0/g)).toHaveLength(2);
    const full = await admin("reconcile", "--full");
    expect(full.code).toBe(0);
    expect(full.stdout).toMatch(/^enqueued reconcile-\d+\n$/);
    expect(await new PullStateStore(redis, statePrefix).sweptAt()).toBeUndefined();
    expect(await queues.events.count()).toBe(1);
  });

  it("retry <queue> --all retries every failed job, more than one page of them, each once", async () => {
    const before = (await queues.reports.getJobs(["failed"])).map((j) => j.id!);
    const ids = [...before, ...(await failedReports(RETRY_PAGE_SIZE + 30, "many"))];
    const run = await admin("retry", "reports", "--all");
    expect(run.code).toBe(0);
    const retried = run.stdout
      .replace(/^retried \d+: /, "")
      .trim()
      .split(", ");
    expect(run.stdout).toMatch(new RegExp(`^retried ${ids.length}: `));
    expect(retried.sort()).toEqual([...ids].sort());
    expect(await queues.reports.getFailedCount()).toBe(0);
  });
});
