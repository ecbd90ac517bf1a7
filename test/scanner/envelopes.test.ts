import { describe, expect, it } from "vitest";
import {
  normalizeAuditAreaList,
  normalizeCreatedAuditArea,
  normalizeGuidance,
  guidanceRevision,
  normalizeRepositories,
} from "../../src/scanner/index.js";

const repos = [
  { id: "repo_a", readiness: "ready", name: "a", active: true },
  { id: "repo_b", readiness: "analyzing" },
];

describe("normalizeRepositories", () => {
  it.each([
    ["bare array", repos],
    ["{items}", { items: repos, total: 2 }],
    ["{repositories}", { repositories: repos, page: 1 }],
    ["{data}", { data: repos }],
    ["{data: {repositories}}", { data: { repositories: repos } }],
  ])("finds the repositories in %s", (_name, body) => {
    const r = normalizeRepositories(body);
    expect(r).toEqual({ ok: true, value: repos });
  });

  it("keeps unknown fields of a repository", () => {
    const r = normalizeRepositories({ repositories: repos });
    expect(r.ok && r.value[0]).toMatchObject({ name: "a", active: true });
  });

  it("picks the array whose items carry id and readiness, not another array", () => {
    const r = normalizeRepositories({ warnings: [{ id: "w", text: "x" }], repositories: repos });
    expect(r.ok && r.value.map((x) => x.id)).toEqual(["repo_a", "repo_b"]);
  });

  it("takes a lone empty array as the empty list", () => {
    expect(normalizeRepositories({ repositories: [] })).toEqual({ ok: true, value: [] });
  });

  it("refuses a body without a repository array, naming the problem", () => {
    const r = normalizeRepositories({ message: "hi" });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues[0]!.message).toMatch(/no array of repositories/);
  });

  it("refuses two matching arrays as ambiguous", () => {
    const r = normalizeRepositories({ a: repos, b: repos });
    expect(!r.ok && r.issues[0]!.message).toMatch(/ambiguous/);
  });

  it("names the bad item of the only array", () => {
    const r = normalizeRepositories({ items: [repos[0], { id: "x" }] });
    expect(!r.ok && r.issues[0]!.path).toBe("items[1]");
  });

  it("refuses a scalar body", () => {
    expect(normalizeRepositories("x").ok).toBe(false);
  });
});

