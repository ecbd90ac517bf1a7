/**
 * ScannerClient against the project's sandbox over real HTTP (127.0.0.1, port 0): every endpoint of the
 * spec and every error code of its error table.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../dev/sandbox/index.js";
import {
  ScannerApiError,
  ScannerClient,
  findingLabel,
  isRetryable,
  isTerminalScanStatus,
  type ErrorCode,
  type ScanDetail,
} from "../../src/scanner/index.js";

const DEFAULT_TOKEN = "sandbox-token";
const sandboxes: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((s) => s.close()));
});

async function setup(options: Parameters<typeof startSandbox>[0] = {}) {
  const sb = await startSandbox({ retryAfterSeconds: 1, scanDurationMs: 1_200, seed: 7, ...options });
  sandboxes.push(sb);
  const client = new ScannerClient({ baseUrl: sb.url, token: DEFAULT_TOKEN, timeoutMs: 5_000 });
  const projectId = (await client.getToken()).project.id;
  const as = (token: string) => new ScannerClient({ baseUrl: sb.url, token });
  return { sb, client, projectId, as };
}

async function apiError(p: Promise<unknown>): Promise<ScannerApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ScannerApiError)) throw new Error(`expected a ScannerApiError, got ${String(err)}`);
  return err;
}

async function expectCode(p: Promise<unknown>, status: number, code: ErrorCode): Promise<ScannerApiError> {
  const err = await apiError(p);
  expect({ status: err.status, code: err.code }).toEqual({ status, code });
  expect(err.serviceMessage.length).toBeGreaterThan(0);
  return err;
}

/** Launches a diff scan of `main` against `develop` and jumps it to COMPLETED. */
async function completedDiffScan(ctx: Awaited<ReturnType<typeof setup>>): Promise<string> {
  const { scanId } = await ctx.client.launchScan(ctx.projectId, {
    repositoryId: "repo_demo",
    presetRef: "diff-standard",
    baseCommit: "develop",
    creditBudget: 30,
  });
  ctx.sb.state.completeNow(scanId);
  return scanId;
}

describe("token, repositories, presets", () => {
  it("reads the token, its project and organization", async () => {
    const { client, projectId } = await setup();
    const t = await client.getToken();
    expect(projectId).toBe("prj_demo");
    expect(t.scopes).toEqual(
      expect.arrayContaining(["read", "scans:launch", "findings:write", "guidance:write", "publish"]),
    );
    expect(t.repositoryIds).toEqual([]);
    expect(t.project.organization.slug).toBe("acme");
  });

  it("lists repositories, and only the allowed ones for a restricted token", async () => {
    const { sb, client, projectId, as } = await setup();
    sb.state.addRepository({ id: "repo_new", readiness: "analyzing" });
    const all = await client.listRepositories(projectId);
    expect(all.map((r) => [r.id, r.readiness])).toEqual([
      ["repo_demo", "ready"],
      ["repo_new", "analyzing"],
    ]);
    const restricted = as(sb.state.createToken({ scopes: ["read"], repositoryIds: ["repo_new"] }));
    expect((await restricted.listRepositories(projectId)).map((r) => r.id)).toEqual(["repo_new"]);
  });

  it("lists presets including a diff preset and non-diff ones", async () => {
    const { client, projectId } = await setup();
    const presets = await client.listPresets(projectId);
    expect(presets.map((p) => p.ref)).toContain("diff-standard");
    expect(presets.length).toBeGreaterThan(1);
    expect(presets.every((p) => Number.isInteger(p.minCredits))).toBe(true);
  });
});

