import { spawn } from "node:child_process";

/**
 * `src/index.ts` (`npm start`'s entry) as a child process under tsx, with only `env` (and PATH, HOME) in its
 * environment: its output (stdout and stderr) so far, and its exit code once it ends.
 */
export function startEntry(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, ["--import", "tsx", "src/index.ts", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += String(d)));
  child.stderr.on("data", (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => out };
}
