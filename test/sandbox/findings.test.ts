import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REASON_CATALOG, RESOLUTION_STATUSES, type ReasonStatus } from "../../src/scanner/catalog.js";
import { boot, errorOf, type Harness } from "../support/sandbox-api.js";

let h: Harness;
let scanId: string;
beforeEach(async () => {
  h = await boot({ scenario: "demo" });
  scanId = (await h.launch({ creditBudget: 60 })).body.scanId;
  h.sb.state.completeNow(scanId);
});
afterEach(async () => {
  await h.sb.close();
});

const list = async (query = "") => (await h.api("GET", `/projects/prj_demo/findings${query}`)).body;
const firstId = async () => (await list("?limit=1")).items[0].id as string;
const resolve = (id: string, body: unknown) =>
  h.api("PATCH", `/projects/prj_demo/findings/${id}/resolution`, body);
const detail = async (id: string) => (await h.api("GET", `/projects/prj_demo/findings/${id}`)).body.finding;

describe("findings from the demo scenario", () => {
  it("creates the scenario's findings on completion, most severe first, with every location shape", async () => {
    const body = await list();
    expect(body.total).toBe(9);
    const sev = body.items.map((f: { severity: string }) => f.severity);
    expect(sev[0]).toBe("CRITICAL");
    expect(sev.at(-1)).toBe("INFO");
    expect(new Set(sev).size).toBe(5);
    const locations = body.items.map((f: { location: string }) => f.location);
    expect(locations).toEqual(expect.arrayContaining(["lib/legacy.js:40", "module Foo", "src/server.js"]));
    expect(body.items.every((f: { resolutionStatus: string }) => f.resolutionStatus === "NOT_STARTED")).toBe(
      true,
    );
    const ids = body.items.map((f: { id: string }) => f.id);
    expect(ids.every((id: string) => id.length >= 20)).toBe(true);
    const display = body.items
      .map((f: { displayId: number }) => f.displayId)
      .sort((a: number, b: number) => a - b);
    expect(display).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const scan = await h.api("GET", `/projects/prj_demo/scans/${scanId}`);
    expect(scan.body.scan.findingsSummary).toEqual({
      total: 9,
      bySeverity: { CRITICAL: 1, HIGH: 3, MEDIUM: 2, LOW: 2, INFO: 1 },
    });
  });

  it("a later scan of the same repository yields new ids marked RECURRING", async () => {
    const before = new Set((await list()).items.map((f: { id: string }) => f.id));
    const second = (await h.launch({ creditBudget: 60 })).body.scanId;
    h.sb.state.completeNow(second);
    const again = await list(`?scanId=${second}`);
    expect(again.total).toBe(9);
    for (const f of again.items) {
      expect(before.has(f.id)).toBe(false);
      expect(f.triageStatus).toBe("RECURRING");
    }
  });

  it("detail has description, notes and repo; label (prefixed or bare) resolves; conflict on shared suffix", async () => {
    const id = await firstId();
    const d = await detail(id);
    expect(d).toMatchObject({ id, scanId, repo: { owner: "acme", name: "demo" }, notes: [] });
    expect((await detail(`SC-${id.slice(-8)}`)).id).toBe(id);
    expect((await detail(`ZZ-${id.slice(-8)}`)).id).toBe(id);
    expect((await detail(id.slice(-8))).id).toBe(id);
    const twin = h.sb.state.makeLabelConflict(id);
    const r = await h.api("GET", `/projects/prj_demo/findings/SC-${id.slice(-8)}`);
    expect(errorOf(r)).toEqual([409, "conflict"]);
    expect((await detail(id)).id).toBe(id);
    expect((await detail(twin)).id).toBe(twin);
    expect(errorOf(await h.api("GET", "/projects/prj_demo/findings/SC-zzzzzzzz"))).toEqual([
      404,
      "not_found",
    ]);
  });

  it("notes carry the token as author; severity override changes the effective severity and null clears it", async () => {
    const id = await firstId();
    const n = await h.api("POST", `/projects/prj_demo/findings/${id}/notes`, { content: "Looking at it" });
    expect(n.body).toEqual({ noteId: expect.any(String), findingId: id });
    const d = await detail(id);
    expect(d.notes[0]).toMatchObject({ body: "Looking at it", author: { name: "sandbox" } });
    expect(d.notesCount).toBe(1);
    expect((await h.api("POST", `/projects/prj_demo/findings/${id}/notes`, { content: "" })).status).toBe(
      400,
    );
    const sev = await h.api("PATCH", `/projects/prj_demo/findings/${id}/severity`, { severity: "LOW" });
    expect(sev.body.severity).toBe("LOW");
    expect((await detail(id)).severity).toBe("LOW");
    expect((await list()).items[0].id).not.toBe(id);
    await h.api("PATCH", `/projects/prj_demo/findings/${id}/severity`, { severity: null });
    expect((await detail(id)).severity).toBe("CRITICAL");
    expect(
      errorOf(await h.api("PATCH", `/projects/prj_demo/findings/${id}/severity`, { severity: "BAD" })),
    ).toEqual([400, "bad_request"]);
  });
});

