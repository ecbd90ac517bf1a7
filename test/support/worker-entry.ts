/**
 * A diffward worker process for the fault-injection tests: boots the queue workers (no web server) against
 * the Redis prefix, sandbox and GitHub stand-in named in the environment, with short BullMQ lock and stalled
 * intervals so a job of a killed worker is taken over within seconds.
 *
 * `DW_KILL_AFTER` (a regular expression tested against `METHOD /path` of every HTTP answer this process
 * receives, GitHub's or the service's) makes the process SIGKILL itself right after the first matching 2xx
 * answer arrives: the request has had its effect, and nothing after it in the job ran.
 *
 * `DW_RECOVER_DELIVERIES=1` starts the recovery of missed webhook deliveries with the workers (a run at
 * start-up, then on its schedule), as `src/index.ts` does.
 */
import { pino } from "pino";
import { WORKER_TIMING, devEnv } from "./faults.js";

const env = devEnv(process.env);
const killAfter = env.killAfter ? new RegExp(env.killAfter) : undefined;
if (killAfter) {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const res = await realFetch(input, init);
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    if (res.ok && killAfter.test(`${method} ${url.pathname}`)) {
      process.stdout.write(`killing myself after ${method} ${url.pathname}\n`);
      process.kill(process.pid, "SIGKILL");
      await new Promise(() => undefined); // never resolves: the process is gone
    }
    return res;
  }) as typeof fetch;
}

const { boot } = await import("../../src/boot.js");
const { devPrivateKey } = await import("../../dev/harness/harness.js");
const booted = boot({
  appId: 1,
  privateKey: devPrivateKey(),
  webhookSecret: "unused-by-workers",
  githubBaseUrl: env.githubUrl,
  redisUrl: env.redisUrl,
  ...(env.clusterNodes ? { redisClusterNodes: env.clusterNodes } : {}),
  queuePrefix: env.prefix,
  statePrefix: env.prefix,
  scannerApiUrl: env.sandboxUrl,
  scannerToken: "sandbox-token",
  log: pino({ level: process.env.LOG_LEVEL ?? "silent" }),
  settings: { firstPollDelayMs: 1_000 },
  workerTiming: WORKER_TIMING,
  recoverDeliveries: env.recoverDeliveries,
});
booted.startWorkers();
process.stdout.write("worker ready\n");
process.on("SIGTERM", () => {
  void booted.close().then(() => process.exit(0));
});
