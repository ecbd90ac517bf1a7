import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  classifyFindings,
  fingerprint,
  fingerprintPath,
  matchFindings,
  normalizeTitle,
  legacyFingerprint,
  shapeKey,
} from "../../src/domain/identity.js";
import { planReport } from "../../src/report/decide/plan.js";
import { finding } from "../support/finding.js";
import { propertyOptions } from "../support/property.js";

describe("normalizeTitle", () => {
  it.each([
    ["SQL injection in `getUser()`!", "sql injection in `getuser()`!"],
    ["Leak at line 42", "leak at line 42"],
    ["SQL Injection   in\tgetUser ", "sql injection in getuser"],
    ["Ｆｕｌｌｗｉｄｔｈ", "fullwidth"],
  ])("%j → %j", (title, expected) => {
    expect(normalizeTitle(title)).toBe(expected);
  });
});

describe("fingerprint", () => {
  it("is sha256 of v2|path|category|normalized title|start line", () => {
    const expected = createHash("sha256")
      .update("v2|src/db/users.ts|injection|sql injection in getuser|L42")
      .digest("hex");
    expect(fingerprint(finding())).toBe(expected);
    expect(fingerprint(finding())).toMatch(/^[0-9a-f]{64}$/);
    const noLine = createHash("sha256")
      .update("v2|src/db/users.ts|injection|sql injection in getuser|")
      .digest("hex");
    expect(fingerprint(finding({ location: "src/db/users.ts" }))).toBe(noLine);
  });

  it("ignores location spelling and whitespace or case in the title", () => {
    const a = finding({ location: "src/db/users.ts:42", title: "SQL injection in getUser" });
    const b = finding({ location: "./src/db/users.ts#L42-L50", title: "  SQL Injection  in getUser" });
    expect(fingerprint(a)).toBe(fingerprint(b));
  });

  // the first rule dropped digits and quotes, so these two were one finding
  it("keeps two findings of the same shape apart (the AWS-key pair)", () => {
    const a = finding({
      location: "config/app.ts:8",
      category: "secrets",
      title: "Hard-coded AWS key on line 8",
    });
    const b = finding({
      location: "config/app.ts:240",
      category: "secrets",
      title: "Hard-coded 'AWS' key on line 240",
    });
    expect(fingerprint(a)).not.toBe(fingerprint(b));
    expect(shapeKey(a)).not.toBe(shapeKey(b));
    // the same title at another line is another fingerprint too (but the same shape)
    const c = finding({ ...a, location: "config/app.ts:300" });
    expect(fingerprint(c)).not.toBe(fingerprint(a));
    expect(shapeKey(c)).toBe(shapeKey(a));
  });

  it("differs by path, category, title or line", () => {
    const base = fingerprint(finding());
    expect(fingerprint(finding({ location: "src/db/orders.ts:42" }))).not.toBe(base);
    expect(fingerprint(finding({ location: "src/db/users.ts:43" }))).not.toBe(base);
    expect(fingerprint(finding({ category: "authz" }))).not.toBe(base);
    expect(fingerprint(finding({ title: "SQL injection in getOrder" }))).not.toBe(base);
    expect(fingerprint(finding({ title: "SQL injection in getUser2" }))).not.toBe(base);
  });

  it("uses the raw location when it cannot be parsed", () => {
    expect(fingerprintPath("  module Foo ")).toBe("module Foo");
  });

  it("never equals a fingerprint of the first rule (stored in old markers and decisions)", () => {
    const f = finding();
    const v1 = createHash("sha256")
      .update("src/db/users.ts|injection|sql injection in getuser")
      .digest("hex");
    expect(fingerprint(f)).not.toBe(v1);
    const pairs = matchFindings(
      [{ id: "old", fingerprint: v1 }],
      [{ ...f, id: "new", triageStatus: "RECURRING" }],
    );
    expect(pairs).toEqual([]);
  });

  it("a comment posted with a version 1 marker is still found: refreshed, not posted twice", () => {
    const f = finding({ id: "new", triageStatus: "NEW" });
    const v1 = createHash("sha256")
      .update("src/db/users.ts|injection|sql injection in getuser")
      .digest("hex");
    expect(legacyFingerprint(f)).toBe(v1);
    expect(matchFindings([{ id: "old", fingerprint: v1, legacy: "comment" }], [f]).map((m) => m.by)).toEqual([
      "fingerprint",
    ]);
    // an entry without the legacy flag never pairs by the first rule
    expect(matchFindings([{ id: "old", fingerprint: v1 }], [f])).toEqual([]);
    // a decision stored under the first rule pairs only with a finding the service recognises
    const stored = { id: "old", fingerprint: v1, legacy: "recognised" as const };
    expect(matchFindings([stored], [f])).toEqual([]);
    expect(matchFindings([stored], [{ ...f, triageStatus: "RECURRING" }]).map((m) => m.by)).toEqual([
      "fingerprint",
    ]);
    const plan = planReport({
      findings: [f],
      files: [{ filename: "src/db/users.ts", patch: "@@ -40,0 +40,5 @@\n+a\n+b\n+c\n+d\n+e" }],
      posted: [{ commentId: 7, findingId: "old", fingerprint: v1, version: 1 }],
      config: { failOn: "high", disclosure: "full", maxInline: 10, minSeverity: "low" },
    });
    expect(plan.post).toEqual([]);
    expect(plan.update.map((u) => u.existingCommentId)).toEqual([7]);
  });

  it("is stable and never throws", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (location, category, title) => {
        const f = { location, category, title };
        expect(fingerprint(f)).toBe(fingerprint({ ...f }));
        expect(fingerprint(f)).toMatch(/^[0-9a-f]{64}$/);
        expect(shapeKey(f)).toMatch(/^[0-9a-f]{64}$/);
      }),
      propertyOptions(),
    );
  });
});

