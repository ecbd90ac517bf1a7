/**
 * `npm run audit:export -- [--since <date>] [--until <date>] [--repository <owner/name>] [--out <file>]`:
 * diffward's audit trail of triage decisions (`src/stores/audit-log.ts`) as JSON Lines, one entry a line,
 * oldest first, read page by page from the Redis of `REDIS_URL` (or `REDIS_CLUSTER_NODES`), the same read and
 * the same query rules as `GET /audit` (`parseAuditQuery`: a date alone is a whole UTC day). Without `--out`
 * the lines go to standard output; the count goes to standard error. `--prefix` names another state prefix
 * than `{dw}` (a test harness's). docs/operations.md "Audit trail" shows a sample.
 *
 * Exit code 0 on success, 2 on a usage error (unknown option, bad date, a time before 1970), 1 on any other
 * error.
 */
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { AuditLog, parseAuditQuery } from "../src/stores/audit-log.js";
import { createRedis, DEFAULT_STATE_PREFIX } from "../src/runtime/connection.js";

const USAGE =
  "usage: npm run audit:export -- [--since <YYYY-MM-DD | ISO 8601>] [--until <…>] [--repository <owner/name>] [--out <file>] [--prefix <state prefix>]";

async function main(argv: string[]): Promise<number> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        since: { type: "string" },
        until: { type: "string" },
        repository: { type: "string" },
        out: { type: "string" },
        prefix: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { out, prefix, ...text } = values;
  const parsed = parseAuditQuery(text);
  if (!parsed.ok) {
    console.error(`bad query: ${parsed.error}\n${USAGE}`);
    return 2;
  }
  const nodes = (process.env.REDIS_CLUSTER_NODES ?? "").split(",").filter(Boolean);
  const redis = createRedis({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379", clusterNodes: nodes });
  const query = parsed.query;
  // read only: the export appends nothing
  const trail = new AuditLog(redis, prefix ?? DEFAULT_STATE_PREFIX);
  let count = 0;
  async function* counted(): AsyncGenerator<string> {
    for await (const line of trail.lines(query)) {
      count += 1;
      yield line;
    }
  }
  try {
    const sink = out ? createWriteStream(out) : process.stdout;
    await pipeline(Readable.from(counted()), sink, { end: out !== undefined });
    console.error(`audit entries: ${count}${out ? `, written to ${out}` : ""}`);
    return 0;
  } finally {
    redis.disconnect();
  }
}

// exitCode, not exit(): standard output is drained before the process ends
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
