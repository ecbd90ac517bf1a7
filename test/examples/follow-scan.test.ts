import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../dev/sandbox/index.js";

const run = promisify(execFile);

describe("README example: examples/follow-scan.ts", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 });
  });
  afterAll(async () => sb?.close());

  it("launches a diff scan, follows it honouring Retry-After and prints its findings", async () => {
    const { stdout } = await run("npx", ["tsx", "examples/follow-scan.ts"], {
      env: { ...process.env, SCANNER_API_URL: sb.url, SCANNER_TOKEN: "sandbox-token" },
      timeout: 30_000,
    });
    expect(stdout).toMatch(/scan scn_\w+ launched, \d+ credits reserved/);
    expect(stdout).toContain("COMPLETED 100%");
    expect(stdout).toContain("SQL injection in user lookup");
    // Retry-After was honoured: the sandbox saw no early poll.
    expect(sb.state.stats.earlyPoll429s).toBe(0);
  });
});