describe("guidance and audit areas", () => {
  it("reads, writes, no-ops and compare-and-sets guidance", async () => {
    const { client, projectId } = await setup();
    expect((await client.getGuidance(projectId, "repo_demo")).content).toBeNull();
    const w1 = await client.putGuidance(projectId, "repo_demo", {
      content: "auth matters",
      expectedContent: null,
    });
    expect(w1).toMatchObject({ repositoryId: "repo_demo", unchanged: false, revisionId: expect.any(String) });
    expect((await client.getGuidance(projectId, "repo_demo")).content).toBe("auth matters");
    expect(await client.putGuidance(projectId, "repo_demo", { content: "auth matters" })).toMatchObject({
      unchanged: true,
      revisionId: null,
    });
    const err = await expectCode(
      client.putGuidance(projectId, "repo_demo", { content: "x", expectedContent: "stale" }),
      409,
      "conflict",
    );
    expect(err.retryable).toBe(false);
    // Omitted expectedContent = last writer wins, even though the stored text is not "stale".
    await client.putGuidance(projectId, "repo_demo", { content: null });
    expect((await client.getGuidance(projectId, "repo_demo")).content).toBeNull();
  });

  it("lists, creates and deletes audit areas", async () => {
    const { client, projectId } = await setup();
    const list = await client.listAuditAreas(projectId, "repo_demo");
    expect(list.branch).toBe("main");
    expect(list.hasMap).toBe(true);
    expect(list.areas.slice(0, 3).map((a) => [a.key, a.inCurrentMap, a.files, a.lines])).toEqual([
      ["http-api", true, 4, 610],
      ["authentication", true, 3, 240],
      ["data-access", true, 2, 180],
    ]);
    const legacy = list.areas.find((a) => a.key === "legacy-admin");
    expect(legacy).toMatchObject({ source: "discovered", inCurrentMap: false, files: null, lines: null });

    const other = await client.listAuditAreas(projectId, "repo_demo", { branch: "develop" });
    expect(other).toMatchObject({ branch: "develop", hasMap: false });

    const created = await client.createAuditArea(projectId, "repo_demo", {
      name: "Billing code",
      description: "payments",
    });
    expect(created.key).toMatch(/billing/);
    const after = await client.listAuditAreas(projectId, "repo_demo");
    expect(after.areas.find((a) => a.key === created.key)).toMatchObject({
      source: "custom",
      name: "Billing code",
    });

    expect(await client.deleteAuditArea(projectId, "repo_demo", created.key)).toEqual({
      repositoryId: "repo_demo",
      key: created.key,
      deleted: true,
    });
    await expectCode(client.deleteAuditArea(projectId, "repo_demo", "authentication"), 409, "conflict");
    await expectCode(client.deleteAuditArea(projectId, "repo_demo", created.key), 404, "not_found");
  });
});

