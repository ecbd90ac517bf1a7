import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { auditKey, type AuditEntry } from "../../src/stores/audit-log.js";
import { createRedis } from "../../src/runtime/connection.js";

/** `npm run audit:export` run as a child process against a real Redis: its query checks and the lines it writes. */
describe("scripts/audit-export.ts (child process, real Redis)", () => {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redis = createRedis(url);
  const prefix = `{dwt-audit-export-${randomBytes(3).toString("hex")}}`;

  afterAll(async () => {
    await redis.del(auditKey(prefix));
    redis.disconnect();
  });

  /** Runs the script; never rejects: the exit code, standard output and standard error. */
  async function exportAudit(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const run = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", "scripts/audit-export.ts", "--prefix", prefix, ...args],
        { env: { ...process.env, REDIS_URL: url } },
      );
      return { code: 0, ...run };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  it("a time before 1970 is a usage error (exit 2) naming the accepted range", async () => {
    const range = "must be within 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z";
    for (const [option, value] of [
      ["--since", "1969-12-31"],
      ["--until", "1969-12-31"],
      ["--since", "0001-01-01T00:00:00Z"],
    ] as const) {
      const run = await exportAudit(option, value);
      expect(run.code, value).toBe(2);
      expect(run.stderr, value).toContain(`bad query: ${option.slice(2)}: ${range}`);
      expect(run.stdout).toBe("");
    }
  });

  it("writes U+0085, U+2028 and U+2029 of an entry's text escaped: one line per entry", async () => {
    const reason = "one\u2028two\u2029three\u0085four";
    const entry: AuditEntry = {
      time: "2026-11-02T12:00:00.000Z",
      installationId: 9,
      repository: "octo/app",
      actor: "alice",
      action: "note",
      reason,
      source: "command",
      outcome: "applied",
    };
    await redis.xadd(auditKey(prefix), `${Date.parse(entry.time)}-0`, "e", JSON.stringify(entry));
    const out = join(tmpdir(), `audit-${randomUUID()}.jsonl`);
    try {
      const run = await exportAudit("--since", "1970-01-01", "--out", out);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`audit entries: 1, written to ${out}`);
      const text = await readFile(out, "utf8");
      expect(text).not.toMatch(/[\u0085\u2028\u2029]/);
      expect(
        text
          .split(/\r\n|[\n\r\u0085\u2028\u2029]/)
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      ).toEqual([entry]);
    } finally {
      await rm(out, { force: true });
    }
  });
});
