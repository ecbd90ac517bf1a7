/**
 * A child process of the bench: one diffward worker process (`mode: "worker"`: `boot()` + `startWorkers()`
 * against the parent's Redis prefix, sandbox and GitHub stand-in), diffward's web server alone (`mode: "web"`:
 * the same `boot()`, no workers, `startWebServer` on a free port of 127.0.0.1 verifying deliveries with the
 * parent harness's `webhookSecret`, as `src/index.ts` does with `DIFFWARD_ROLE=web`; it first prints
 * `{ url }`, the server's base URL, as one JSON line) or the fixed-interval peer holding scans in memory
 * (`mode: "peer"`), the load generator of the week's acknowledgement figure (`mode: "ack-load"`: prints one
 * `{ ack: { ms, failed } }` line, bench/ack-load.ts), or the organization's page's loads of the bench's `--org-page` run (`mode: "org-page"`: the
 * same `boot()`, then `measure` of `bench/org-page.ts`, printed as one `{ orgPage }` JSON line). Then prints one JSON line per second on stdout: `{ rssBytes, heapUsedBytes, heapTotalBytes, externalBytes, cpuUserUs, cpuSystemUs, at }`
 * (from `process.memoryUsage()` and `process.cpuUsage()`), and stops on SIGTERM. Configuration is a JSON
 * file named by the one argument, checked with zod.
 */
// first, as in src/index.ts: with OTEL_EXPORTER_OTLP_ENDPOINT set, the child traces (the overhead's measure)
import "../src/tracing.js";
import { readFileSync } from "node:fs";
import { pino } from "pino";
import { z } from "zod";
import { boot } from "../src/boot.js";
import { devPrivateKey } from "../dev/harness/harness.js";
import { ScannerClient } from "../src/scanner/client.js";
import { diffwardApp, handlerDeps } from "../src/handlers/index.js";
import { startWebServer } from "../src/web.js";
import { createOrgPageDeps } from "../src/org-page/page-data.js";
import { measure, measureHttp } from "./org-page.js";
import { orgPageFor } from "../src/web/org-page.js";
import { SessionStore } from "../src/web/session.js";
import { ackLoad } from "./ack-load.js";

const ChildConfig = z.discriminatedUnion("mode", [
  z.object({
    mode: z.literal("worker"),
    redisUrl: z.string(),
    prefix: z.string(),
    sandboxUrl: z.string(),
    githubUrl: z.string(),
    firstPollDelayMs: z.number().int().min(0),
  }),
  z.object({
    mode: z.literal("web"),
    redisUrl: z.string(),
    prefix: z.string(),
    sandboxUrl: z.string(),
    githubUrl: z.string(),
    firstPollDelayMs: z.number().int().min(0),
    /** the parent harness's secret: its deliveries are signed with it */
    webhookSecret: z.string().min(1),
  }),
  z.object({
    mode: z.literal("org-page"),
    redisUrl: z.string(),
    prefix: z.string(),
    sandboxUrl: z.string(),
    githubUrl: z.string(),
    options: z.object({
      installations: z.number().int().min(1),
      reports: z.number().int().min(0),
      inflight: z.number().int().min(0),
      loads: z.number().int().min(1),
      busyShare: z.number().min(0).max(1),
    }),
  }),
  z.object({
    mode: z.literal("ack-load"),
    url: z.string(),
    secret: z.string().min(1),
    rate: z.number().positive(),
    seconds: z.number().positive(),
    installationId: z.number().int(),
    from: z.number().int(),
  }),
  z.object({
    mode: z.literal("peer"),
    sandboxUrl: z.string(),
    token: z.string(),
    scanIds: z.array(z.string()),
    intervalMs: z.number().int().positive(),
  }),
]);

const parsed = ChildConfig.safeParse(JSON.parse(readFileSync(process.argv[2] ?? "", "utf8")));
if (!parsed.success) {
  console.error(`bench child: bad configuration: ${z.prettifyError(parsed.error)}`);
  process.exit(2);
}
const cfg = parsed.data;
let stop: () => Promise<void> = async () => undefined;

