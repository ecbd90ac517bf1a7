import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { demoConfig } from "../../dev/harness/demo-repo.js";
import { watchTokensFile } from "../../src/tenants/tokens-file.js";
import { completedRun, openPull, sha, type Payload } from "../support/pr.js";

function asAccount(p: Payload, login: string, installationId: number) {
  p.repository.owner = { ...p.repository.owner, login };
  p.repository.full_name = `${login}/${p.repository.name}`;
  p.installation = { ...p.installation, id: installationId };
  for (const side of [p.pull_request.head, p.pull_request.base])
    if (side.repo) side.repo = { ...p.repository };
  return p;
}

describe("one app, many organizations: a token per installation account", () => {
  let h: Harness;
  const tokens: Record<string, string> = { Codertocat: "sandbox-token", "other-co": "sandbox-token-2" };
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1, seed: 51 },
      boot: { scannerToken: undefined, scannerTokens: () => tokens },
    });
  });
  afterAll(async () => h?.close());

  const projectOf = (head: string) =>
    [...h.sandbox.state.scans.values()].find((s) => s.commitHash === head)?.projectId;

  it("each organization's scans go to its own project", async () => {
    const a = await openPull(h, { head: sha(401), repo: "tenant-a" });
    await completedRun(h, a.owner, a.repo, sha(401));
    expect(projectOf(sha(401))).toBe("prj_demo");

    const b = await openPull(h, {
      head: sha(402),
      repo: "tenant-b",
      send: false,
      config: demoConfig().replace("repo_demo", "repo_other"),
    });
    asAccount(b.payload, "other-co", 2);
    h.seed(b.payload, {
      repoFiles: { master: { ".github/diffward.yml": demoConfig().replace("repo_demo", "repo_other") } },
    });
    await h.send("pull_request", b.payload);
    const run = await completedRun(h, "other-co", b.repo, sha(402));
    expect(run.output.title).toMatch(/blocking|findings/i);
    expect(projectOf(sha(402))).toBe("prj_other");
  });

  it("an organization never reaches another organization's repository", async () => {
    const c = await openPull(h, {
      head: sha(403),
      repo: "tenant-c",
      config: demoConfig().replace("repo_demo", "repo_other"),
    });
    const run = await completedRun(h, c.owner, c.repo, sha(403));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("repo_other");
    expect(projectOf(sha(403))).toBeUndefined();
  });

  it("an installation with no token gets a neutral check telling how to connect it, and sends nothing to the service", async () => {
    const before = JSON.stringify(h.sandbox.state.stats.requests);
    const d = await openPull(h, { head: sha(404), repo: "tenant-d", send: false });
    asAccount(d.payload, "no-token-org", 3);
    h.seed(d.payload, { repoFiles: { master: { ".github/diffward.yml": demoConfig() } } });
    await h.send("pull_request", d.payload);
    const run = await completedRun(h, "no-token-org", d.repo, sha(404));
    expect(run.conclusion).toBe("neutral");
    expect(run.output.summary).toMatch(/token/i);
    expect(JSON.stringify(h.sandbox.state.stats.requests)).toBe(before);
  });
});

describe("SCANNER_TOKENS_FILE", () => {
  it("is YAML (or JSON), re-read on change without a restart; a broken edit keeps the last good tokens", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dw-tokens-"));
    const file = join(dir, "tokens.yml");
    writeFileSync(file, "acme: tok-1\n");
    const w = watchTokensFile(file, pino({ level: "silent" }), 50);
    try {
      expect(w.tokens()).toEqual({ acme: "tok-1" });
      writeFileSync(file, '{"acme": "tok-2", "beta": "tok-3"}');
      w.reload();
      expect(w.tokens()).toEqual({ acme: "tok-2", beta: "tok-3" });
      writeFileSync(file, "- not a map\n");
      w.reload();
      expect(w.tokens()).toEqual({ acme: "tok-2", beta: "tok-3" });
      writeFileSync(file, "acme: tok-4\n");
      await new Promise((r) => setTimeout(r, 1_500)); // picked up by the watcher, no reload() call
      expect(w.tokens()).toEqual({ acme: "tok-4" });
    } finally {
      w.close();
    }
  });
});

describe("GET /token is read again periodically", () => {
  it("re-reads the token after refreshMs, so new scopes or expiry show in later check runs", async () => {
    const { startSandbox } = await import("../../dev/sandbox/index.js");
    const { createScannerAccess } = await import("../../src/tenants/index.js");
    const sb = await startSandbox({});
    try {
      const access = createScannerAccess({ baseUrl: sb.url, defaultToken: "sandbox-token", refreshMs: 100 });
      const reads = () => sb.state.stats.requests["GET /token"]?.["200"] ?? 0;
      await access.forAccount("acme");
      await access.forAccount("acme");
      expect(reads()).toBe(1); // cached
      await new Promise((r) => setTimeout(r, 150));
      const tenant = await access.forAccount("acme");
      expect(reads()).toBe(2); // refreshed
      expect(tenant?.projectId).toBe("prj_demo");
    } finally {
      await sb.close();
    }
  });
});
