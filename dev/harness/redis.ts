/**
 * A Redis for the demo and the tests on a fresh machine: `REDIS_URL` (default `redis://127.0.0.1:6379`) when
 * one answers PING, else a private `redis-server` (Debian's package) on a free port of 127.0.0.1, keeping
 * nothing on disk. Used by `npm run demo` (scripts/demo.ts) and `npm test` (test/support/redis-global.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { connect, createServer } from "node:net";

/** True when the Redis at `url` answers PING within 1 s. */
export function pingRedis(url: string): Promise<boolean> {
  return new Promise((done) => {
    const u = new URL(url);
    const s = connect(Number(u.port || 6379), u.hostname);
    const t = setTimeout(() => (s.destroy(), done(false)), 1000);
    s.on("connect", () => s.write("PING\r\n"));
    s.on("data", (d) => (clearTimeout(t), s.end(), done(String(d).startsWith("+PONG"))));
    s.on("error", () => (clearTimeout(t), done(false)));
  });
}

/** A free TCP port on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
    s.on("error", fail);
  });
}

/**
 * The Redis to use: `{ url }` when `REDIS_URL` (or 127.0.0.1:6379) answers, else `{ url, child }` of a
 * `redis-server` started here (the caller kills `child` when done).
 * @throws Error when none answers and `redis-server` cannot be started (not installed) or does not answer
 *   within 5 s.
 */
export async function ensureRedis(): Promise<{ url: string; child?: ChildProcess }> {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  if (await pingRedis(url)) return { url };
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const failed = new Promise<Error>((done) => child.once("error", done));
  const own = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    const early = await Promise.race([
      failed,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)),
    ]);
    if (early)
      throw new Error(
        `No Redis answers at ${url} and redis-server could not be started (${early.message}); Debian: apt-get install redis-server`,
      );
    if (await pingRedis(own)) return { url: own, child };
  }
  child.kill();
  throw new Error(`No Redis answers at ${url} and the redis-server started on port ${port} did not answer`);
}
