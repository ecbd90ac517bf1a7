/**
 * `node dist/src/admin.js <command>` (`npx tsx src/admin.ts <command>` in a checkout): diffward's operations
 * on its queues and reconciliation, against the Redis of `REDIS_URL` or `REDIS_CLUSTER_NODES` and the default
 * key prefixes (`{diffward}`, `{dw}`; `--queue-prefix` and `--state-prefix` name others, a test harness's).
 * docs/operations.md "Runbook" says when to use which.
 *
 *   status                         each queue: paused, waiting, active, delayed, failed, completed
 *   pause [queue…] | resume [queue…]   all four queues when none is named (events, launch, scans, reports)
 *   failed <queue> [limit]         the newest failed jobs (id, name, attempts, reason); limit 1-1000, default 20
 *   retry <queue> <jobId…|--all>   failed jobs back to waiting (--all: page by page)
 *   reconcile [--full]             enqueue a reconciliation; --full forgets the state marker first, so it
 *                                  sweeps every installation's repositories
 *
 * Arguments are parsed strictly (`node:util` `parseArgs`, `strict: true`): an unknown or misspelt option, an
 * option of another command, a missing or extra argument is a usage error. Exit code 0 on success, 2 on a usage
 * error (before Redis is reached), 1 on any other error.
 */
import { parseArgs } from "node:util";
import { enqueueReconcile } from "./recovery/reconcile/index.js";
import { createRedis, DEFAULT_QUEUE_PREFIX, DEFAULT_STATE_PREFIX } from "./runtime/connection.js";
import type { RedisConnection } from "./runtime/connection.js";
import { createQueues } from "./runtime/queues.js";
import {
  failedJobs,
  queueKeys,
  queueStatus,
  retryFailed,
  setPaused,
  type QueueKey,
} from "./runtime/queue-admin.js";
import type { Runtime } from "./runtime/runtime.js";
import { PullStateStore } from "./stores/pull-state.js";

/** What a command runs against. */
interface Admin {
  queues: Runtime["queues"];
  redis: RedisConnection;
  statePrefix: string;
}

/** The flags of the commands (each command names the ones it takes). */
type Flag = "all" | "full";
type Flags = Partial<Record<Flag, boolean>>;

/** A command: its arguments for the usage text, the flags it takes, and its checked arguments as a run. */
interface Command {
  args: string;
  flags: readonly Flag[];
  /** @throws {UsageError} when the arguments are not the command's */
  plan(positionals: string[], flags: Flags): (admin: Admin) => Promise<void>;
}

class UsageError extends Error {}

/** The most failed jobs `failed` lists at once. */
const FAILED_LIMIT_MAX = 1_000;

function arity(positionals: string[], min: number, max: number): void {
  if (positionals.length < min) throw new UsageError("missing argument");
  if (positionals.length > max) throw new UsageError(`unexpected argument ${positionals[max]}`);
}

function queuesNamed(names: string[]): QueueKey[] {
  try {
    return queueKeys(names);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function limitOf(text: string | undefined): number {
  if (text === undefined) return 20;
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= FAILED_LIMIT_MAX))
    throw new UsageError(`limit must be a whole number from 1 to ${FAILED_LIMIT_MAX}, got ${text}`);
  return n;
}

function pauseOrResume(paused: boolean): Command {
  return {
    args: "[queue…]",
    flags: [],
    plan(positionals) {
      const keys = queuesNamed(positionals);
      return async ({ queues }) => {
        await setPaused(queues, keys, paused);
        console.log(`${paused ? "paused" : "resumed"}: ${keys.join(", ")}`);
      };
    },
  };
}

/** The commands, which drive parsing, dispatch and the usage text. */
const COMMANDS: Record<string, Command> = {
  status: {
    args: "",
    flags: [],
    plan(positionals) {
      arity(positionals, 0, 0);
      return async ({ queues }) => console.table(await queueStatus(queues));
    },
  },
  pause: pauseOrResume(true),
  resume: pauseOrResume(false),
  failed: {
    args: "<queue> [limit]",
    flags: [],
    plan(positionals) {
      arity(positionals, 1, 2);
      const [key] = queuesNamed(positionals.slice(0, 1));
      const limit = limitOf(positionals[1]);
      return async ({ queues }) => console.table(await failedJobs(queues, key!, limit));
    },
  },
  retry: {
    args: "<queue> <jobId…|--all>",
    flags: ["all"],
    plan(positionals, flags) {
      arity(positionals, 1, Infinity);
      const [key] = queuesNamed(positionals.slice(0, 1));
      const ids = positionals.slice(1);
      if (Boolean(flags.all) === ids.length > 0)
        throw new UsageError("name the job ids or --all, one of the two");
      return async ({ queues }) => {
        const done = await retryFailed(queues, key!, flags.all ? "all" : ids);
        console.log(`retried ${done.length}: ${done.join(", ")}`);
      };
    },
  },
  reconcile: {
    args: "[--full]",
    flags: ["full"],
    plan(positionals, flags) {
      arity(positionals, 0, 0);
      return async ({ queues, redis, statePrefix }) => {
        if (flags.full) await new PullStateStore(redis, statePrefix).forgetSwept();
        console.log(`enqueued ${await enqueueReconcile({ queues })}`);
      };
    },
  },
};

const USAGE = `usage: admin ${Object.entries(COMMANDS)
  .map(([name, c]) => `${name}${c.args ? ` ${c.args}` : ""}`)
  .join(" | ")} [--queue-prefix <prefix>] [--state-prefix <prefix>]`;

/** The command line as a run and its prefixes. @throws {UsageError} */
function parse(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        all: { type: "boolean" },
        full: { type: "boolean" },
        "queue-prefix": { type: "string" },
        "state-prefix": { type: "string" },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [name, ...rest] = positionals;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) throw new UsageError(name === undefined ? "no command" : `unknown command ${name}`);
  const flags: Flags = { all: values.all, full: values.full };
  for (const flag of ["all", "full"] as const)
    if (flags[flag] && !command.flags.includes(flag)) throw new UsageError(`${name} takes no --${flag}`);
  return {
    run: command.plan(rest, flags),
    queuePrefix: values["queue-prefix"] ?? DEFAULT_QUEUE_PREFIX,
    statePrefix: values["state-prefix"] ?? DEFAULT_STATE_PREFIX,
  };
}

async function main(argv: string[]): Promise<number> {
  let command: ReturnType<typeof parse>;
  try {
    command = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n${USAGE}`);
    return 2;
  }
  const nodes = (process.env.REDIS_CLUSTER_NODES ?? "").split(",").filter(Boolean);
  const redis = createRedis({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379", clusterNodes: nodes });
  const queues = createQueues({ connection: redis, prefix: command.queuePrefix });
  try {
    await command.run({ queues, redis, statePrefix: command.statePrefix });
    return 0;
  } finally {
    await Promise.all(Object.values(queues).map((q) => q.close()));
    redis.disconnect();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
