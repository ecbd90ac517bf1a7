/**
 * `node dist/src/admin.js <command>` (`npx tsx src/admin.ts <command>` in a checkout): diffward's operations
 * on its queues and reconciliation, against the Redis of `REDIS_URL` or `REDIS_CLUSTER_NODES` and the default
 * key prefixes (`{diffward}`, `{dw}`). docs/operations.md "Runbook" says when to use which.
 *
 *   status                         each queue: paused, waiting, active, delayed, failed, completed
 *   pause [queue…] | resume [queue…]   all four queues when none is named (events, launch, scans, reports)
 *   failed <queue> [limit]         the newest failed jobs (id, name, attempts, reason)
 *   retry <queue> <jobId…|--all>   failed jobs back to waiting
 *   reconcile [--full]             enqueue a reconciliation; --full forgets the state marker first, so it
 *                                  sweeps every installation's repositories
 *
 * Exit code 0 on success, 2 on a usage error, 1 on any other error.
 */
import { enqueueReconcile } from "./jobs/reconcile.js";
import { createRedis } from "./runtime/connection.js";
import { createQueues } from "./runtime/queues.js";
import {
  failedJobs,
  queueKeys,
  queueStatus,
  retryFailed,
  setPaused,
  type QueueKey,
} from "./runtime/queue-admin.js";
import { StateStore } from "./runtime/state.js";

const USAGE =
  "usage: admin status | pause [queue…] | resume [queue…] | failed <queue> [limit] | retry <queue> <jobId…|--all> | reconcile [--full]";

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const nodes = (process.env.REDIS_CLUSTER_NODES ?? "").split(",").filter(Boolean);
  const redis = createRedis({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379", clusterNodes: nodes });
  const queues = createQueues({ connection: redis });
  const one = (): QueueKey => {
    if (!rest[0]) throw new UsageError(USAGE);
    return queueKeys([rest[0]])[0]!;
  };
  try {
    switch (command) {
      case "status":
        console.table(await queueStatus(queues));
        return 0;
      case "pause":
      case "resume":
        await setPaused(queues, queueKeys(rest), command === "pause");
        console.log(`${command}d: ${queueKeys(rest).join(", ")}`);
        return 0;
      case "failed":
        console.table(await failedJobs(queues, one(), rest[1] ? Number(rest[1]) : 20));
        return 0;
      case "retry": {
        const ids = rest.slice(1);
        if (ids.length === 0) throw new UsageError(USAGE);
        const done = await retryFailed(queues, one(), ids.includes("--all") ? "all" : ids);
        console.log(`retried ${done.length}: ${done.join(", ")}`);
        return 0;
      }
      case "reconcile": {
        if (rest.includes("--full")) await new StateStore(redis).forgetSwept();
        console.log(`enqueued ${await enqueueReconcile({ queues })}`);
        return 0;
      }
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await Promise.all(Object.values(queues).map((q) => q.close()));
    redis.disconnect();
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(error instanceof UsageError || /^unknown queue/.test((error as Error).message ?? "") ? 2 : 1);
  },
);
