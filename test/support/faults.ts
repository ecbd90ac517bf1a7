/**
 * Fault-injection helpers: a diffward worker as a child process (killed on cue), a real HTTP proxy that
 * answers or rewrites chosen requests, and the exactly-once invariants every fault test checks.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { z } from "zod";
import type { Harness } from "../../dev/harness/harness.js";
import type { WorkerTiming } from "../../src/workers/workers.js";

/** Short BullMQ lock and stalled-check intervals (ms): a killed worker's job is taken over in ~2–3 s. */
export const WORKER_TIMING: WorkerTiming = {
  lockDuration: 2_000,
  stalledInterval: 1_000,
  maxStalledCount: 3,
};

/** What the child worker reads from its environment (zod at the process boundary). */
const WorkerEnv = z.object({
  DW_REDIS_URL: z.string().url(),
  DW_PREFIX: z.string().min(1),
  DW_SANDBOX_URL: z.string().url(),
  DW_GITHUB_URL: z.string().url(),
  DW_KILL_AFTER: z.string().optional(),
  /** `1`: register the recovery of missed deliveries and run it at start-up (`BootConfig.recoverDeliveries`) */
  DW_RECOVER_DELIVERIES: z.literal("1").optional(),
  /** Redis Cluster seed nodes, `host:port,…` (DW_REDIS_URL is then ignored) */
  DW_REDIS_CLUSTER_NODES: z.string().optional(),
});

export function devEnv(env: NodeJS.ProcessEnv) {
  const e = WorkerEnv.parse(env);
  return {
    redisUrl: e.DW_REDIS_URL,
    prefix: e.DW_PREFIX,
    sandboxUrl: e.DW_SANDBOX_URL,
    githubUrl: e.DW_GITHUB_URL,
    killAfter: e.DW_KILL_AFTER,
    recoverDeliveries: e.DW_RECOVER_DELIVERIES === "1",
    clusterNodes: e.DW_REDIS_CLUSTER_NODES?.split(",").filter(Boolean),
  };
}

/** A worker child process. */
export interface WorkerProcess {
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  stop(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL("./worker-entry.ts", import.meta.url));

/** Starts `worker-entry.ts` under tsx against the harness's Redis prefix, sandbox and stand-in. */
export function spawnWorker(
  h: Harness,
  opts: {
    killAfter?: string;
    redisUrl?: string;
    clusterNodes?: readonly string[];
    /** run the recovery of missed deliveries (at start-up, then on its schedule) */
    recoverDeliveries?: boolean;
  } = {},
): WorkerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", ENTRY], {
    env: {
      ...process.env,
      DW_REDIS_URL: opts.redisUrl ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      DW_PREFIX: h.prefix,
      DW_SANDBOX_URL: h.sandbox.url,
      DW_GITHUB_URL: h.github.url,
      ...(opts.killAfter ? { DW_KILL_AFTER: opts.killAfter } : {}),
      ...(opts.recoverDeliveries ? { DW_RECOVER_DELIVERIES: "1" } : {}),
      ...(opts.clusterNodes ? { DW_REDIS_CLUSTER_NODES: opts.clusterNodes.join(",") } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (out.includes("worker ready")) resolve();
    };
    child.stdout!.on("data", onData);
    void exited.then(() =>
      out.includes("worker ready") ? resolve() : reject(new Error(`worker died: ${out}`)),
    );
  });
  return {
    child,
    ready,
    exited,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * The invariants of every fault test: one scan launched for the head (sandbox `state.scans`), one diffward
 * check run on it, completed; one review; no finding comment posted twice; nothing GitHub would refuse.
 */
export function expectExactlyOnce(h: Harness, pr: { owner: string; repo: string }, head: string): void {
  const { owner, repo: name } = pr;
  const scans = [...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head);
  expect(scans, "scans launched for the head").toHaveLength(1);
  const runs = h.github.state.checkRuns(owner, name).filter((c) => c.headSha === head);
  expect(
    runs.map((r) => r.status),
    "diffward check runs on the head",
  ).toEqual(["completed"]);
  expect(runs[0]!.externalId).toBe(scans[0]!.id);
  expect(h.github.state.reviews(owner, name), "reviews").toHaveLength(1);
  const markers = h.github.state
    .reviewComments(owner, name)
    .map((c) => /<!-- diffward:finding=([^ ]+)/.exec(c.body)?.[1])
    .filter(Boolean);
  expect(markers.length).toBeGreaterThan(0);
  expect(new Set(markers).size, "finding comments posted once each").toBe(markers.length);
  expect(h.github.violations()).toEqual([]);
}

/** A canned answer of {@link startProxy}. */
export interface Canned {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

/**
 * A real HTTP proxy on 127.0.0.1 (port 0) in front of `target` (the GitHub stand-in or the sandbox): each
 * request is forwarded, unless `intercept` answers it; `rewrite` may replace a forwarded answer's body.
 */
export async function startProxy(
  target: string,
  opts: {
    intercept?: (method: string, path: string) => Canned | undefined;
    rewrite?: (method: string, path: string, status: number, body: string) => string | undefined;
  },
): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer, request } = await import("node:http");
  const base = new URL(target);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const canned = opts.intercept?.(req.method ?? "GET", path);
    if (canned) {
      req.resume();
      res
        .writeHead(canned.status, { "content-type": "application/json", ...canned.headers })
        .end(canned.body);
      return;
    }
    const up = request(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: base.host },
      },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on("data", (c: Buffer) => chunks.push(c));
        upRes.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const body = opts.rewrite?.(req.method ?? "GET", path, upRes.statusCode ?? 500, text) ?? text;
          const headers = { ...upRes.headers };
          delete headers["content-length"];
          delete headers["transfer-encoding"];
          res.writeHead(upRes.statusCode ?? 500, headers).end(body);
        });
      },
    );
    up.on("error", () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const prefix = base.pathname.replace(/\/$/, "");
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
