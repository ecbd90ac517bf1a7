/**
 * `docs/architecture.md` matches the tree: every folder of `src/` and `dev/` has a row in its
 * table, every file or folder the document names exists, and its "Redis keys" table lists exactly the key
 * kinds of `REDIS_KEYS` (src/runtime/names.ts), each with its prefix.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REDIS_KEYS } from "../../src/runtime/names.js";

const ROOT = resolve(import.meta.dirname, "../..");
const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
const tableRows = doc.split("\n").filter((l) => l.startsWith("| `"));
const folders = (dir: string) =>
  readdirSync(join(ROOT, dir)).filter((n) => statSync(join(ROOT, dir, n)).isDirectory());

describe("docs/architecture.md", () => {
  it("has a table row for every folder of src/ and dev/", () => {
    const firstCells = tableRows.map((r) => r.split("|")[1]!);
    const missing = [
      ...folders("src").map((f) => `src/${f}/`),
      ...folders("dev").map((f) => `dev/${f}/`),
    ].filter((f) => !firstCells.some((c) => c.includes(`\`${f}\``)));
    expect(missing).toEqual([]);
  });

  it("names only paths that exist", () => {
    const named = new Set<string>();
    for (const m of doc.matchAll(/`((?:src|dev|test|docs)\/[\w./-]+)`/g)) named.add(m[1]!);
    // paths written relative to src/ in the walkthroughs (`jobs/launch.ts`)
    for (const m of doc.matchAll(
      /`((?:jobs|job-kit|workers|runtime|handlers|commands|triage|report|policy|render|domain|github|scanner|tenants|config|code-scanning|checks|org-page|merge-queue|scan|recovery|stores|job-catalogue|web|baseline)\/[\w./-]+)`/g,
    ))
      named.add(`src/${m[1]!}`);
    expect(named.size).toBeGreaterThan(30);
    expect([...named].filter((p) => !existsSync(join(ROOT, p.replace(/\/$/, ""))))).toEqual([]);
  });

  describe("the Redis keys table", () => {
    const start = doc.indexOf("## Redis keys");
    const end = doc.indexOf("\n## ", start + 1);
    const rows = doc
      .slice(start, end)
      .split("\n")
      .filter((l) => l.startsWith("| `"))
      .map((l) => l.split("|").map((c) => c.trim()));
    /** `pattern prefix`, from the first two cells of each row */
    const documented = rows.map((r) => `${r[1]!.replace(/^`|`$/g, "")} ${r[2]}`);
    const listed = Object.values(REDIS_KEYS).map((k) => `${k.pattern} ${k.prefix}`);

    it("has a row, with its prefix, for every key pattern of REDIS_KEYS", () => {
      expect(start).toBeGreaterThan(0);
      expect(listed.filter((k) => !documented.includes(k))).toEqual([]);
    });

    it("lists no key pattern REDIS_KEYS does not have", () => {
      expect(documented.filter((k) => !listed.includes(k))).toEqual([]);
    });

    it("gives each key an owner that exists and an end", () => {
      for (const r of rows) {
        expect(r[3], r[1]).toMatch(/`(?:src\/)?[\w./-]+\.ts`/);
        expect(r[5], r[1]).toMatch(/TTL|deleted|as `q`/);
      }
    });
  });
});
