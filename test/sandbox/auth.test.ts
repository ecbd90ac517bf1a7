import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boot, errorOf, type Harness } from "../support/sandbox-api.js";

let h: Harness;
beforeEach(async () => {
  h = await boot();
});
afterEach(async () => {
  await h.sb.close();
});

describe("authentication (spec 'Authentication' rules 1-7)", () => {
  it("401 unauthorized for missing, malformed, unknown, expired and revoked tokens", async () => {
    expect(errorOf(await h.api("GET", "/token", undefined, null))).toEqual([401, "unauthorized"]);
    const raw = await fetch(`${h.sb.url}/token`, { headers: { Authorization: "Token sandbox-token" } });
    expect(raw.status).toBe(401);
    expect(errorOf(await h.api("GET", "/token", undefined, "nope"))).toEqual([401, "unauthorized"]);
    const exp = h.sb.state.createToken({ scopes: ["read"], expiresAt: h.clock.t + 1000 });
    expect((await h.api("GET", "/token", undefined, exp)).status).toBe(200);
    h.tick(1000);
    expect(errorOf(await h.api("GET", "/token", undefined, exp))).toEqual([401, "unauthorized"]);
    const rev = h.sb.state.createToken({ scopes: ["read"] });
    h.sb.state.revokeToken(rev);
    expect(errorOf(await h.api("GET", "/token", undefined, rev))).toEqual([401, "unauthorized"]);
  });

  it("GET /token works without scopes and describes the token and its project", async () => {
    const t = h.sb.state.createToken({
      scopes: [],
      name: "ci",
      repositoryIds: ["repo_demo"],
      spendLimitCredits: 500,
      expiresAt: "2030-01-01T00:00:00.000Z",
    });
    const r = await h.api("GET", "/token", undefined, t);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^tok_/),
      name: "ci",
      scopes: [],
      repositoryIds: ["repo_demo"],
      expiresAt: "2030-01-01T00:00:00.000Z",
      spendLimitCredits: 500,
      project: {
        id: "prj_demo",
        slug: "demo",
        name: "Demo",
        organization: { id: "org_acme", slug: "acme", name: "Acme" },
      },
    });
    const other = await h.api("GET", "/token", undefined, "sandbox-token-2");
    expect(other.body.project.id).toBe("prj_other");
  });

  it("403 forbidden for a missing scope, per operation group", async () => {
    const none = h.sb.state.createToken({ scopes: [] });
    const cases: [string, string, unknown][] = [
      ["GET", "/projects/prj_demo/scans", undefined],
      ["GET", "/projects/prj_demo/billing/balance", undefined],
      ["POST", "/projects/prj_demo/scans", { repositoryId: "repo_demo" }],
      ["PUT", "/projects/prj_demo/repositories/repo_demo/guidance", { content: "x" }],
      ["POST", "/projects/prj_demo/repositories/repo_demo/audit-areas", { name: "x", description: "y" }],
      ["PATCH", "/projects/prj_demo/findings/whatever1/severity", { severity: null }],
      ["POST", "/projects/prj_demo/scans/scn_x/publish", {}],
    ];
    for (const [m, p, b] of cases) expect(errorOf(await h.api(m, p, b, none))).toEqual([403, "forbidden"]);
  });

  it("404 not_found for another project's resources and outside the allowlist", async () => {
    const launched = await h.launch({ creditBudget: 60 });
    const scanPath = `/projects/prj_demo/scans/${launched.body.scanId}`;
    // another tenant: its own project path, or ours
    expect(errorOf(await h.api("GET", scanPath, undefined, "sandbox-token-2"))).toEqual([404, "not_found"]);
    const cross = `/projects/prj_other/scans/${launched.body.scanId}`;
    expect(errorOf(await h.api("GET", cross, undefined, "sandbox-token-2"))).toEqual([404, "not_found"]);
    // a token restricted to another repository sees neither the scan nor the repository
    h.sb.state.addRepository({ id: "repo_b" });
    const restricted = h.sb.state.createToken({ scopes: ["read"], repositoryIds: ["repo_b"] });
    expect(errorOf(await h.api("GET", scanPath, undefined, restricted))).toEqual([404, "not_found"]);
    const repos = await h.api("GET", "/projects/prj_demo/repositories", undefined, restricted);
    expect(repos.body.items.map((r: { id: string }) => r.id)).toEqual(["repo_b"]);
    const scans = await h.api("GET", "/projects/prj_demo/scans", undefined, restricted);
    expect(scans.body.total).toBe(0);
    expect(
      errorOf(
        await h.api("GET", "/projects/prj_demo/repositories/repo_demo/guidance", undefined, restricted),
      ),
    ).toEqual([404, "not_found"]);
  });

  it("every error body is {error: {code, message}} JSON; unknown routes are 404", async () => {
    const r = await h.api("GET", "/nope");
    expect(r.body).toEqual({ error: { code: "not_found", message: expect.any(String) } });
    const bad = await fetch(`${h.sb.url}/projects/prj_demo/scans`, {
      method: "POST",
      headers: { Authorization: "Bearer sandbox-token", "Content-Type": "application/json" },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { code: "bad_request", message: expect.stringContaining("JSON") },
    });
  });
});
