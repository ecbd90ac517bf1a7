/**
 * How much Redis memory diffward uses per pull request, for sizing (docs/operations.md, "Redis: sizing and
 * backups"). Runs diffward in process (the demo harness: sandbox with its demo scenario, GitHub stand-in,
 * workers) on `REDIS_URL` under a fresh key prefix, opens N pull requests, and sums `MEMORY USAGE` of every key
 * under that prefix twice: while the N scans are in flight, and once all N are reported (completed jobs are kept
 * 24 hours, so the second figure is what a day of pull requests costs). Keys are grouped by family (BullMQ's job
 * hashes, queue lists and streams, diffward's state). GitHub's write pacing is off (Octokit's throttling, and
 * with it the write lane's pacing), so the run takes a minute or two.
 *
 * Usage: `npx tsx scripts/redis-footprint.ts [N]` (default 100), with `REDIS_URL` set.
 */
import { Redis } from "ioredis";
import { ProbotOctokit } from "probot";
import { demoConfig, demoPullFiles } from "../dev/harness/demo-repo.js";
import { webhookExample } from "../dev/harness/examples.js";
import { startHarness, type Harness } from "../dev/harness/harness.js";

const n = Number(process.argv[2] ?? 100);
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

type Pull = ReturnType<typeof webhookExample> & {
  number: number;
  repository: { name: string; owner: { login: string }; default_branch: string };
  pull_request: { number: number; head: { sha: string } };
};

/** `MEMORY USAGE` (bytes, all samples) of every key starting with `prefix`, grouped by family. */
async function footprint(
  redis: Redis,
  prefix: string,
): Promise<{ bytes: number; keys: number; by: Map<string, number> }> {
  const by = new Map<string, number>();
  let bytes = 0;
  let keys = 0;
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    for (const key of batch) {
      const size = Number((await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0);
      const rest = key.slice(prefix.length + 1);
      // `<queue>:<jobId>` is a job hash, `<queue>:<list|zset|stream>` a queue structure, anything else state
      const family =
        /^diffward-[a-z]+:(wait|active|delayed|prioritized|completed|failed|events|meta|id|pc|marker|stalled-check|limiter|fairq)/.test(
          rest,
        )
          ? `queue ${rest.split(":")[1]}`
          : /^diffward-[a-z]+:/.test(rest)
            ? "job hashes"
            : `state ${rest.split(":")[0]}`;
      by.set(family, (by.get(family) ?? 0) + size);
      bytes += size;
      keys += 1;
    }
  } while (cursor !== "0");
  return { bytes, keys, by };
}

function print(title: string, f: Awaited<ReturnType<typeof footprint>>): void {
  console.log(
    `${title}: ${f.keys} keys, ${(f.bytes / 1024).toFixed(0)} KiB, ${(f.bytes / n / 1024).toFixed(1)} KiB per pull request`,
  );
  for (const [family, size] of [...f.by].sort((a, b) => b[1] - a[1]).slice(0, 8))
    console.log(`  ${family.padEnd(24)} ${(size / 1024).toFixed(0).padStart(7)} KiB`);
}

async function main(): Promise<void> {
  const h: Harness = await startHarness({
    sandbox: { scenario: "demo", scanDurationMs: 30_000, retryAfterSeconds: 5 },
    // GitHub's write pacing is for real GitHub: unthrottled here (the write lane then keeps its order only)
    boot: {
      Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({
        ...o,
        throttle: { ...(o.throttle as object), enabled: false },
      })) as typeof ProbotOctokit,
    },
  });
  const redis = new Redis(redisUrl);
  try {
    const pulls: Pull[] = [];
    for (let i = 1; i <= n; i++) {
      const p = webhookExample("pull_request", "opened") as Pull;
      p.number = p.pull_request.number = i;
      p.pull_request.head.sha = i.toString(16).padStart(40, "a");
      h.seed(p, {
        files: demoPullFiles(),
        mergeBaseSha: "c".repeat(40),
        repoFiles: { [p.repository.default_branch]: { ".github/diffward.yml": demoConfig() } },
      });
      pulls.push(p);
    }
    for (const p of pulls) await h.send("pull_request", p);
    await h.waitFor(() => h.sandbox.state.scans.size >= n, 120_000, `${n} scans launched`);
    print(`${n} scans in flight`, await footprint(redis, h.prefix));
    const { owner, name } = { owner: pulls[0]!.repository.owner.login, name: pulls[0]!.repository.name };
    await h.waitFor(
      async () =>
        h.github.state.checkRuns(owner, name).filter((c) => c.status === "completed").length >= n &&
        (await h.booted.rt.queues.reports.getJobCounts("active", "waiting", "prioritized", "delayed"))
          .active === 0,
      600_000,
      `${n} pull requests reported`,
    );
    await new Promise((r) => setTimeout(r, 2_000)); // the reviews after the completions
    print(`${n} pull requests reported (jobs kept 24 h)`, await footprint(redis, h.prefix));
  } finally {
    redis.disconnect();
    await h.close();
  }
}

await main();
