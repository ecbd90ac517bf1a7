/**
 * Validating `.github/diffward.yml`: its text read as YAML, checked against the schema with its defaults
 * applied, and every problem said with its path and, from the YAML, its line.
 */
import { z } from "zod";
import { parseDocument, LineCounter, type Document } from "yaml";
import { Enforce } from "./enforce.js";
import { describeIssue, type ConfigProblem } from "./issue-messages.js";
import { RepoConfig } from "./schema.js";

/** Largest configuration file diffward reads, in bytes (UTF-8). */
export const MAX_REPO_CONFIG_BYTES = 64 * 1024;

export type RepoConfigResult =
  | { ok: true; config: RepoConfig }
  | {
      ok: false;
      /** one line per problem: `failOn: must be one of critical, high, medium, low, info, none (got "hgih")` */
      problems: string[];
      /** the same problems, structured (for check run annotations) */
      details: ConfigProblem[];
    };

/**
 * Validates an already-parsed config value against {@link RepoConfig}, applying defaults.
 * Never throws. Problems quote the path and what was found, e.g.
 * `failOn: must be one of critical, high, medium, low, info, none (got "hgih")`, and unknown keys are
 * named (`unknown key "failon" (did you mean "failOn"?)`).
 */
export function parseRepoConfig(raw: unknown): RepoConfigResult {
  if (raw === undefined || raw === null) {
    return failure([{ path: "", message: "the file is empty; at least `repositoryId` is required" }]);
  }
  const parsed = RepoConfig.safeParse(raw);
  if (parsed.success) return { ok: true, config: parsed.data };
  return failure(parsed.error.issues.flatMap((issue) => describeIssue(issue, raw)));
}

/**
 * Parses the text of `.github/diffward.yml` (YAML 1.2, the `yaml` package) and validates it.
 * YAML syntax errors and schema problems both come back as problems with 1-based line numbers, e.g.
 * `line 3, column 9: YAML syntax error: …` or `failOn (line 4): must be one of …`. Never throws.
 *
 * @param text - the file content; more than {@link MAX_REPO_CONFIG_BYTES} bytes is refused.
 */
export function parseRepoConfigYaml(text: string): RepoConfigResult {
  const read = readYaml(text);
  if (!read.ok) return read.failure;
  const result = parseRepoConfig(read.raw);
  return result.ok ? result : failure(withLines(result.details, read));
}

/** A file a merged configuration was read from: its name (`owner/repo:path`) and text. */
export interface ConfigText {
  file: string;
  text: string;
}

/**
 * Validates a configuration merged from files (Probot's `_extends` and organization fallback: the first
 * file holding a top-level key gives it) and places each problem at its line in the file its top-level key
 * came from, e.g. `policies[0].mode (line 4): must be one of …`; with more than one file, the file is named
 * too: `failOn (acme/.github:.github/diffward.yml, line 2): …`. A problem whose file is not among `files`
 * keeps no line. Never throws.
 *
 * @param files - the files in the order they were read (the repository's own first).
 */
export function parseMergedConfig(raw: unknown, files: readonly ConfigText[]): RepoConfigResult {
  const result = parseRepoConfig(raw);
  if (result.ok) return result;
  const read = files.flatMap((f) => {
    const yaml = readYaml(f.text);
    return yaml.ok ? [{ ...yaml, file: f.file }] : [];
  });
  const placed = result.details.map((d) => {
    const key = pathSegments(d.path)[0];
    const from = read.find((f) => key !== undefined && f.doc.has(key));
    if (!from) return d;
    const [at] = withLines([d], from);
    return files.length > 1 && at!.line !== undefined ? { ...at!, file: from.file } : at!;
  });
  return failure(placed);
}

/** The outcome of reading an organization floor: the `enforce` section of a file, when it has one. */
export type EnforceResult = { ok: true; enforce: Enforce | undefined } | Failure;

/**
 * Parses the text of the organization's `.github/diffward.yml` for its floor, `enforce:` ({@link Enforce}):
 * the same YAML reading, messages and line numbers as {@link parseRepoConfigYaml}, e.g.
 * `enforce.failOn (line 3): must be one of …` or `enforce.mode (line 4): unknown key "mode" …`; the file's
 * other keys are not looked at. A file with no `enforce` (or empty) has no floor. Never throws.
 */