/** diffward booted as `src/index.ts` boots it, on the parent's Redis prefix, sandbox and GitHub stand-in. */
function bootChild(
  c: { redisUrl: string; prefix: string; sandboxUrl: string; githubUrl: string },
  webhookSecret: string,
  settings: Parameters<typeof boot>[0]["settings"] = {},
) {
  return boot({
    appId: 1,
    privateKey: devPrivateKey(),
    webhookSecret,
    githubBaseUrl: c.githubUrl,
    redisUrl: c.redisUrl,
    queuePrefix: c.prefix,
    statePrefix: c.prefix,
    scannerApiUrl: c.sandboxUrl,
    scannerToken: "sandbox-token",
    log: pino({ level: "silent" }),
    settings,
  });
}

if (cfg.mode === "org-page") {
  const booted = bootChild(cfg, "unused-by-the-page");
  const deps = createOrgPageDeps(booted.rt, {
    accountOf: async (id) => `org-${id}`,
    githubUrl: "https://github.com",
  });
  const direct = await measure(deps, cfg.options);
  // then through HTTP: the web server with the page on (its own caches, cold again), an owner's session
  const secret = "bench-session-secret-0123456789abcdef";
  const web = await startWebServer({
    probot: booted.probot,
    app: diffwardApp(handlerDeps(booted.rt, pino({ level: "silent" }))),
    rt: booted.rt,
    port: 0,
    host: "127.0.0.1",
    pages: orgPageFor(booted.rt, {
      clientId: "Iv1.bench",
      clientSecret: "bench",
      apiBaseUrl: cfg.githubUrl,
      githubUrl: "https://github.com",
      sessionSecret: secret,
      secure: false,
      // no sign-in is walked here (the session below is made directly): the callback URL is never used
      publicUrl: "http://127.0.0.1",
    }),
  });
  const session = await new SessionStore(booted.rt.redis, cfg.prefix, secret, { secure: false }).create({
    login: "owner",
    userId: 1,
    installations: Array.from({ length: cfg.options.installations }, (_, i) => ({
      id: i + 1,
      account: `org-${i + 1}`,
      kind: "Organization" as const,
      orgWide: true,
      repositories: "all" as const,
    })),
  });
  const http = await measureHttp(web.url, session.cookie.split(";")[0]!, cfg.options);
  console.log(JSON.stringify({ orgPage: { ...direct, http } }));
  stop = async () => {
    await web.close();
    await booted.close();
  };
} else if (cfg.mode === "worker" || cfg.mode === "web") {
  const log = pino({ level: "silent" });
  const booted = bootChild(cfg, cfg.mode === "web" ? cfg.webhookSecret : "unused-by-workers", {
    firstPollDelayMs: cfg.firstPollDelayMs,
  });
  if (cfg.mode === "worker") {
    booted.startWorkers();
    stop = () => booted.close();
  } else {
    const web = await startWebServer({
      probot: booted.probot,
      app: diffwardApp(handlerDeps(booted.rt, log)),
      rt: booted.rt,
      port: 0,
      host: "127.0.0.1",
    });
    // before the first sample: the parent reads it once the child has sampled (`waitForChildren`)
    console.log(JSON.stringify({ url: web.url }));
    stop = async () => {
      await web.close();
      await booted.close();
    };
  }
} else if (cfg.mode === "ack-load") {
  // the sampler below starts first: the parent waits for it, then for this one `{ ack }` line
  setTimeout(() => void ackLoad(cfg).then((ack) => console.log(JSON.stringify({ ack }))), 1500);
} else {
  const client = new ScannerClient({ baseUrl: cfg.sandboxUrl, token: cfg.token });
  const timers = new Set<NodeJS.Timeout>();
  let polls = 0;
  const follow = (scanId: string) => {
    const t = setTimeout(async () => {
      timers.delete(t);
      try {
        await client.getScan("prj_demo", scanId);
        polls += 1;
      } catch {
        // a 429 or an error: the plain poller just tries again next interval
      }
      follow(scanId);
    }, cfg.intervalMs);
    timers.add(t);
  };
  cfg.scanIds.forEach((id, i) => setTimeout(() => follow(id), (i * cfg.intervalMs) / cfg.scanIds.length));
  stop = async () => {
    for (const t of timers) clearTimeout(t);
    console.log(JSON.stringify({ polls }));
  };
}

const sampler = setInterval(() => {
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  console.log(
    JSON.stringify({
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      heapTotalBytes: memory.heapTotal,
      externalBytes: memory.external,
      cpuUserUs: cpu.user,
      cpuSystemUs: cpu.system,
      at: Date.now(),
    }),
  );
}, 1000);

process.on("SIGTERM", () => {
  clearInterval(sampler);
  void stop().finally(() => process.exit(0));
});
