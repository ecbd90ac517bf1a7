#!/usr/bin/env node
/**
 * The package's `diffward` command. `diffward check-config [path ...]` checks configuration files
 * (default `.github/diffward.yml`) and exits 1 on a problem, needing no server, Redis, GitHub or settings;
 * without a subcommand it starts the app as `node dist/src/index.js` does (same arguments).
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { checkConfigText } from "./config/check-config.js";
import { REPO_CONFIG_PATH } from "./config/repo-config.js";

const USAGE = "usage: diffward check-config [path ...]   (default path: .github/diffward.yml)";

/** Checks each file; returns the exit status (1 when any file has a problem or cannot be read). */
async function checkConfig(args: string[]): Promise<number> {
  let paths: string[];
  try {
    paths = parseArgs({ args, allowPositionals: true, options: {} }).positionals;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  let status = 0;
  for (const path of paths.length > 0 ? paths : [REPO_CONFIG_PATH]) {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      console.error(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
      status = 1;
      continue;
    }
    const check = checkConfigText(path, text);
    for (const line of check.lines) (check.exitCode === 0 ? console.log : console.error)(line);
    status = Math.max(status, check.exitCode);
  }
  return status;
}

const [command, ...rest] = process.argv.slice(2);
if (command === "check-config") process.exitCode = await checkConfig(rest);
else await import("./index.js");