describe("normalizeAuditAreaList", () => {
  it("reads envelope A: {areas, branch, hasStoredMap} with inCurrentMap/fileCount/lineCount", () => {
    const body = {
      repositoryId: "repo_a",
      branch: "main",
      hasStoredMap: true,
      areas: [
        {
          key: "auth",
          source: "discovered",
          name: "Auth",
          description: "login",
          inCurrentMap: true,
          fileCount: 12,
          lineCount: 900,
        },
        {
          key: "old",
          source: "discovered",
          name: "Old",
          description: "gone",
          inCurrentMap: false,
          fileCount: null,
          lineCount: null,
        },
        {
          key: "mine",
          source: "custom",
          name: "Mine",
          description: "custom one",
          inCurrentMap: false,
          fileCount: null,
          lineCount: null,
        },
      ],
    };
    const r = normalizeAuditAreaList(body);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.branch).toBe("main");
    expect(r.value.hasMap).toBe(true);
    expect(r.value.areas.map(({ raw: _raw, ...a }) => a)).toEqual([
      {
        key: "auth",
        source: "discovered",
        name: "Auth",
        description: "login",
        inCurrentMap: true,
        files: 12,
        lines: 900,
      },
      {
        key: "old",
        source: "discovered",
        name: "Old",
        description: "gone",
        inCurrentMap: false,
        files: null,
        lines: null,
      },
      {
        key: "mine",
        source: "custom",
        name: "Mine",
        description: "custom one",
        inCurrentMap: false,
        files: null,
        lines: null,
      },
    ]);
    expect(r.value.areas[0]!.raw).toEqual(body.areas[0]);
    expect(r.value.raw).toBe(body);
  });

  it("reads envelope B: {data: {items, sizesBranch, mapAvailable}} with namedByMap/files/lines", () => {
    const body = {
      data: {
        sizesBranch: "develop",
        mapAvailable: false,
        items: [{ key: "api", source: "custom", namedByMap: false, files: null, lines: null }],
      },
    };
    const r = normalizeAuditAreaList(body);
    expect(r).toMatchObject({
      ok: true,
      value: {
        branch: "develop",
        hasMap: false,
        areas: [{ key: "api", source: "custom", inCurrentMap: false, files: null, lines: null }],
      },
    });
  });

  it("reads a bare array (no branch, no has-map)", () => {
    const r = normalizeAuditAreaList([
      { key: "k", source: "discovered", current: true, totalFiles: 3, totalLines: 40 },
    ]);
    expect(r.ok && r.value).toMatchObject({ areas: [{ key: "k", inCurrentMap: true, files: 3, lines: 40 }] });
    expect(r.ok && r.value.branch).toBeUndefined();
    expect(r.ok && r.value.hasMap).toBeUndefined();
  });

  it("reads an empty list with its branch", () => {
    const r = normalizeAuditAreaList({ auditAreas: [], defaultBranch: "main", branchHasMap: false });
    expect(r).toMatchObject({ ok: true, value: { areas: [], branch: "main", hasMap: false } });
  });

  it("refuses an unknown source with the item path", () => {
    const r = normalizeAuditAreaList({
      areas: [
        { key: "k", source: "discovered" },
        { key: "x", source: "magic" },
      ],
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues[0]!.path).toBe("areas[1].source");
  });

  it("refuses a negative file count", () => {
    const r = normalizeAuditAreaList({ areas: [{ key: "k", source: "custom", fileCount: -1 }] });
    expect(!r.ok && r.issues[0]).toEqual({ path: "areas[0].fileCount", message: "expected a count ≥ 0" });
  });
});

describe("normalizeCreatedAuditArea", () => {
  it("finds the key at the top level or on a nested area", () => {
    expect(normalizeCreatedAuditArea({ key: "billing", source: "custom" })).toMatchObject({
      ok: true,
      value: { key: "billing" },
    });
    expect(normalizeCreatedAuditArea({ area: { key: "billing" } })).toMatchObject({
      ok: true,
      value: { key: "billing" },
    });
  });
  it("refuses a body without a key", () => {
    expect(normalizeCreatedAuditArea({ ok: true }).ok).toBe(false);
  });
});

describe("normalizeGuidance", () => {
  it.each([
    ["{content}", { repositoryId: "r", content: "be strict", revisionId: "rev1" }, "be strict"],
    ["{guidance}", { repositoryId: "r", guidance: "be strict" }, "be strict"],
    ["{guidanceText: null}", { repositoryId: "r", guidanceText: null }, null],
    [
      "{guidance: {content}}",
      { guidance: { content: "nested", updatedAt: "2025-01-01T00:00:00Z" } },
      "nested",
    ],
    ["{data: {text}}", { data: { text: "t" } }, "t"],
    ["bare string", "raw", "raw"],
  ])("reads %s", (_n, body, expected) => {
    const r = normalizeGuidance(body);
    expect(r).toEqual({ ok: true, value: { content: expected, raw: body } });
  });

  it("refuses a body with no content field instead of reading it as 'no guidance'", () => {
    const r = normalizeGuidance({ repositoryId: "r", revisionId: "x" });
    expect(r.ok).toBe(false);
  });
});

describe("guidanceRevision", () => {
  it("reads the latest revision id and date by name, at the top or one level down; {} when absent", () => {
    expect(
      guidanceRevision({ content: "x", revisionId: "rev_1", updatedAt: "2026-01-02T03:04:05Z" }),
    ).toEqual({ revisionId: "rev_1", updatedAt: "2026-01-02T03:04:05Z" });
    expect(guidanceRevision({ guidance: { content: "x", latestRevision: { id: "r9" } } })).toEqual({
      revisionId: "r9",
    });
    expect(guidanceRevision({ content: "x", revisionId: null, updatedAt: null })).toEqual({});
    expect(guidanceRevision("bare")).toEqual({});
  });
});
