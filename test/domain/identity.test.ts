import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  classifyFindings,
  fingerprint,
  fingerprintPath,
  matchFindings,
  normalizeTitle,
} from "../../src/domain/identity.js";
import { finding } from "./fixtures.js";

describe("normalizeTitle", () => {
  it.each([
    ["SQL injection in `getUser()`!", "sql injection in getuser"],
    ["Leak at line 42", "leak at line"],
    ["SQL Injection in getUser", "sql injection in getuser"],
    ["User’s “token” leaked!!", "users token leaked"],
    ["  Path-traversal\tvia  ../ ", "path traversal via"],
    ["CVE-2024-1234: XSS", "cve xss"],
  ])("%j → %j", (title, expected) => {
    expect(normalizeTitle(title)).toBe(expected);
  });
});

describe("fingerprint", () => {
  it("is sha256 of path|category|normalized title", () => {
    const expected = createHash("sha256")
      .update("src/db/users.ts|injection|sql injection in getuser")
      .digest("hex");
    expect(fingerprint(finding())).toBe(expected);
    expect(fingerprint(finding())).toMatch(/^[0-9a-f]{64}$/);
  });

  it("ignores line moves and cosmetic title edits", () => {
    const a = finding({ location: "src/db/users.ts:42", title: "SQL injection in getUser" });
    const b = finding({ location: "./src/db/users.ts#L80-L90", title: "SQL Injection in `getUser()`." });
    expect(fingerprint(a)).toBe(fingerprint(b));
  });

  it("differs by path, category or words of the title", () => {
    const base = fingerprint(finding());
    expect(fingerprint(finding({ location: "src/db/orders.ts:42" }))).not.toBe(base);
    expect(fingerprint(finding({ category: "authz" }))).not.toBe(base);
    expect(fingerprint(finding({ title: "SQL injection in getOrder" }))).not.toBe(base);
  });

  it("uses the raw location when it cannot be parsed", () => {
    expect(fingerprintPath("  module Foo ")).toBe("module Foo");
  });

  it("is stable and never throws", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (location, category, title) => {
        const f = { location, category, title };
        expect(fingerprint(f)).toBe(fingerprint({ ...f }));
        expect(fingerprint(f)).toMatch(/^[0-9a-f]{64}$/);
      }),
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
      finding({ id: "A2", title: "SQL injection in getUser()", location: "src/db/users.ts:99" }),
      finding({ id: "A", title: "completely renamed" }),
      finding({ id: "Z", title: "Open redirect!" }),
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
    });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), fc.array(item, { maxLength: 8 }), (prev, cur) => {
        const split = classifyFindings(prev, cur);
        expect(new Set(split.matched.map((m) => m.previous)).size).toBe(split.matched.length);
        expect(new Set(split.matched.map((m) => m.current)).size).toBe(split.matched.length);
        expect(split.matched.length + split.added.length).toBe(cur.length);
        expect(split.matched.length + split.gone.length).toBe(prev.length);
        for (const m of split.matched) {
          expect(m.previous.id === m.current.id || fingerprint(m.previous) === fingerprint(m.current)).toBe(
            true,
          );
        }
      }),
    );
  });
});