describe("resolution (spec rules 1-4 and the reason catalog)", () => {
  const statuses = Object.keys(REASON_CATALOG) as ReasonStatus[];

  for (const status of statuses) {
    it(`${status}: every valid code is recorded as a note; a code of another status is 400 with the list`, async () => {
      const id = await firstId();
      for (const code of REASON_CATALOG[status]) {
        const r = await resolve(id, { resolutionStatus: status, reason: code });
        expect(r.status).toBe(200);
        expect(r.body.resolutionStatus).toBe(status);
        const notes = (await detail(id)).notes;
        expect(notes.at(-1).body).toContain(code);
      }
      const other = statuses.find((s) => s !== status) ?? "RESOLVED";
      const wrong = REASON_CATALOG[other][0];
      const bad = await resolve(id, { resolutionStatus: status, reason: wrong });
      expect(errorOf(bad)).toEqual([400, "bad_request"]);
      for (const code of REASON_CATALOG[status]) expect(bad.body.error.message).toContain(code);
    });
  }

  it("note wins over reason (even an invalid reason); existingNoteId reuses a note", async () => {
    const id = await firstId();
    const r = await resolve(id, {
      resolutionStatus: "WONT_FIX",
      note: { content: "Accepted" },
      reason: "fixed_in_code",
    });
    expect(r.status).toBe(200);
    const notes = (await detail(id)).notes;
    expect(notes.map((n: { body: string }) => n.body)).toEqual(["Accepted"]);
    const again = await resolve(id, { resolutionStatus: "RESOLVED", note: { existingNoteId: notes[0].id } });
    expect(again.body.noteId).toBe(notes[0].id);
    expect((await detail(id)).notes).toHaveLength(1);
    expect(
      errorOf(await resolve(id, { resolutionStatus: "RESOLVED", note: { existingNoteId: "nope" } })),
    ).toEqual([404, "not_found"]);
  });

  it("note and reason are ignored for NOT_STARTED and IN_PROGRESS", async () => {
    const id = await firstId();
    for (const status of ["NOT_STARTED", "IN_PROGRESS"]) {
      const r = await resolve(id, { resolutionStatus: status, reason: "not_a_code", note: { content: "x" } });
      expect(r.status).toBe(200);
      expect(r.body.resolutionStatus).toBe(status);
    }
    expect((await detail(id)).notes).toHaveLength(0);
  });

  it("every resolution state is accepted; an unknown one is 400", async () => {
    const id = await firstId();
    for (const s of RESOLUTION_STATUSES)
      expect((await resolve(id, { resolutionStatus: s })).status).toBe(200);
    expect(errorOf(await resolve(id, { resolutionStatus: "DONE" }))).toEqual([400, "bad_request"]);
  });

  it("publish a finding: password only when asked; a foreign noteId is 400", async () => {
    const id = await firstId();
    const p = await h.api("POST", `/projects/prj_demo/findings/${id}/publish`, {});
    expect(p.body.accessPassword).toBeNull();
    const q = await h.api("POST", `/projects/prj_demo/findings/${id}/publish`, { withPassword: true });
    expect(typeof q.body.accessPassword).toBe("string");
    expect(
      errorOf(await h.api("POST", `/projects/prj_demo/findings/${id}/publish`, { noteId: "x" })),
    ).toEqual([400, "bad_request"]);
  });
});
