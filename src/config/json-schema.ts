/**
 * Documents derived from the {@link RepoConfig} zod schema: the JSON Schema editors use for
 * `.github/diffward.yml` (committed as `schema/diffward.schema.json`, written by
 * `npm run schema:config`) and the Markdown reference table for the README.
 */
import { z } from "zod";
import { RepoConfig } from "./repo-config.js";

/** Where the committed JSON Schema lives, relative to the repository root. */
export const CONFIG_SCHEMA_PATH = "schema/diffward.schema.json";

/** A JSON Schema node, as far as the reference table reads it. */
interface SchemaNode {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  required?: string[];
  pattern?: string;
  /** a field written in one of several forms (`failOn`: a severity, or a mapping) */
  anyOf?: SchemaNode[];
  [key: string]: unknown;
}

/**
 * The JSON Schema (draft 2020-12) of `.github/diffward.yml` as a user writes it: the zod *input* side,
 * so fields with defaults are optional, and `additionalProperties: false` everywhere (zod 4's
 * `z.toJSONSchema`). Deterministic: the same schema gives the same object.
 */
export function buildConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(RepoConfig, { io: "input", unrepresentable: "throw" }) as Record<
    string,
    unknown
  >;
  return { ...schema, title: "diffward configuration" };
}

/** The text written to {@link CONFIG_SCHEMA_PATH}: two-space JSON with a final newline. */
export function renderConfigJsonSchema(): string {
  return JSON.stringify(buildConfigJsonSchema(), null, 2) + "\n";
}

/** One row of the reference table. */
export interface ConfigField {
  /** dotted path, e.g. `comments.maxInline` */
  name: string;
  /** human type, e.g. `integer (0 to 600)`, `"skip" or "scan"`, `list of string` */
  type: string;
  /** default as YAML-ish text; `required` for required fields; `none` when there is no default */
  default: string;
  description: string;
}

/** Every leaf field of the config with its type, default and description, in schema order. */
export function listConfigFields(): ConfigField[] {
  const root = buildConfigJsonSchema() as SchemaNode;
  const out: ConfigField[] = [];
  const walk = (node: SchemaNode, prefix: string) => {
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const name = prefix ? `${prefix}.${key}` : key;
      if (child.properties) {
        walk(child, name);
        continue;
      }
      // a list of mappings (`policies`): its own row, then one row per field of an entry (`policies[].mode`)
      const entry = child.type === "array" && child.items?.properties ? child.items : undefined;
      const required = node.required?.includes(key) ?? false;
      out.push({
        name,
        type: entry ? "list of mapping (its fields below)" : describeType(child),
        default: required ? "required" : child.default === undefined ? "none" : JSON.stringify(child.default),
        description: child.description ?? "",
      });
      if (entry) walk(entry, `${name}[]`);
    }
  };
  walk(root, "");
  return out;
}

/**
 * The Markdown reference table of `.github/diffward.yml` (field, type, default, description), for the
 * README. Cells escape `|` so the table never breaks.
 */
export function renderConfigReference(): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const rows = listConfigFields().map(
    (f) =>
      `| \`${f.name}\` | ${cell(f.type)} | ${f.default === "none" ? "(none)" : cell(f.default === "required" ? "**required**" : `\`${f.default}\``)} | ${cell(f.description)} |`,
  );
  return ["| Field | Type | Default | Description |", "| --- | --- | --- | --- |", ...rows].join("\n") + "\n";
}

function describeType(node: SchemaNode): string {
  if (node.anyOf) return node.anyOf.map(describeType).join(", or ");
  if (node.properties) {
    const fields = Object.entries(node.properties).map(([k, v]) => `${k}: ${describeType(v)}`);
    return `mapping {${fields.join("; ")}}`;
  }
  if (node.enum) return node.enum.map((v) => JSON.stringify(v)).join(", ");
  const type = Array.isArray(node.type) ? node.type.join(" or ") : (node.type ?? "any");
  if (type === "array") return `list of ${node.items ? describeType(node.items) : "any"}`;
  if (type === "integer" || type === "number") {
    const safe = (n: number | undefined) =>
      n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER ? n : undefined;
    const lo = safe(node.minimum);
    const hi = safe(node.maximum);
    if (lo !== undefined && hi !== undefined) return `${type} (${lo} to ${hi})`;
    if (lo !== undefined) return `${type} (at least ${lo})`;
    if (hi !== undefined) return `${type} (at most ${hi})`;
  }
  return type;
}

/**
 * `readme` with the text between its `<!-- <name>:start … -->` and `<!-- <name>:end -->` markers replaced
 * by `body`, for the README tables generated by `npm run schema:config`.
 * @throws Error when the markers are missing.
 */
export function withGeneratedSection(readme: string, name: string, body: string): string {
  const start = new RegExp(`<!-- ${name}:start[^>]*-->\\n`).exec(readme);
  const end = readme.indexOf(`<!-- ${name}:end -->`);
  if (!start || end < start.index) throw new Error(`README.md has no ${name} markers`);
  const from = start.index + start[0].length;
  return `${readme.slice(0, from)}${body.trim()}\n${readme.slice(end)}`;
}

/** `readme` with its `config-reference` section replaced by {@link renderConfigReference}. */
export function withConfigReference(readme: string): string {
  return withGeneratedSection(readme, "config-reference", renderConfigReference());
}
