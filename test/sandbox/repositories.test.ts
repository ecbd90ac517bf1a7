import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boot, errorOf, type Harness } from "../support/sandbox-api.js";

let h: Harness;
beforeEach(async () => {
  h = await boot();
});
afterEach(async () => {
  await h.sb.close();
});

const G = "/projects/prj_demo/repositories/repo_demo/guidance";
const A = "/projects/prj_demo/repositories/repo_demo/audit-areas";

describe("guidance (spec 'PUT …/guidance')", () => {
  it("writes record revisions; same content is an unchanged no-op with revisionId null", async () => {
    const w = await h.api("PUT", G, { content: "Threat model: internet-facing" });
    expect(w.body).toEqual({ repositoryId: "repo_demo", revisionId: expect.any(String), unchanged: false });
    const again = await h.api("PUT", G, { content: "Threat model: internet-facing" });
    expect(again.body).toEqual({ repositoryId: "repo_demo", revisionId: null, unchanged: true });
    const read = await h.api("GET", G);
    expect(read.body).toMatchObject({
      content: "Threat model: internet-facing",
      revisionId: w.body.revisionId,
    });
    const cleared = await h.api("PUT", G, { content: null });
    expect(cleared.body.unchanged).toBe(false);
    expect(h.sb.state.repo("repo_demo").guidanceRevisions).toHaveLength(2);
  });

  it("compare-and-set: 409 conflict on mismatch, success on match, null means currently cleared", async () => {
    expect((await h.api("PUT", G, { content: "v1", expectedContent: null })).status).toBe(200);
    const stale = await h.api("PUT", G, { content: "v2", expectedContent: null });
    expect(errorOf(stale)).toEqual([409, "conflict"]);
    expect((await h.api("GET", G)).body.content).toBe("v1");
    expect((await h.api("PUT", G, { content: "v2", expectedContent: "v1" })).body.unchanged).toBe(false);
    expect((await h.api("PUT", G, { content: "v3" })).status).toBe(200); // last writer wins without CAS
  });

  it("refuses guidance over 100,000 characters with 400", async () => {
    expect(errorOf(await h.api("PUT", G, { content: "x".repeat(100_001) }))).toEqual([400, "bad_request"]);
    expect((await h.api("PUT", G, { content: "x".repeat(100_000) })).status).toBe(200);
    expect(errorOf(await h.api("PUT", G, {}))).toEqual([400, "bad_request"]);
  });
});

describe("audit areas", () => {
  it("lists map order first, then areas the map no longer names, with branch and hasMap", async () => {
    const r = await h.api("GET", A);
    expect(r.body.branch).toBe("main");
    expect(r.body.hasMap).toBe(true);
    expect(r.body.areas.map((a: { key: string }) => a.key)).toEqual([
      "http-api",
      "authentication",
      "data-access",
      "legacy-admin",
    ]);
    expect(r.body.areas[3]).toMatchObject({
      source: "discovered",
      inCurrentMap: false,
      files: null,
      lines: null,
    });
    expect(r.body.areas[0]).toMatchObject({ inCurrentMap: true, files: 4, lines: 610 });
    const dev = await h.api("GET", `${A}?branch=develop`);
    expect(dev.body).toMatchObject({ branch: "develop", hasMap: false });
    expect(dev.body.areas.every((a: { inCurrentMap: boolean }) => !a.inCurrentMap)).toBe(true);
  });

  it("creates custom areas (usable at launch), deletes them, and refuses deleting a discovered one with 409", async () => {
    const c = await h.api("POST", A, { name: "Billing Engine", description: "Invoices and payments" });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ key: "billing-engine", source: "custom" });
    const dup = await h.api("POST", A, { name: "Billing Engine", description: "again" });
    expect(dup.body.key).toBe("billing-engine-2");
    const launch = await h.launch({ creditBudget: 60, auditAreaKeys: ["billing-engine"] });
    expect(launch.status).toBe(202);
    expect(errorOf(await h.api("DELETE", `${A}/authentication`))).toEqual([409, "conflict"]);
    const del = await h.api("DELETE", `${A}/billing-engine`);
    expect(del.body).toEqual({ repositoryId: "repo_demo", key: "billing-engine", deleted: true });
    expect(errorOf(await h.api("DELETE", `${A}/billing-engine`))).toEqual([404, "not_found"]);
    expect(errorOf(await h.api("POST", A, { name: "", description: "x" }))).toEqual([400, "bad_request"]);
  });
});
