/**
 * What a config problem says: a zod issue of {@link RepoConfig} turned into a path and a message that
 * quotes what was found, e.g. `failOn: must be one of critical, high, medium, low, info, none (got "hgih")`,
 * with a hint for a mistyped key (`unknown key "failon" (did you mean "failOn"?)`).
 */
import type { z } from "zod";
import { RepoConfig } from "./schema.js";

/** One problem of a config file. */
export interface ConfigProblem {
  /** dotted path, e.g. `comments.maxInline`, `paths.ignore[2]`; "" for the whole file */
  path: string;
  /** 1-based line in the YAML file, when known */
  line?: number;
  /** the file the line is in, when the configuration was merged from more than one (`owner/repo:path`) */
  file?: string;
  /** 1-based column: of a YAML syntax error, or of the value (or key) the path names */
  column?: number;
  /** human message without the path */
  message: string;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = raw;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg as string];
  }
  return cur;
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

function typeName(expected: string): string {
  switch (expected) {
    case "object":
      return "a mapping";
    case "array":
      return "a list";
    case "int":
    case "number":
      return "a whole number";
    case "string":
      return "a string";
    case "boolean":
      return "true or false";
    default:
      return expected;
  }
}

/** The keys the schema knows at `path` (at a list's entry, `policies[0]`, its element's keys). */
function knownKeys(path: readonly PropertyKey[]): string[] {
  let schema: z.ZodType = RepoConfig;
  for (const seg of path) {
    // a list's entry: unwrapping a list (zod's `ZodArray.unwrap()`) gives its element
    if (typeof seg === "number") continue;
    const shape = shapeOf(schema);
    if (!shape || typeof seg !== "string" || !shape[seg]) return [];
    schema = shape[seg];
  }
  const shape = shapeOf(schema);
  return shape ? Object.keys(shape) : [];
}

/** The keys of an object schema, through defaults, optionals, lists and a union's object alternative. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let inner: unknown = schema;
  while (inner && typeof inner === "object" && "unwrap" in inner && typeof inner.unwrap === "function")
    inner = (inner as { unwrap(): unknown }).unwrap();
  const options = (inner as { options?: z.ZodType[] }).options;
  if (Array.isArray(options)) return options.map(shapeOf).find((s) => s !== undefined);
  return (inner as { shape?: Record<string, z.ZodType> }).shape;
}

/**
 * The issues of the union alternative the value was written as (`failOn: high` or `failOn: {severity: …}`):
 * a mapping is read as the object form, anything else as the scalar form.
 */
function unionIssues(issue: z.core.$ZodIssueInvalidUnion, got: unknown): z.core.$ZodIssue[] {
  const mapping = got !== null && typeof got === "object" && !Array.isArray(got);
  const fits = (errs: z.core.$ZodIssue[]) =>
    mapping
      ? errs.every((e) => e.path.length > 0 || e.code === "unrecognized_keys")
      : !errs.some((e) => e.code === "invalid_type" && e.expected === "object");
  const chosen = issue.errors.find(fits) ?? issue.errors[0] ?? [];
  return chosen.map((e) => ({ ...e, path: [...issue.path, ...e.path] }));
}

export function describeIssue(issue: z.core.$ZodIssue, raw: unknown): ConfigProblem[] {
  return describeIssueAt(issue, raw).map((p) => (p.path ? p : { ...p, message: `the file ${p.message}` }));
}

function describeIssueAt(issue: z.core.$ZodIssue, raw: unknown): ConfigProblem[] {
  const path = formatPath(issue.path);
  const got = valueAt(raw, issue.path);
  switch (issue.code) {
    case "unrecognized_keys": {
      const known = knownKeys(issue.path);
      return issue.keys.map((key) => {
        const guess = suggest(key, known);
        return {
          path: formatPath([...issue.path, key]),
          message: `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ""}; known keys here: ${known.join(", ")}`,
        };
      });
    }
    case "invalid_union": {
      const inner = unionIssues(issue, got);
      if (inner.length > 0) return inner.flatMap((e) => describeIssueAt(e, raw));
      return [{ path, message: `${issue.message} (got ${show(got)})` }];
    }
    case "invalid_value":
      return [
        {
          path,
          message: `must be one of ${issue.values.map((v) => String(v)).join(", ")} (got ${show(got)})`,
        },
      ];
    case "invalid_type":
      if (got === undefined) return [{ path, message: "is required" }];
      return [{ path, message: `must be ${typeName(issue.expected)} (got ${show(got)})` }];
    case "too_small":
    case "too_big": {
      const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
      if (issue.code === "too_small" && issue.origin === "string" && Number(bound) === 1)
        return [{ path, message: `must not be empty (got ${show(got)})` }];
      const word = issue.code === "too_small" ? "at least" : "at most";
      const what =
        issue.origin === "string"
          ? `${bound} characters`
          : issue.origin === "array"
            ? `${bound} items`
            : String(bound);
      const subject =
        issue.origin === "string" ? "must have" : issue.origin === "array" ? "must have" : "must be";
      return [{ path, message: `${subject} ${word} ${what} (got ${show(got)})` }];
    }
    case "invalid_format":
      return [{ path, message: `${issue.message} (got ${show(got)})` }];
    case "custom":
      // a rule across fields (the sections' refinements, e.g. ./baseline-section.ts): a missing field has nothing to show
      return [{ path, message: got === undefined ? issue.message : `${issue.message} (got ${show(got)})` }];
    default:
      return [{ path, message: `${issue.message} (got ${show(got)})` }];
  }
}

/** The closest known key within edit distance 2 (case-insensitive), for typo hints. */
function suggest(key: string, known: string[]): string | undefined {
  let best: { k: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(key.toLowerCase(), k.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { k, d };
  }
  return best?.k;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}
