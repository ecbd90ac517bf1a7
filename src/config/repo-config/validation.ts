/**
 * Validating `.github/diffward.yml`: its text read as YAML, checked against the schema with its defaults
 * applied, and every problem said with its path and, from the YAML, its line.
 */
import { parseDocument, LineCounter } from "yaml";
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
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_REPO_CONFIG_BYTES) {
    return failure([
      { path: "", message: `the file is ${bytes} bytes; the limit is ${MAX_REPO_CONFIG_BYTES}` },
    ]);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return failure(
      doc.errors.map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        const message = e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
        return { path: "", line: pos.line, column: pos.col, message: `YAML syntax error: ${message}` };
      }),
    );
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return failure([{ path: "", message: `YAML could not be read: ${(e as Error).message}` }]);
  }
  const result = parseRepoConfig(raw);
  if (result.ok) return result;
  const details = result.details.map((d) => {
    const node = doc.getIn(pathSegments(d.path), true) as { range?: [number, number, number] } | undefined;
    const offset = node?.range?.[0];
    return offset === undefined ? d : { ...d, line: lineCounter.linePos(offset).line };
  });
  return failure(details.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)));
}

function failure(details: ConfigProblem[]): RepoConfigResult {
  return {
    ok: false,
    problems: details.map((d) => {
      const at =
        d.line === undefined
          ? ""
          : d.column === undefined
            ? `line ${d.line}`
            : `line ${d.line}, column ${d.column}`;
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
