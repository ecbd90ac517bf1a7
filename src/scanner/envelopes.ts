/**
 * Normalizers for the responses whose envelope the spec leaves unnamed: the repositories list, the
 * audit-area list (with its branch and has-map fields and each area's flag/files/lines), the created
 * audit area and the guidance read (spec §Repositories). The data is found by its shape, never by a
 * guessed name alone. Pure; the client turns a failure into a `ScannerResponseError` naming the field path.
 */
import type { z } from "zod";
import type { ResponseIssue } from "./errors.js";
import {
  AuditAreaRaw,
  Repository,
  type AuditArea,
  type AuditAreaList,
  type CreatedAuditArea,
  type Guidance,
} from "./schemas.js";

export type Normalized<T> = { ok: true; value: T } | { ok: false; issues: ResponseIssue[] };

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Joins a path of keys and indexes as `a.b[3].c`; empty paths read `(body)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out === "" ? String(seg) : `.${String(seg)}`;
  }
  return out === "" ? "(body)" : out;
}

/** zod issues → {@link ResponseIssue}s, each path prefixed by `prefix`. */
export function zodIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): ResponseIssue[] {
  return error.issues.map((i) => ({
    path: formatPath([...prefix, ...(i.path as PropertyKey[])]),
    message: i.message,
  }));
}

function fail<T>(path: readonly PropertyKey[], message: string): Normalized<T> {
  return { ok: false, issues: [{ path: formatPath(path), message }] };
}

/** `holder`: the object that holds the array, for its sibling fields. */
interface Located {
  items: unknown[];
  path: PropertyKey[];
  holder: Obj | undefined;
}

/**
 * Finds the array of items in `body`: the body itself when it is an array; otherwise the array field
 * whose items all satisfy `isItem` (searching the top level, then objects one level down, e.g.
 * `{data: {items: [...]}}`). When no non-empty array qualifies, a lone empty array field is taken (an
 * empty list carries no shape to match). Two qualifying arrays are ambiguous and refused.
 */
function locateArray(body: unknown, isItem: (v: unknown) => boolean, what: string): Normalized<Located> {
  if (Array.isArray(body)) return { ok: true, value: { items: body, path: [], holder: undefined } };
  if (!isObj(body)) return fail([], `expected an object or an array holding ${what}, got ${typeName(body)}`);

  const levels: { holder: Obj; path: PropertyKey[] }[] = [{ holder: body, path: [] }];
  for (const [k, v] of Object.entries(body)) if (isObj(v)) levels.push({ holder: v, path: [k] });

  for (const { holder, path } of levels) {
    const arrays = Object.entries(holder).filter((e): e is [string, unknown[]] => Array.isArray(e[1]));
    const matching = arrays.filter(([, a]) => a.length > 0 && a.every(isItem));
    if (matching.length > 1) {
      return fail(path, `ambiguous: several arrays hold ${what} (${matching.map(([k]) => k).join(", ")})`);
    }
    if (matching.length === 1) {
      const [k, items] = matching[0]!;
      return { ok: true, value: { items, path: [...path, k], holder } };
    }
    if (arrays.length === 1 && arrays[0]![1].length === 0) {
      const [k, items] = arrays[0]!;
      return { ok: true, value: { items, path: [...path, k], holder } };
    }
    // A single array whose items do not fit: report the first bad item rather than "not found".
    if (path.length === 0 && arrays.length === 1) {
      const [k, items] = arrays[0]!;
      const bad = items.findIndex((i) => !isItem(i));
      return fail([k, bad], `expected ${what}, got ${describe(items[bad])}`);
    }
  }
  return fail([], `no array of ${what} found (fields: ${Object.keys(body).join(", ") || "none"})`);
}

function typeName(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

function describe(v: unknown): string {
  return isObj(v) ? `an object with fields ${Object.keys(v).join(", ") || "(none)"}` : typeName(v);
}

function hasStringFields(...keys: string[]) {
  return (v: unknown): boolean => isObj(v) && keys.every((k) => typeof v[k] === "string");
}

/**
 * Normalizes `GET /projects/{projectId}/repositories` (spec §Repositories: "each item has
 * `readiness`. … the rest of the response shape: not shown"). The repositories are the body when it is an
 * array, else the only array whose items carry `id` and `readiness`.
 */
export function normalizeRepositories(body: unknown): Normalized<Repository[]> {
  const found = locateArray(
    body,
    hasStringFields("id", "readiness"),
    "repositories (items with id and readiness)",
  );
  if (!found.ok) return found;
  const parsed = Repository.array().safeParse(found.value.items);
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error, found.value.path) };
  return { ok: true, value: parsed.data };
}

const KNOWN_AREA_FIELDS = new Set(["key", "source", "name", "description"]);
const isIntOrNull = (v: unknown): v is number | null => v === null || Number.isInteger(v);

/**
 * Normalizes one audit area (spec §Audit area): `key`, `source`, optional `name`/`description`; the
 * unnamed flag is the boolean field other than the known ones (when several, the one whose name
 * mentions "map"/"current"); files and lines are the integer-or-null fields whose names contain
 * "file" and "line".
 */
export function normalizeAuditArea(item: unknown, path: PropertyKey[] = []): Normalized<AuditArea> {
  const parsed = AuditAreaRaw.safeParse(item);
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error, path) };
  const raw = parsed.data;
  const extra = Object.entries(raw).filter(([k]) => !KNOWN_AREA_FIELDS.has(k));

  const booleans = extra.filter(([, v]) => typeof v === "boolean") as [string, boolean][];
  const flag =
    booleans.length === 1 ? booleans[0] : booleans.find(([k]) => /map|current|named|present/i.test(k));

  const files = extra.find(([k, v]) => /file/i.test(k) && isIntOrNull(v)) as
    [string, number | null] | undefined;
  const lines = extra.find(([k, v]) => /line/i.test(k) && isIntOrNull(v)) as
    [string, number | null] | undefined;
  for (const found of [files, lines]) {
    if (found && found[1] !== null && found[1] < 0) return fail([...path, found[0]], "expected a count ≥ 0");
  }

  const area: AuditArea = { key: raw.key, source: raw.source, raw };
  if (typeof raw.name === "string") area.name = raw.name;
  if (typeof raw.description === "string") area.description = raw.description;
  if (flag) area.inCurrentMap = flag[1];
  if (files) area.files = files[1];
  if (lines) area.lines = lines[1];
  return { ok: true, value: area };
}

/**
 * Normalizes `GET …/audit-areas` (spec §Audit area, §Repositories). The areas are the array whose
 * items carry `key` and `source` (or the body itself when it is an array); the branch is the string
 * field whose name contains "branch" and has-map the boolean field whose name mentions "map", both
 * looked up beside the array, then at the top level.
 */
export function normalizeAuditAreaList(body: unknown): Normalized<AuditAreaList> {
  const found = locateArray(
    body,
    hasStringFields("key", "source"),
    "audit areas (items with key and source)",
  );
  if (!found.ok) return found;
  const areas: AuditArea[] = [];
  const issues: ResponseIssue[] = [];
  found.value.items.forEach((item, i) => {
    const r = normalizeAuditArea(item, [...found.value.path, i]);
    if (r.ok) areas.push(r.value);
    else issues.push(...r.issues);
  });
  if (issues.length > 0) return { ok: false, issues };

  const result: AuditAreaList = { areas, raw: body };
  const holders = [found.value.holder, isObj(body) ? body : undefined].filter(
    (h): h is Obj => h !== undefined,
  );
  for (const h of holders) {
    const entries = Object.entries(h);
    if (result.branch === undefined) {
      const b = entries.find(([k, v]) => /branch/i.test(k) && typeof v === "string");
      if (b) result.branch = b[1] as string;
    }
    if (result.hasMap === undefined) {
      const m = entries.find(([k, v]) => /map/i.test(k) && typeof v === "boolean");
      if (m) result.hasMap = m[1] as boolean;
    }
  }
  return { ok: true, value: result };
}

/**
 * Normalizes `POST …/audit-areas` (spec §Repositories: "Response body: not shown beyond a `key` on the
 * created area"): the `key` string at the top level, else on the one object field that carries a `key`
 * string.
 */
export function normalizeCreatedAuditArea(body: unknown): Normalized<CreatedAuditArea> {
  if (!isObj(body)) return fail([], `expected an object, got ${typeName(body)}`);
  if (typeof body.key === "string") return { ok: true, value: { key: body.key, raw: body } };
  const nested = Object.entries(body).filter(([, v]) => isObj(v) && typeof v.key === "string");
  if (nested.length === 1)
    return { ok: true, value: { key: (nested[0]![1] as Obj).key as string, raw: body } };
  return fail(["key"], "expected the created area's key (a string) at the top level or on one nested object");
}

const CONTENT_NAMES = /^(content|guidance|text|guidanceText|guidanceContent)$/i;
const CONTENT_LIKE = /content|guidance|text/i;

/**
 * Normalizes `GET …/guidance` (spec §Repositories: "Payload: not shown"). The content is the string-or-null
 * field named like content/guidance/text (exact names first, then names containing them), at the top level or
 * inside one nested object (e.g. `{guidance: {content}}`); a bare JSON string or null body is the content
 * itself. A body with no such field is an error, never read as "no guidance".
 */
export function normalizeGuidance(body: unknown): Normalized<Guidance> {
  if (typeof body === "string" || body === null) return { ok: true, value: { content: body, raw: body } };
  if (!isObj(body)) return fail([], `expected an object holding the guidance, got ${typeName(body)}`);
  const pick = (o: Obj): [string, string | null] | undefined => {
    const entries = Object.entries(o).filter(
      (e): e is [string, string | null] => typeof e[1] === "string" || e[1] === null,
    );
    return entries.find(([k]) => CONTENT_NAMES.test(k)) ?? entries.find(([k]) => CONTENT_LIKE.test(k));
  };
  const top = pick(body);
  if (top) return { ok: true, value: { content: top[1], raw: body } };
  for (const [k, v] of Object.entries(body)) {
    if (isObj(v) && CONTENT_LIKE.test(k)) {
      const inner = pick(v);
      if (inner) return { ok: true, value: { content: inner[1], raw: body } };
    }
  }
  for (const v of Object.values(body)) {
    if (isObj(v)) {
      const inner = pick(v);
      if (inner) return { ok: true, value: { content: inner[1], raw: body } };
    }
  }
  return fail([], `no guidance content field (string or null named like content/guidance/text) found`);
}

/** The latest revision of stored guidance, as far as `GET …/guidance` tells it. */
export interface GuidanceRevision {
  revisionId?: string;
  /** ISO 8601 date-time */
  updatedAt?: string;
}

/**
 * The latest revision of the stored guidance from the raw `GET …/guidance` body (spec §Guidance: every
 * write that changes stored guidance records a revision with an id; the read payload is not shown): a
 * string field named like `revisionId`/`revision`/`latestRevisionId` (or an object `revision` holding an
 * `id`), and a date-time field named like `updatedAt`, at the top or one level down. Pure; `{}` when the
 * body names neither.
 */
export function guidanceRevision(raw: unknown): GuidanceRevision {
  const out: GuidanceRevision = {};
  const scan = (o: Obj): void => {
    for (const [k, v] of Object.entries(o)) {
      if (out.revisionId === undefined && /revision(id)?$/i.test(k)) {
        if (typeof v === "string" && v) out.revisionId = v;
        else if (isObj(v) && typeof v["id"] === "string") {
          out.revisionId = v["id"];
          if (typeof v["createdAt"] === "string") out.updatedAt ??= v["createdAt"];
        }
      }
      if (
        out.updatedAt === undefined &&
        /^(updated|modified|changed|revised)(At|On)?$/i.test(k) &&
        typeof v === "string" &&
        !Number.isNaN(Date.parse(v))
      )
        out.updatedAt = v;
    }
  };
  if (!isObj(raw)) return out;
  scan(raw);
  for (const v of Object.values(raw)) if (isObj(v)) scan(v);
  return out;
}
