/**
 * Child processes of the bench (`bench/child.ts`: a diffward worker process, diffward's web server or the peer) and RSS sampling of
 * this process, shared by the phases (`bench/phases.ts`) and the pipeline runs (`bench/pipeline.ts`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sleep } from "./lib.js";

const CHILD = fileURLToPath(new URL("./child.ts", import.meta.url));

/** The Redis the bench's harnesses and worker children use (`REDIS_URL`, else the local default). */
export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** One line a child prints once a second (`process.memoryUsage().rss` in bytes, `process.cpuUsage()` in µs). */
export interface Sample {
  rssBytes: number;
  /** `process.memoryUsage().heapUsed`: V8's heap in use at the sample, garbage not yet collected included */
  heapUsedBytes?: number;
  /** `process.memoryUsage().heapTotal`: the pages V8 holds for its heap (in RSS once touched), used or not */
  heapTotalBytes?: number;
  /** `process.memoryUsage().external`: memory of C++ objects bound to JS ones (ArrayBuffers and Buffers included) */
  externalBytes?: number;
  cpuUserUs: number;
  cpuSystemUs: number;
  /** epoch ms */
  at: number;
}

/** A running bench child and what it printed so far. */
export interface BenchChild {
  child: ChildProcess;
  samples: Sample[];
  lines: string[];
}

/**
 * Spawns `bench/child.ts` (under `tsx`) with `config` (the child's zod-checked `ChildConfig`, written to a
 * temporary JSON file) and collects its once-a-second samples from stdout; its stderr goes to ours.
 */
export function startChild(config: unknown): BenchChild {
  // the configuration goes through a file: 10,000 scan ids overflow the argument list (E2BIG)
  const file = join(mkdtempSync(join(tmpdir(), "diffward-bench-")), "config.json");
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, file], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, LOG_LEVEL: "silent" },
  });
  const samples: Sample[] = [];
  const lines: string[] = [];
  let buf = "";
  child.stdout!.on("data", (d: Buffer) => {
    buf += d.toString("utf8");
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      try {
        const s = JSON.parse(line) as Partial<Sample>;
        if (typeof s.rssBytes === "number") samples.push(s as Sample);
      } catch {
        // not a sample line
      }
    }
  });
  return { child, samples, lines };
}

/**
 * The `url` a web child (`bench/child.ts` `mode: "web"`) printed before its first sample.
 * @throws Error when the child printed none (call after {@link waitForChildren}).
 */
export function childUrl(c: BenchChild): string {
  for (const line of c.lines) {
    try {
      const v = JSON.parse(line) as { url?: unknown };
      if (typeof v.url === "string") return v.url;
    } catch {
      // not a JSON line
    }
  }
  throw new Error(`bench child ${c.child.pid} printed no { url } line`);
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the child has exited. */
export async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    c.once("exit", () => resolve());
    c.kill("SIGTERM");
    setTimeout(() => c.kill("SIGKILL"), 10_000).unref();
  });
}

/**
 * Waits until every child has printed its first sample (it has loaded and booted: `bench/child.ts` starts
 * sampling after `boot()`), at most `timeoutMs`.
 * @throws Error when a child exits or stays silent past `timeoutMs`.
 */
export async function waitForChildren(children: readonly BenchChild[], timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (children.some((c) => c.samples.length === 0)) {
    const dead = children.find((c) => c.child.exitCode !== null);
    if (dead) throw new Error(`bench child exited with code ${dead.child.exitCode} before its first sample`);
    if (Date.now() > until) throw new Error(`bench children silent after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** CPU time (user + system) a child used up to its last sample, in seconds; 0 without samples. */
export function cpuSeconds(samples: readonly Sample[]): number {
  const last = samples.at(-1);
  return last ? (last.cpuUserUs + last.cpuSystemUs) / 1e6 : 0;
}

/** Peak of the samples' RSS, in MB (2^20 bytes); 0 without samples. */
export function peakRssMb(samples: readonly Sample[]): number {
  let peak = 0;
  for (const s of samples) if (s.rssBytes > peak) peak = s.rssBytes;
  return peak / 2 ** 20;
}

/**
 * Samples this process's RSS once a second (and at start and stop); `stop()` ends it and returns the peak
 * in MB (2^20 bytes).
 */
export function sampleOwnRss(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage().rss);
      return peak / 2 ** 20;
    },
  };
}
