import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boot, errorOf, type Harness } from "../support/sandbox-api.js";

let h: Harness;
beforeEach(async () => {
  h = await boot({ scanCost: 30 });
});
afterEach(async () => {
  await h.sb.close();
});

describe("launch (spec 'Scans → launch rules 1-8')", () => {
  it("accepts a launch with 202, queued, and the budget used; reserves it", async () => {
    const r = await h.launch({ presetRef: "full-standard", creditBudget: 120 });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ scanId: expect.stringMatching(/^scn_/), queued: true, creditBudget: 120 });
    const bal = await h.api("GET", "/projects/prj_demo/billing/balance");
    expect(bal.body).toMatchObject({ balanceCredits: 10_000, reservedCredits: 120, availableCredits: 9_880 });
  });

  it("defaults to the first preset (full-standard) and the head of main", async () => {
    const r = await h.launch({ creditBudget: 60 });
    const s = await h.api("GET", `/projects/prj_demo/scans/${r.body.scanId}`);
    expect(s.body.scan).toMatchObject({ presetName: "Full scan", branch: "main", baseCommit: null });
    expect(s.body.scan.commitHash).toMatch(/^[0-9a-f]{40}$/);
  });

  it("rule 1: recommended budget is the preset minimum first, then from past spend, +50% after running short", async () => {
    const first = await h.launch({ presetRef: "full-standard" });
    expect(first.body.creditBudget).toBe(50); // minCredits; scanCost 30 fits
    h.sb.state.completeNow(first.body.scanId);
    const second = await h.launch({ presetRef: "full-standard" });
    expect(second.body.creditBudget).toBe(50); // 125% of 30 = 38, floor 50
    h.sb.state.forceScanSpend(second.body.scanId, 500);
    h.sb.state.completeNow(second.body.scanId); // spends the whole 50: ran short
    const third = await h.launch({ presetRef: "full-standard" });
    expect(third.body.creditBudget).toBe(75);
    // a preset with minCredits 0 starts at the default floor
    const quick = await h.launch({ presetRef: "quick" });
    expect(quick.body.creditBudget).toBe(20);
  });

  it("rule 1: spent well above the floor recommends 125% of it", async () => {
    const a = await h.launch({ presetRef: "full-standard", creditBudget: 400 });
    h.sb.state.forceScanSpend(a.body.scanId, 200);
    h.sb.state.completeNow(a.body.scanId);
    const b = await h.launch({ presetRef: "full-standard" });
    expect(b.body.creditBudget).toBe(250);
  });

  it("rule 2: an audit-area key the current map no longer names is refused with 400 bad_request", async () => {
    const r = await h.launch({ creditBudget: 60, auditAreaKeys: ["authentication", "legacy-admin"] });
    expect(errorOf(r)).toEqual([400, "bad_request"]);
    expect(r.body.error.message).toContain("legacy-admin");
    expect(r.body.error.message).not.toContain("authentication,");
    const unknown = await h.launch({ creditBudget: 60, auditAreaKeys: ["nope"] });
    expect(errorOf(unknown)).toEqual([400, "bad_request"]);
    const ok = await h.launch({ creditBudget: 60, auditAreaKeys: ["authentication"] });
    expect(ok.status).toBe(202);
  });

  it("rule 3: 402 insufficient_credits when available credits cannot cover the budget", async () => {
    h.sb.state.setBalance(100);
    expect((await h.launch({ creditBudget: 80 })).status).toBe(202);
    const r = await h.launch({ creditBudget: 60 }); // 20 available
    expect(errorOf(r)).toEqual([402, "insufficient_credits"]);
  });

  it("rule 4: 409 repository_initializing while analyzing; the same request succeeds once ready", async () => {
    h.sb.state.addRepository({ id: "repo_new", analyzingMs: 60_000 });
    const body = { repositoryId: "repo_new", creditBudget: 60 };
    const r = await h.api("POST", "/projects/prj_demo/scans", body);
    expect(errorOf(r)).toEqual([409, "repository_initializing"]);
    const list = await h.api("GET", "/projects/prj_demo/repositories");
    expect(list.body.items).toContainEqual(
      expect.objectContaining({ id: "repo_new", readiness: "analyzing" }),
    );
    h.tick(60_000);
    expect((await h.api("POST", "/projects/prj_demo/scans", body)).status).toBe(202);
  });

  it("rule 5: 429 rate_limited with Retry-After (to the next UTC month) when the token spend limit is reached", async () => {
    const token = h.sb.state.createToken({ scopes: ["read", "scans:launch"], spendLimitCredits: 100 });
    expect((await h.launch({ creditBudget: 60 }, token)).status).toBe(202);
    const r = await h.launch({ creditBudget: 60 }, token);
    expect(errorOf(r)).toEqual([429, "rate_limited"]);
    const retry = Number(r.headers.get("retry-after"));
    expect(retry).toBe((Date.UTC(2026, 6, 1) - h.clock.t) / 1000);
    // the next period starts fresh
    h.tick(retry * 1000);
    expect((await h.launch({ creditBudget: 60 }, token)).status).toBe(202);
  });

  it("rule 6: diff_base_required, diff_base_not_allowed, diff_base_invalid (400)", async () => {
    expect(errorOf(await h.launch({ presetRef: "diff-standard" }))).toEqual([400, "diff_base_required"]);
    expect(errorOf(await h.launch({ presetRef: "full-standard", baseCommit: "main" }))).toEqual([
      400,
      "diff_base_not_allowed",
    ]);
    expect(errorOf(await h.launch({ presetRef: "diff-standard", baseCommit: "no-such-branch" }))).toEqual([
      400,
      "diff_base_invalid",
    ]);
    expect(errorOf(await h.launch({ presetRef: "diff-standard", baseCommit: "abc12" }))).toEqual([
      400,
      "diff_base_invalid",
    ]);
  });

  it("rule 6: a hex base is recorded as the merge base; a branch base as a deterministic fake merge base", async () => {
    const hex = await h.launch({ presetRef: "diff-standard", baseCommit: "ABCDEF1" });
    expect(hex.status).toBe(202);
    const s1 = await h.api("GET", `/projects/prj_demo/scans/${hex.body.scanId}`);
    expect(s1.body.scan.baseCommit).toBe("abcdef1");
    const br = await h.launch({ presetRef: "diff-standard", baseCommit: "develop" });
    const s2 = await h.api("GET", `/projects/prj_demo/scans/${br.body.scanId}`);
    expect(s2.body.scan.baseCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(s2.body.scan.baseCommit).not.toBe(h.sb.state.branches.get("develop"));
  });

  it("rule 7: 422 diff_empty when the merge base is the scanned commit or the commit has no change", async () => {
    const head = h.sb.state.branches.get("main");
    expect(errorOf(await h.launch({ presetRef: "diff-standard", baseCommit: "main" }))).toEqual([
      422,
      "diff_empty",
    ]);
    expect(
      errorOf(
        await h.launch({ presetRef: "diff-standard", commitHash: "1234567", baseCommit: "1234567abc" }),
      ),
    ).toEqual([422, "diff_empty"]);
    h.sb.state.markNoChange("feedbeef");
    expect(
      errorOf(await h.launch({ presetRef: "diff-standard", commitHash: "feedbeef", baseCommit: head })),
    ).toEqual([422, "diff_empty"]);
  });

  it("rule 8: 404 not_found for a repository outside the project or the token's allowlist", async () => {
    expect(errorOf(await h.launch({ repositoryId: "repo_other", creditBudget: 60 }))).toEqual([
      404,
      "not_found",
    ]);
    expect(errorOf(await h.launch({ repositoryId: "repo_missing", creditBudget: 60 }))).toEqual([
      404,
      "not_found",
    ]);
    h.sb.state.addRepository({ id: "repo_b" });
    const token = h.sb.state.createToken({ scopes: ["scans:launch", "read"], repositoryIds: ["repo_b"] });
    expect(errorOf(await h.launch({ creditBudget: 60 }, token))).toEqual([404, "not_found"]);
    expect((await h.launch({ repositoryId: "repo_b", creditBudget: 60 }, token)).status).toBe(202);
  });

  it("validation: budget below the preset floor, bad commitHash, unknown preset, long guidance, inactive repo", async () => {
    expect(errorOf(await h.launch({ presetRef: "full-deep", creditBudget: 199 }))).toEqual([
      400,
      "bad_request",
    ]);
    expect((await h.launch({ presetRef: "quick", creditBudget: 1 })).status).toBe(202);
    expect(errorOf(await h.launch({ creditBudget: 0 }))).toEqual([400, "bad_request"]);
    expect(errorOf(await h.launch({ creditBudget: 60, commitHash: "xyz1234" }))).toEqual([
      400,
      "bad_request",
    ]);
    expect(errorOf(await h.launch({ presetRef: "nope" }))).toEqual([400, "bad_request"]);
    expect(errorOf(await h.launch({ creditBudget: 60, guidance: "x".repeat(100_001) }))).toEqual([
      400,
      "bad_request",
    ]);
    expect((await h.launch({ creditBudget: 60, guidance: "x".repeat(100_000) })).status).toBe(202);
    h.sb.state.setActive("repo_demo", false);
    expect(errorOf(await h.launch({ creditBudget: 60 }))).toEqual([400, "bad_request"]);
  });

  it("order: validation before not_found, initializing before diff rules, diff rules before credits", async () => {
    expect(errorOf(await h.launch({ repositoryId: "repo_other", commitHash: "zz" }))).toEqual([
      400,
      "bad_request",
    ]);
    h.sb.state.addRepository({ id: "repo_init", readiness: "analyzing" });
    const r = await h.api("POST", "/projects/prj_demo/scans", {
      repositoryId: "repo_init",
      presetRef: "diff-standard",
    });
    expect(errorOf(r)).toEqual([409, "repository_initializing"]);
    h.sb.state.setBalance(0);
    expect(errorOf(await h.launch({ presetRef: "diff-standard" }))).toEqual([400, "diff_base_required"]);
    expect(errorOf(await h.launch({ presetRef: "diff-standard", baseCommit: "main" }))).toEqual([
      422,
      "diff_empty",
    ]);
    expect(errorOf(await h.launch({ presetRef: "diff-standard", baseCommit: "develop" }))).toEqual([
      402,
      "insufficient_credits",
    ]);
  });

  it("presets list has a diff preset, three full ones, and one with minCredits 0", async () => {
    const r = await h.api("GET", "/projects/prj_demo/scan-presets");
    expect(r.body.presets.map((p: { ref: string; minCredits: number }) => [p.ref, p.minCredits])).toEqual([
      ["full-standard", 50],
      ["diff-standard", 10],
      ["full-deep", 200],
      ["quick", 0],
    ]);
    const tiers = new Set(r.body.presets.map((p: { modelTier: string }) => p.modelTier));
    expect(tiers.has("deep")).toBe(true);
  });
});
