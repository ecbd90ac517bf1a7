import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  CONFIG_SCHEMA_PATH,
  buildConfigJsonSchema,
  listConfigFields,
  renderConfigReference,
} from "../../src/config/json-schema.js";
import { RepoConfig, parseRepoConfig } from "../../src/config/repo-config.js";
import { ENV_EXAMPLE_PATH, ENV_VARIABLES, ProcessEnv } from "../../src/config/env.js";
import { renderEnvExample, withEnvReference } from "../../src/config/env-docs.js";
import { propertyOptions } from "../support/property.js";

const root = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");

/** Dotted leaf paths of the zod schema, walked independently of the JSON Schema. */
/** True when a field is a list (under its optional/default wrappers). */
function unwrapsList(field: unknown): boolean {
  let cur = field as { def?: { type?: string }; unwrap?: () => unknown } | undefined;
  while (cur?.def?.type !== "array" && typeof cur?.unwrap === "function") cur = cur.unwrap() as typeof cur;
  return cur?.def?.type === "array";
}

function zodLeafPaths(): string[] {
  const out: string[] = [];
  const unwrap = (s: unknown): unknown => {
    let cur = s;
    while (
      cur &&
      typeof cur === "object" &&
      "unwrap" in cur &&
      typeof (cur as { unwrap: unknown }).unwrap === "function"
    )
      cur = (cur as { unwrap(): unknown }).unwrap();
    return cur;
  };
  const walk = (shape: Record<string, unknown>, prefix: string) => {
    for (const [key, field] of Object.entries(shape)) {
      const inner = unwrap(field) as { shape?: Record<string, unknown> };
      // a list of mappings: the list, then each field of an entry as `list[].field`
      const isList = unwrapsList(field);
      if (inner.shape && isList) {
        out.push(`${prefix}${key}`);
        walk(inner.shape, `${prefix}${key}[].`);
      } else if (inner.shape) walk(inner.shape, `${prefix}${key}.`);
      else out.push(`${prefix}${key}`);
    }
  };
  walk(RepoConfig.shape, "");
  return out;
}

describe("JSON Schema of .github/diffward.yml", () => {
  it("the committed schema equals a fresh generation (run `npm run schema:config`)", () => {
    expect(JSON.parse(read(CONFIG_SCHEMA_PATH))).toEqual(buildConfigJsonSchema());
  });

  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(read(CONFIG_SCHEMA_PATH)));

  it("accepts valid configs and rejects typos, like the zod schema", () => {
    expect(validate({ repositoryId: "r" })).toBe(true);
    expect(validate({ repositoryId: "r", comments: { maxInline: 5 }, failOn: "none" })).toBe(true);
    expect(validate({ repositoryId: "r", failon: "high" })).toBe(false);
    expect(validate({ repositoryId: "r", comments: { maxinline: 5 } })).toBe(false);
    expect(validate({ failOn: "high" })).toBe(false);
  });

  it("agrees with parseRepoConfig on generated configs", () => {
    const value = fc.oneof(
      fc.constantFrom("high", "none", "scan", "skip", "full", "warn", "x", 0, 5, 700, -1, 1.5, true, null),
      fc.string({ maxLength: 4 }),
    );
    const arb = fc.record(
      {
        repositoryId: fc.oneof(fc.constant("repo"), fc.constant(""), fc.integer()),
        failOn: value,
        drafts: value,
        debounceSeconds: value,
        disclosure: value,
        comments: fc.record({ maxInline: value, minSeverity: value }, { requiredKeys: [] }),
        paths: fc.record({ ignore: fc.array(value, { maxLength: 2 }) }, { requiredKeys: [] }),
        creditCap: fc.record({ monthly: value }, { requiredKeys: [] }),
        typo: value,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(arb, (raw) => {
        expect(validate(raw)).toBe(parseRepoConfig(raw).ok);
      }),
      propertyOptions(1000),
    );
  });
});

describe("renderConfigReference", () => {
  it("lists every field of the schema with type and default", () => {
    const md = renderConfigReference();
    const paths = zodLeafPaths();
    expect(paths.length).toBeGreaterThanOrEqual(18);
    for (const p of paths) expect(md).toContain(`| \`${p}\` |`);
    expect(listConfigFields().map((f) => f.name)).toEqual(paths);
    expect(md).toContain(
      '| `failOn` | "critical", "high", "medium", "low", "info", "none", or mapping {severity: "critical", "high", "medium", "low", "info", "none"; only: "all", "new"} | `"high"` |',
    );
    expect(md).toContain("| `repositoryId` | string | **required** |");
    expect(md).toContain("| `debounceSeconds` | integer (0 to 600) | `10` |");
  });

  it("every field has a description", () => {
    for (const f of listConfigFields()) expect(f.description, f.name).not.toBe("");
  });
});

describe(".env.example", () => {
  it("is current (run `npm run schema:config`) and lists every variable", () => {
    const text = read(ENV_EXAMPLE_PATH);
    expect(text).toBe(renderEnvExample());
    for (const name of Object.keys(ProcessEnv.shape)) expect(text).toMatch(new RegExp(`^(# )?${name}=`, "m"));
  });

  it("documents exactly the variables of the schema", () => {
    expect(ENV_VARIABLES.map((v) => v.name).sort()).toEqual(Object.keys(ProcessEnv.shape).sort());
  });
});

describe("README configuration reference", () => {
  it("is current (run `npm run schema:config`)", async () => {
    const { readFileSync } = await import("node:fs");
    const { withConfigReference } = await import("../../src/config/json-schema.js");
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    expect(withConfigReference(readme)).toBe(readme);
  });
});

describe("README environment reference", () => {
  it("is current (run `npm run schema:config`) and has a row per variable", () => {
    const readme = read("README.md");
    expect(withEnvReference(readme)).toBe(readme);
    for (const name of Object.keys(ProcessEnv.shape)) expect(readme).toContain(`| \`${name}\` |`);
  });
});