describe("matchFindings", () => {
  it("matches by id first, then by fingerprint, one to one", () => {
    const prev = [
      finding({ id: "A", title: "XSS in view" }),
      finding({ id: "B", title: "SQL injection in getUser" }),
      { id: "C", fingerprint: fingerprint(finding({ title: "Open redirect" })) },
    ];
    const cur = [
      finding({ id: "A2", title: "SQL  Injection in getUser" }),
      finding({ id: "A", title: "completely renamed" }),
      finding({ id: "Z", title: "open redirect" }),
      finding({ id: "Y", title: "Brand new" }),
    ];
    const pairs = matchFindings(prev, cur);
    expect(pairs.map((p) => [p.previous.id, p.current.id, p.by])).toEqual([
      ["B", "A2", "fingerprint"],
      ["A", "A", "id"],
      ["C", "Z", "fingerprint"],
    ]);
    const split = classifyFindings(prev, cur);
    expect(split.added.map((f) => f.id)).toEqual(["Y"]);
    expect(split.gone).toEqual([]);
  });

  it("pairs each earlier finding at most once when fingerprints repeat", () => {
    const prev = [finding({ id: "p1" }), finding({ id: "p2" })];
    const cur = [finding({ id: "c1" }), finding({ id: "c2" }), finding({ id: "c3" })];
    const split = classifyFindings(prev, cur);
    expect(split.matched.map((m) => `${m.previous.id}>${m.current.id}`)).toEqual(["p1>c1", "p2>c2"]);
    expect(split.added.map((f) => f.id)).toEqual(["c3"]);
  });

  it("pairs a moved finding by shape only when the service recognises it (RECURRING/DUPLICATE)", () => {
    const prev = [finding({ id: "old", location: "src/db/users.ts:42" })];
    const moved = finding({ id: "new", location: "src/db/users.ts:57", triageStatus: "RECURRING" });
    expect(matchFindings(prev, [moved]).map((m) => m.by)).toEqual(["recurring"]);
    expect(matchFindings(prev, [{ ...moved, triageStatus: "DUPLICATE" }]).map((m) => m.by)).toEqual([
      "recurring",
    ]);
    // the service says NEW: another finding of the same shape, not the one decided on
    expect(matchFindings(prev, [{ ...moved, triageStatus: "NEW" }])).toEqual([]);
    // stored entries carry their shape (no fields)
    const stored = [{ id: "old", fingerprint: fingerprint(prev[0]!), shape: shapeKey(prev[0]!) }];
    expect(matchFindings(stored, [moved]).map((m) => m.by)).toEqual(["recurring"]);
    // entries written before shapes existed never pair by shape
    expect(matchFindings([{ id: "old", fingerprint: "0".repeat(64) }], [moved])).toEqual([]);
  });

  it("pairs nothing by shape when the shape is ambiguous", () => {
    const prev = [finding({ id: "p1", location: "a/b.ts:1" }), finding({ id: "p2", location: "a/b.ts:9" })];
    const cur = [finding({ id: "c1", location: "a/b.ts:20", triageStatus: "RECURRING" })];
    expect(matchFindings(prev, cur)).toEqual([]);
    const two = [
      finding({ id: "c1", location: "a/b.ts:20", triageStatus: "RECURRING" }),
      finding({ id: "c2", location: "a/b.ts:30", triageStatus: "RECURRING" }),
    ];
    expect(matchFindings([prev[0]!], two)).toEqual([]);
  });

  it("reports earlier findings that disappeared", () => {
    const split = classifyFindings(
      [finding({ id: "old", title: "Gone" })],
      [finding({ id: "new", title: "Other" })],
    );
    expect(split.gone.map((f) => f.id)).toEqual(["old"]);
    expect(split.matched).toEqual([]);
  });

  it("never pairs a finding twice (property)", () => {
    const item = fc.record({
      id: fc.constantFrom("a", "b", "c", "d"),
      title: fc.constantFrom("X", "x!", "Y"),
      location: fc.constantFrom("a/b.ts:1", "a/b.ts:9", "c.py"),
      category: fc.constantFrom("k1", "k2"),
      triageStatus: fc.constantFrom("NEW", "RECURRING"),
    });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), fc.array(item, { maxLength: 8 }), (prev, cur) => {
        const split = classifyFindings(prev, cur);
        expect(new Set(split.matched.map((m) => m.previous)).size).toBe(split.matched.length);
        expect(new Set(split.matched.map((m) => m.current)).size).toBe(split.matched.length);
        expect(split.matched.length + split.added.length).toBe(cur.length);
        expect(split.matched.length + split.gone.length).toBe(prev.length);
        for (const m of split.matched) {
          expect(
            m.previous.id === m.current.id ||
              fingerprint(m.previous) === fingerprint(m.current) ||
              (m.by === "recurring" && shapeKey(m.previous) === shapeKey(m.current)),
          ).toBe(true);
        }
      }),
      propertyOptions(),
    );
  });
});
