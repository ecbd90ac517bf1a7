/**
 * The image smoke's checks (run by `scripts/image-smoke.sh` once the image is built): starts the scanning-
 * service sandbox and the GitHub stand-in on this machine, then diffward's image as a web container and a
 * worker container (`docker run --network host`, everything on 127.0.0.1, read-only root filesystem, no
 * capabilities, the image's own user), and checks what a platform team would:
 *   1. the image runs as a non-root user; both containers start on a read-only root filesystem;
 *   2. web: `/healthz` 200 (Redis ok), `/readyz` 200, `/metrics` 401 without `METRICS_TOKEN` and 200 with it;
 *      worker: the same on its operations port (`METRICS_PORT`);
 *   3. an unsigned webhook is refused (400), a signed one is accepted (200), and a signed `pull_request`
 *      goes the whole way: the worker container launches the scan and the check run completes on GitHub;
 *   4. `docker stop` (SIGTERM through tini) while a job waits on a slow GitHub answer: the worker lets the
 *      job finish and exits 0; the web container exits 0; no job is left active or failed.
 * Prints one line per check and the timings; exits 1 on the first failure, after removing its containers.
 *
 * Usage: `npx tsx scripts/image-smoke.ts <image>` with `REDIS_URL` (a Redis on 127.0.0.1) in the environment.
 */
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { demoConfig, demoPullFiles } from "../dev/harness/demo-repo.js";
import { webhookExample } from "../dev/harness/examples.js";
import { devPrivateKey } from "../dev/harness/harness.js";
import { freePort } from "../dev/harness/redis.js";
import { sendWebhook, seedFromPullRequestEvent, startGitHubStandIn } from "../dev/github-standin/index.js";
import { startSandbox } from "../dev/sandbox/index.js";
import { DEFAULT_QUEUE_PREFIX } from "../src/runtime/connection.js";
import { QUEUE_NAMES } from "../src/runtime/names.js";
import { JOBS } from "../src/job-catalogue/index.js";