describe("scans", () => {
  it("launches, polls with Retry-After until terminal, lists and iterates", async () => {
    const { client, projectId } = await setup();
    const launch = await client.launchScan(projectId, {
      repositoryId: "repo_demo",
      presetRef: "diff-standard",
      baseCommit: "develop",
      creditBudget: 25,
      commitMessage: "feat: x",
    });
    expect(launch).toMatchObject({ queued: true, creditBudget: 25 });

    let polls = 0;
    let last: ScanDetail | undefined;
    let sawRetryAfter = false;
    for (;;) {
      const r = await client.getScan(projectId, launch.scanId);
      polls += 1;
      last = r.scan;
      if (isTerminalScanStatus(r.scan.status)) {
        expect(r.retryAfterSeconds).toBeUndefined();
        break;
      }
      expect(r.retryAfterSeconds).toBe(1);
      sawRetryAfter = true;
      await new Promise((res) => setTimeout(res, r.retryAfterSeconds! * 1000));
      if (polls > 10) throw new Error("scan never finished");
    }
    expect(sawRetryAfter).toBe(true);
    expect(last.status).toBe("COMPLETED");
    expect(last.progress?.percent).toBe(100);
    expect(last.baseCommit).toMatch(/^[0-9a-f]{7,40}$/);
    expect(last.findingsSummary?.total).toBeGreaterThanOrEqual(0);
    expect(last.creditBudget).toBe(25);

    await completedDiffScan({ sb: sandboxes[0]!, client, projectId, as: () => client });
    await completedDiffScan({ sb: sandboxes[0]!, client, projectId, as: () => client });
    const page = await client.listScans(projectId, { page: 1, limit: 2 });
    expect(page).toMatchObject({ page: 1, limit: 2, total: 3 });
    expect(page.items).toHaveLength(2);
    const ids: string[] = [];
    for await (const s of client.iterateScans(projectId, { limit: 2 })) ids.push(s.id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toContain(launch.scanId);
  });

  it("keeps the three guidance states distinct end to end", async () => {
    const { sb, client, projectId } = await setup();
    await client.putGuidance(projectId, "repo_demo", { content: "stored" });
    const base = { repositoryId: "repo_demo", presetRef: "quick", creditBudget: 20 } as const;
    const omitted = await client.launchScan(projectId, base);
    const replaced = await client.launchScan(projectId, { ...base, guidance: "per scan" });
    const cleared = await client.launchScan(projectId, { ...base, guidance: null });
    expect(sb.state.scans.get(omitted.scanId)?.guidance).toBeUndefined();
    expect(sb.state.scans.get(replaced.scanId)?.guidance).toBe("per scan");
    expect(sb.state.scans.get(cleared.scanId)?.guidance).toBeNull();
  });

  it("recommends a budget when creditBudget is omitted", async () => {
    const { client, projectId } = await setup();
    const r = await client.launchScan(projectId, { repositoryId: "repo_demo", presetRef: "quick" });
    expect(r.creditBudget).toBeGreaterThanOrEqual(1);
  });

  it("cancels a running scan, then refuses to cancel a completed one", async () => {
    const ctx = await setup({ scanDurationMs: 60_000 });
    const { client, projectId } = ctx;
    const { scanId } = await client.launchScan(projectId, {
      repositoryId: "repo_demo",
      presetRef: "quick",
      creditBudget: 20,
    });
    const c = await client.cancelScan(projectId, scanId);
    expect(c).toMatchObject({ scanId, status: "CANCELLED" });
    expect((await client.getScan(projectId, scanId)).scan.status).toBe("CANCELLED");
    const done = await completedDiffScan(ctx);
    const err = await expectCode(client.cancelScan(projectId, done), 400, "bad_request");
    expect(err.endpoint).toBe("POST /projects/{projectId}/scans/{scanId}/cancel");
  });

  it("publishes a completed scan, with and without a password", async () => {
    const ctx = await setup();
    const scanId = await completedDiffScan(ctx);
    const withPw = await ctx.client.publishScan(ctx.projectId, scanId, { withPassword: true });
    expect(withPw.accessPassword).toEqual(expect.any(String));
    const without = await ctx.client.publishScan(ctx.projectId, scanId, { withPassword: false });
    expect(without.accessPassword).toBeNull();
    expect(without.publicId).not.toBe(withPw.publicId);
  });
});

describe("findings", () => {
  it("lists, iterates, reads by id and by label, comments, overrides, resolves and publishes", async () => {
    const ctx = await setup();
    const { client, projectId } = ctx;
    const scanId = await completedDiffScan(ctx);
    const first = await client.listFindings(projectId, { scanId, limit: 100 });
    expect(first.total).toBeGreaterThan(0);
    const all = [];
    for await (const f of client.iterateFindings(projectId, { scanId, limit: 1 })) all.push(f);
    expect(all.map((f) => f.id)).toEqual(first.items.map((f) => f.id));

    const f = first.items[0]!;
    const byId = await client.getFinding(projectId, f.id);
    expect(byId).toMatchObject({ id: f.id, scanId, title: f.title });
    const byLabel = await client.getFinding(projectId, findingLabel(f.id));
    expect(byLabel.id).toBe(f.id);

    const note = await client.addNote(projectId, f.id, "Looking at it **now**");
    expect(note.findingId).toBe(f.id);
    const sev = f.severity === "LOW" ? "HIGH" : "LOW";
    await client.setSeverity(projectId, f.id, sev);
    expect((await client.getFinding(projectId, f.id)).severity).toBe(sev);
    await client.setSeverity(projectId, f.id, null);
    expect((await client.getFinding(projectId, f.id)).severity).toBe(f.severity);

    const r1 = await client.setResolution(projectId, f.id, {
      resolutionStatus: "WONT_FIX",
      reason: "risk_accepted",
    });
    expect(r1.resolutionStatus).toBe("WONT_FIX");
    const r2 = await client.setResolution(projectId, f.id, {
      resolutionStatus: "RESOLVED",
      note: { existingNoteId: note.noteId },
    });
    expect(r2.resolutionStatus).toBe("RESOLVED");
    const detail = await client.getFinding(projectId, f.id);
    expect(detail.resolutionStatus).toBe("RESOLVED");
    expect(detail.notes.map((n) => n.body)).toEqual(
      expect.arrayContaining(["Looking at it **now**", expect.stringContaining("risk_accepted")]),
    );

    const err = await expectCode(
      client.setResolution(projectId, f.id, { resolutionStatus: "RESOLVED", reason: "risk_accepted" }),
      400,
      "bad_request",
    );
    expect(err.serviceMessage).toContain("fixed_in_code");

    const art = await client.publishFinding(projectId, f.id, { noteId: note.noteId, withPassword: false });
    expect(art).toMatchObject({
      artifactId: expect.any(String),
      publicId: expect.any(String),
      accessPassword: null,
    });
  });

  it("answers 409 conflict for an ambiguous label, while the full id works", async () => {
    const ctx = await setup();
    const scanId = await completedDiffScan(ctx);
    const f = (await ctx.client.listFindings(ctx.projectId, { scanId })).items[0]!;
    ctx.sb.state.makeLabelConflict(f.id);
    await expectCode(ctx.client.getFinding(ctx.projectId, findingLabel(f.id)), 409, "conflict");
    expect((await ctx.client.getFinding(ctx.projectId, f.id)).id).toBe(f.id);
  });
});

describe("billing", () => {
  it("reads balance, usage and summary in credits", async () => {
    const ctx = await setup();
    const { client, projectId } = ctx;
    const before = await client.getBalance(projectId);
    expect(before.organization.slug).toBe("acme");
    expect(before.availableCredits).toBe(before.balanceCredits - before.reservedCredits);
    const scanId = await completedDiffScan(ctx);
    const usage = await client.getUsage(projectId, { limit: 10 });
    expect(
      usage.events.some((e) => e.scanId === scanId && e.type === "SCAN_DEDUCTION" && e.credits < 0),
    ).toBe(true);
    const after = await client.getBalance(projectId);
    expect(after.balanceCredits).toBeLessThan(before.balanceCredits);
    const summary = await client.getSummary(projectId, { months: 2 });
    expect(summary.months).toHaveLength(2);
    expect(summary.months[0]!.month).toBe(new Date().toISOString().slice(0, 7));
    expect(summary.months[0]!.spentCredits).toBeGreaterThan(0);
    const window = await client.getUsage(projectId, {
      from: new Date(Date.now() + 60_000),
      to: new Date(Date.now() + 120_000),
    });
    expect(window.events).toEqual([]);
  });
});

describe("every error code of the spec's error table", () => {
  it("unauthorized: unknown token", async () => {
    const { as } = await setup();
    const err = await expectCode(as("not-a-token").getToken(), 401, "unauthorized");
    expect(err.retryable).toBe(false);
    expect(err.message).not.toContain("not-a-token");
  });

  it("forbidden: token without the scope", async () => {
    const { sb, projectId, as } = await setup();
    const reader = as(sb.state.createToken({ scopes: ["read"] }));
    expect((await reader.getToken()).scopes).toEqual(["read"]);
    await expectCode(
      reader.launchScan(projectId, { repositoryId: "repo_demo", presetRef: "quick" }),
      403,
      "forbidden",
    );
  });

  it("not_found: another project, a repository outside the allowlist", async () => {
    const { sb, client, projectId, as } = await setup();
    await expectCode(client.listScans("prj_other"), 404, "not_found");
    const restricted = as(
      sb.state.createToken({ scopes: ["read", "scans:launch"], repositoryIds: ["repo_x"] }),
    );
    await expectCode(
      restricted.launchScan(projectId, { repositoryId: "repo_demo", presetRef: "quick" }),
      404,
      "not_found",
    );
  });

  it("bad_request: budget below the preset floor", async () => {
    const { client, projectId } = await setup();
    const err = await expectCode(
      client.launchScan(projectId, { repositoryId: "repo_demo", presetRef: "full-deep", creditBudget: 5 }),
      400,
      "bad_request",
    );
    expect(isRetryable(err)).toBe(false);
  });

  it("insufficient_credits (402, not retryable)", async () => {
    const { sb, client, projectId } = await setup();
    sb.state.setBalance(3);
    const err = await expectCode(
      client.launchScan(projectId, { repositoryId: "repo_demo", presetRef: "quick", creditBudget: 20 }),
      402,
      "insufficient_credits",
    );
    expect(err.retryable).toBe(false);
  });

  it("repository_initializing (409), then success once ready", async () => {
    const { sb, client, projectId } = await setup();
    sb.state.addRepository({ id: "repo_new", analyzingMs: 400 });
    const launch = () =>
      client.launchScan(projectId, { repositoryId: "repo_new", presetRef: "quick", creditBudget: 20 });
    await expectCode(launch(), 409, "repository_initializing");
    await new Promise((r) => setTimeout(r, 450));
    expect((await launch()).queued).toBe(true);
  });

  it("diff_base_required, diff_base_not_allowed, diff_base_invalid (400)", async () => {
    const { client, projectId } = await setup();
    const base = { repositoryId: "repo_demo", creditBudget: 30 } as const;
    await expectCode(
      client.launchScan(projectId, { ...base, presetRef: "diff-standard" }),
      400,
      "diff_base_required",
    );
    await expectCode(
      client.launchScan(projectId, { ...base, presetRef: "quick", baseCommit: "develop" }),
      400,
      "diff_base_not_allowed",
    );
    await expectCode(
      client.launchScan(projectId, { ...base, presetRef: "diff-standard", baseCommit: "no-such-branch" }),
      400,
      "diff_base_invalid",
    );
  });

  it("diff_empty (422)", async () => {
    const { client, projectId } = await setup();
    await expectCode(
      client.launchScan(projectId, {
        repositoryId: "repo_demo",
        presetRef: "diff-standard",
        creditBudget: 30,
        commitHash: "abcdef1234",
        baseCommit: "abcdef1234",
      }),
      422,
      "diff_empty",
    );
  });

  it("rate_limited (429) when polling too fast, with Retry-After", async () => {
    const ctx = await setup({ scanDurationMs: 60_000 });
    const { scanId } = await ctx.client.launchScan(ctx.projectId, {
      repositoryId: "repo_demo",
      presetRef: "quick",
      creditBudget: 20,
    });
    expect((await ctx.client.getScan(ctx.projectId, scanId)).retryAfterSeconds).toBe(1);
    const err = await expectCode(ctx.client.getScan(ctx.projectId, scanId), 429, "rate_limited");
    expect(err.retryAfterSeconds).toBe(1);
    expect(err.retryable).toBe(true);
  });

  it("rate_limited (429) when the token spend limit is reached", async () => {
    const { sb, projectId, as } = await setup();
    const limited = as(sb.state.createToken({ scopes: ["read", "scans:launch"], spendLimitCredits: 10 }));
    const err = await expectCode(
      limited.launchScan(projectId, { repositoryId: "repo_demo", presetRef: "quick", creditBudget: 20 }),
      429,
      "rate_limited",
    );
    expect(err.retryAfterSeconds).toBeGreaterThan(0);
  });

  it("internal (5xx, retryable)", async () => {
    const { sb, client, projectId } = await setup();
    sb.state.faults.errors = { remaining: 1, statuses: [503], route: null, served: 0 };
    const err = await expectCode(client.getBalance(projectId), 503, "internal");
    expect(err.retryable).toBe(true);
    expect((await client.getBalance(projectId)).balanceCredits).toBeGreaterThan(0);
  });
});