export function parseEnforceYaml(text: string): EnforceResult {
  const read = readYaml(text);
  if (!read.ok) return read.failure;
  const parsed = FloorFile.safeParse(read.raw ?? {});
  if (parsed.success) return { ok: true, enforce: parsed.data.enforce };
  const details = parsed.error.issues.flatMap((issue) => describeIssue(issue, read.raw));
  return failure(withLines(details, read));
}

/**
 * A file as written before the app merges it (what `diffward check-config` checks): `_extends` (the file
 * whose keys this one overrides, @probot/octokit-plugin-config) is allowed, and `repositoryId` may be left
 * to the extended file, or, in the organization's file (one with `enforce:`), to each repository.
 */
const SharedFile = RepoConfig.extend({
  repositoryId: RepoConfig.shape.repositoryId.optional(),
  _extends: z.string().min(1).optional(),
});

/**
 * Checks the text of a `.github/diffward.yml` as written, without reading anything else: YAML syntax, the
 * schema (with `enforce:`, the organization floor), line and column of each problem, the app's messages.
 * `_extends` is allowed; `repositoryId` is required unless the file has `_extends` or `enforce`. Never throws.
 */
export function checkConfigFileYaml(text: string): Failure | { ok: true } {
  const read = readYaml(text);
  if (!read.ok) return read.failure;
  const raw = read.raw;
  if (raw === undefined || raw === null) return parseRepoConfig(raw) as Failure;
  const shared = typeof raw === "object" && ("_extends" in raw || "enforce" in raw);
  const parsed = (shared ? SharedFile : RepoConfig.extend({ _extends: SharedFile.shape._extends })).safeParse(
    raw,
  );
  if (parsed.success) return { ok: true };
  return failure(
    withLines(
      parsed.error.issues.flatMap((issue) => describeIssue(issue, raw)),
      read,
    ),
  );
}

/** The part of a file a floor is read from: a mapping whose `enforce`, if any, is an {@link Enforce}. */
const FloorFile = z.looseObject({ enforce: Enforce.optional() });

type ReadYaml =
  { ok: true; raw: unknown; doc: Document; lineCounter: LineCounter } | { ok: false; failure: Failure };

/** The file's text read as YAML (size limit, syntax errors with line and column), not yet validated. */
function readYaml(text: string): ReadYaml {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_REPO_CONFIG_BYTES) {
    return {
      ok: false,
      failure: failure([
        { path: "", message: `the file is ${bytes} bytes; the limit is ${MAX_REPO_CONFIG_BYTES}` },
      ]),
    };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      failure: failure(
        doc.errors.map((e) => {
          const pos = lineCounter.linePos(e.pos[0]);
          const message = e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
          return { path: "", line: pos.line, column: pos.col, message: `YAML syntax error: ${message}` };
        }),
      ),
    };
  }
  try {
    return { ok: true, raw: doc.toJS({ maxAliasCount: 100 }), doc, lineCounter };
  } catch (e) {
    return {
      ok: false,
      failure: failure([{ path: "", message: `YAML could not be read: ${(e as Error).message}` }]),
    };
  }
}

/** Each problem with the line (and column) of the node its path names, sorted by line. */
function withLines(
  details: ConfigProblem[],
  { doc, lineCounter }: { doc: Document; lineCounter: LineCounter },
): ConfigProblem[] {
  const placed = details.map((d) => {
    const node = doc.getIn(pathSegments(d.path), true) as { range?: [number, number, number] } | undefined;
    const offset = node?.range?.[0];
    if (offset === undefined) return d;
    const pos = lineCounter.linePos(offset);
    // the whole file's problems (`the file must be a mapping`) keep the line alone
    return d.path ? { ...d, line: pos.line, column: pos.col } : { ...d, line: pos.line };
  });
  return placed.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

type Failure = Extract<RepoConfigResult, { ok: false }>;

function failure(details: ConfigProblem[]): Failure {
  return {
    ok: false,
    problems: details.map((d) => {
      // a schema problem names its path, so its line is enough here; a YAML syntax error also says the column
      const line =
        d.line === undefined
          ? ""
          : d.column === undefined || d.path
            ? `line ${d.line}`
            : `line ${d.line}, column ${d.column}`;
      const at = d.file && line ? `${d.file}, ${line}` : line;
      const where = d.path ? (at ? `${d.path} (${at})` : d.path) : at;
      return where ? `${where}: ${d.message}` : d.message;
    }),
    details,
  };
}

function pathSegments(path: string): (string | number)[] {
  const segs: (string | number)[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g))
    segs.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return segs;
}