const run = promisify(execFile);
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
const image = process.argv[2];
if (!image) {
  console.error("usage: tsx scripts/image-smoke.ts <image>");
  process.exit(2);
}
const redisBase = (process.env.REDIS_URL ?? "redis://127.0.0.1:6379").replace(/\/\d*$/, "");
// a database of its own, emptied of diffward's keys at the end
const redisUrl = `${redisBase}/${1 + Math.floor(Math.random() * 15)}`;
const suffix = randomBytes(3).toString("hex");
const started = Date.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function check(ok: unknown, what: string, detail?: unknown): void {
  if (!ok) throw new Error(`FAILED: ${what}${detail === undefined ? "" : `\n${String(detail)}`}`);
  console.log(`ok   ${what}`);
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > until) throw new Error(`FAILED: timed out after ${seconds(ms)} waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const docker = async (...args: string[]) =>
  (await run("docker", args, { maxBuffer: 16 << 20 })).stdout.trim();
const logs = async (name: string) =>
  run("docker", ["logs", name], { maxBuffer: 16 << 20 }).then(
    (r) => r.stdout + r.stderr,
    () => "",
  );

/**
 * `docker run -d` of the image on the host's network with what a hardened deployment gives it (the Helm
 * chart's securityContext): read-only root filesystem with a tmpfs `/tmp`, every capability dropped, no
 * privilege escalation, the image's own user.
 */
async function startContainer(name: string, env: Record<string, string>): Promise<void> {
  const envArgs = Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
  await docker(
    "run",
    "--detach",
    "--name",
    name,
    "--network",
    "host",
    "--read-only",
    "--tmpfs",
    "/tmp",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    ...envArgs,
    image!,
  );
}

/** `docker stop` (SIGTERM, then SIGKILL after 60 s): how long it took and the container's exit code. */
async function stop(name: string): Promise<{ ms: number; exitCode: number }> {
  const t = Date.now();
  await docker("stop", "--time", "60", name);
  const exitCode = Number(await docker("inspect", "--format", "{{.State.ExitCode}}", name));
  return { ms: Date.now() - t, exitCode };
}

async function main(): Promise<void> {
  const sb = await startSandbox({ scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 });
  const gh = await startGitHubStandIn({});
  const web = `diffward-smoke-web-${suffix}`;
  const worker = `diffward-smoke-worker-${suffix}`;
  const [port, workerOpsPort] = [await freePort(), await freePort()];
  const secret = randomBytes(16).toString("hex");
  const metricsToken = randomBytes(16).toString("hex");
  const common = {
    NODE_ENV: "production",
    APP_ID: "1",
    PRIVATE_KEY: devPrivateKey(),
    WEBHOOK_SECRET: secret,
    GHE_HOST: gh.host,
    GHE_PROTOCOL: "http",
    SCANNER_API_URL: sb.url,
    SCANNER_TOKEN: "sandbox-token",
    REDIS_URL: redisUrl,
    HOST: "127.0.0.1",
    METRICS_TOKEN: metricsToken,
    LOG_LEVEL: "info",
  };
  try {
    const user = await docker("image", "inspect", "--format", "{{.Config.User}}", image!);
    check(user !== "" && user !== "root" && user !== "0", `the image runs as a non-root user (${user})`);
    const version = await docker("run", "--rm", "--network", "none", image!, "diffward", "--version");
    check(version === PACKAGE_VERSION, `diffward --version in the image: ${version}`);

    let t = Date.now();
    await startContainer(web, { ...common, DIFFWARD_ROLE: "web", PORT: String(port) });
    await startContainer(worker, { ...common, DIFFWARD_ROLE: "worker", METRICS_PORT: String(workerOpsPort) });
    const base = `http://127.0.0.1:${port}`;
    await waitFor("the web container's /readyz", async () => (await fetch(`${base}/readyz`)).ok || undefined);
    const uid = await docker("exec", web, "id", "-u");
    check(uid !== "0", `web container up in ${seconds(Date.now() - t)}, read-only root, as uid ${uid}`);

    const health = await fetch(`${base}/healthz`);
    const healthBody = (await health.json()) as Record<string, unknown>;
    check(
      health.status === 200 && healthBody.redis === "ok" && healthBody.version === PACKAGE_VERSION,
      `web /healthz 200, Redis ok, version ${String(healthBody.version)}`,
      JSON.stringify(healthBody),
    );
    check((await fetch(`${base}/metrics`)).status === 401, "web /metrics without the token: 401");
    const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
    check(
      metrics.status === 200 && (await metrics.text()).includes("diffward_"),
      "web /metrics with the token: 200",
    );

    const ops = `http://127.0.0.1:${workerOpsPort}`;
    const workerHealth = await waitFor("the worker's /healthz with its queue workers running", async () => {
      const body = (await (await fetch(`${ops}/healthz`)).json()) as {
        workers?: { running: number; total: number };
      };
      return body.workers?.total && body.workers.running === body.workers.total ? body : undefined;
    });
    check(true, `worker /healthz 200 on the operations port: ${JSON.stringify(workerHealth)}`);
    check((await fetch(`${ops}/metrics`)).status === 401, "worker /metrics without the token: 401");
    const wm = await fetch(`${ops}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
    check(wm.status === 200, "worker /metrics with the token: 200");

    // Webhooks: unsigned refused, signed accepted, and a pull request goes the whole way.
    const hook = `${base}/api/github/webhooks`;
    const unsigned = await fetch(hook, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "ping" },
      body: "{}",
    });
    check(unsigned.status === 400, "an unsigned webhook: 400");
    const badly = await sendWebhook({
      url: hook,
      secret: "not-the-secret",
      name: "ping",
      payload: { zen: "x" },
    });
    check(badly.status === 400, "a webhook signed with another secret: 400");

    const pr = webhookExample("pull_request", "opened") as Parameters<typeof seedFromPullRequestEvent>[1] & {
      number: number;
      repository: { name: string; owner: { login: string }; default_branch: string };
      pull_request: { number: number; head: { sha: string } };
    };
    const seed = (payload: typeof pr) =>
      seedFromPullRequestEvent(gh.state, payload, {
        files: demoPullFiles(),
        mergeBaseSha: "c".repeat(40),
        repoFiles: { [payload.repository.default_branch]: { ".github/diffward.yml": demoConfig() } },
      });
    pr.pull_request.head.sha = "a".repeat(40);
    seed(pr);
    t = Date.now();
    const sent = await sendWebhook({ url: hook, secret, name: "pull_request", payload: pr });
    check(sent.status === 200, "a signed pull_request webhook: 200");
    const [owner, repo] = [pr.repository.owner.login, pr.repository.name];
    const completed = await waitFor("the check run to complete", async () =>
      gh.state
        .checkRuns(owner, repo)
        .find((c) => c.headSha === pr.pull_request.head.sha && c.status === "completed"),
    );
    check(
      gh.violations().length === 0,
      `pull request scanned and reported by the worker container in ${seconds(Date.now() - t)}: ` +
        `check run ${completed.conclusion}, ${gh.requests.length} GitHub requests, none against GitHub's OpenAPI`,
      JSON.stringify(gh.violations().slice(0, 3)),
    );

    // Drain: GitHub answers check-run creation slowly; SIGTERM arrives while the worker waits for it.
    const second = structuredClone(pr);
    second.number = second.pull_request.number = pr.number + 1;
    second.pull_request.head.sha = "e".repeat(40);
    seed(second);
    gh.setFaults({ latencyMs: 3_000, route: /\/check-runs$/ });
    const creates = () =>
      gh.requests.filter((r) => r.method === "POST" && /\/check-runs$/.test(r.path)).length;
    const before = creates();
    check(
      (await sendWebhook({ url: hook, secret, name: "pull_request", payload: second })).status === 200,
      "a second pull_request webhook: 200",
    );
    await waitFor("the second check-run request", async () => creates() > before || undefined);
    const drained = await stop(worker);
    const workerLog = await logs(worker);
    check(
      drained.exitCode === 0 && drained.ms > 1_500 && workerLog.includes('"msg":"stopped"'),
      `worker: docker stop during a slow GitHub request waited ${seconds(drained.ms)} for the job and exited ${drained.exitCode}`,
      workerLog.slice(-3_000),
    );
    const webStop = await stop(web);
    check(
      webStop.exitCode === 0,
      `web: docker stop exited ${webStop.exitCode} after ${seconds(webStop.ms)}`,
      await logs(web),
    );

    const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    try {
      for (const name of Object.values(QUEUE_NAMES)) {
        const q = new Queue(name, { connection, prefix: DEFAULT_QUEUE_PREFIX });
        const counts = await q.getJobCounts("active", "failed");
        check(
          counts.active === 0 && counts.failed === 0,
          `queue ${name}: no job left active or failed`,
          JSON.stringify(counts),
        );
        if (name === QUEUE_NAMES.events) {
          const done = await q.getJobs(["completed"]);
          const names = done.map((j) => j.name);
          check(
            names.filter((n) => n === JOBS.pullRequest.name).length === 2,
            "both pull request jobs completed",
            names,
          );
        }
        await q.close();
      }
    } finally {
      for (const pattern of ["{diffward}:*", "{dw}:*"]) {
        const keys = await connection.keys(pattern);
        if (keys.length) await connection.del(...keys);
      }
      connection.disconnect();
    }
    check(
      !(workerLog + (await logs(web))).includes("BEGIN RSA PRIVATE KEY"),
      "no private key in either container's log",
    );
    console.log(`image smoke passed in ${seconds(Date.now() - started)}`);
  } finally {
    await new Promise<void>((done) =>
      spawn("docker", ["rm", "--force", web, worker], { stdio: "ignore" }).on("exit", () => done()),
    );
    await gh.close();
    await sb.close();
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
