import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REDIS_KEYS, redisKeyRegExp } from "../../src/runtime/names.js";

const SRC = resolve(import.meta.dirname, "../../src");
const sources = (readdirSync(SRC, { recursive: true }) as string[])
  .filter((f) => f.endsWith(".ts"))
  .map((f) => readFileSync(join(SRC, f), "utf8"));
const all = sources.join("\n");

/** The word that names a key kind: a pattern's first literal segment (`fairq` for `<queue>:fairq:…`). */
const kindWord = (pattern: string) => pattern.split(":").find((p) => !p.startsWith("<"))!;

/**
 * The key kinds the source writes, found where keys are made: `PullStateStore`'s `#k("<kind>", …)`,
 * `putJson`/`getJson` with a kind (a string or a `*_KIND` constant), and keys spelled out after a prefix
 * (`` `${…prefix}:<kind>:…` ``, `…:fairq:…`).
 */
function kindsInSource(): Set<string> {
  const constants = new Map(
    [...all.matchAll(/(?:export )?const (\w+_KIND) = "([\w-]+)"/g)].map((m) => [m[1]!, m[2]!]),
  );
  const kinds = new Set<string>();
  for (const m of all.matchAll(/#k\(\s*"([\w-]+)"/g)) kinds.add(m[1]!);
  for (const m of all.matchAll(/(?:putJson|getJson)(?:<[^>]*>)?\(\s*(?:"([\w-]+)"|(\w+_KIND))/g))
    kinds.add(m[1] ?? constants.get(m[2]!) ?? `unresolved ${m[2]}`);
  for (const m of all.matchAll(/\$\{[^}]*prefix[^}]*\}:([a-z][\w-]*):/g)) kinds.add(m[1]!);
  for (const m of all.matchAll(/\}:([a-z][\w-]*):\$\{/g)) if (m[1] === "fairq") kinds.add(m[1]);
  return kinds;
}

describe("REDIS_KEYS", () => {
  it("lists every key kind the source writes (a new kind is listed, documented and given an end)", () => {
    const listed = new Set(Object.values(REDIS_KEYS).map((k) => kindWord(k.pattern)));
    const found = kindsInSource();
    expect(found.size).toBeGreaterThanOrEqual(15);
    expect([...found].filter((k) => !listed.has(k))).toEqual([]);
  });

  it("matches the keys it names, and only those", () => {
    const re = (kind: keyof typeof REDIS_KEYS) => redisKeyRegExp("{dw}", REDIS_KEYS[kind].pattern);
    expect(re("pull").test("{dw}:pr:octo/app#12")).toBe(true);
    expect(re("pull").test("{dw}:report:octo/app#12")).toBe(false);
    expect(re("laneQueue").test("{dw}:lane:7:q")).toBe(true);
    expect(re("laneQueue").test("{dw}:lane:7:alive")).toBe(false);
    expect(re("fairPending").test("{dw}:diffward-events:fairq:7")).toBe(true);
    expect(re("pull").test("{other}:pr:octo/app#12")).toBe(false);
  });
});
