/**
 * `docs/architecture.md` matches the tree (issue 9): every folder of `src/` and `dev/` has a row in its
 * table, and every file or folder the document names exists.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

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
      /`((?:jobs|runtime|handlers|commands|triage|report|policy|render|domain|github|scanner|tenants|config|codescanning)\/[\w./-]+)`/g,
    ))
      named.add(`src/${m[1]!}`);
    expect(named.size).toBeGreaterThan(30);
    expect([...named].filter((p) => !existsSync(join(ROOT, p.replace(/\/$/, ""))))).toEqual([]);
  });
});
