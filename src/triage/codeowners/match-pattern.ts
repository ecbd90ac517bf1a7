/**
 * CODEOWNERS path patterns as GitHub matches them ("CODEOWNERS syntax" and "Example of a CODEOWNERS file",
 * https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/about-code-owners),
 * which are close to gitignore's but not the same:
 * - `*` matches within one path segment, `?` one character of it, `**` any number of segments;
 * - a pattern without a `/` (but a trailing one) matches at any depth; one with a leading `/` or a `/` inside
 *   is anchored to the repository's root (`apps/` is any `apps` directory, `/docs/` the root one);
 * - a trailing `/` means a directory and everything under it, at any depth;
 * - a last segment that is exactly `*` matches one level only: `docs/*` owns `docs/getting-started.md`, not
 *   `docs/build-app/troubleshooting.md`; any other last segment also owns what is under the path it names;
 * - `[ ]` is no character range ("Syntax exceptions"): a bracket is a literal character, and GitHub refuses one
 *   that no backslash escapes ("Invalid pattern …: both `[` and `]` must be escaped with a `\`", GitHub's
 *   message as quoted in open-sauced/pizza-cli#100), so `/pages/\[id\].js` owns `pages/[id].js`;
 * - `!` does not negate and `\#` does not escape a `#` ("Syntax exceptions"); a backslash makes the next
 *   character literal (`f\*o` is the file `f*o`);
 * - paths are case-sensitive.
 * Matching walks segments and characters with the wildcard algorithm that backtracks to the last star only, so
 * it takes at most (pattern length × path length) steps: no regular expression, no exponential backtracking.
 */
import type { CodeownersRule } from "../../domain/codeowners.js";

/** One character of a segment's pattern: a literal code point, `?` (any one), or `*` (any run). */
type GlobToken = { literal: string } | "?" | "*";
/** One step of a compiled pattern: a segment matched by its glob, or `**`, any number of segments. */
type Part = readonly GlobToken[] | "**";

/**
 * Why `pattern` is not one GitHub supports, in a sentence, or `undefined` when it is.
 * Rules: GitHub "Syntax exceptions" (`!`, `\#`, `[ ]`: an unescaped bracket is GitHub's "Invalid pattern");
 * three asterisks in a row are neither `*` nor `**`.
 */
export function patternProblem(pattern: string): string | undefined {
  if (pattern.startsWith("!"))
    return "`!` does not negate a pattern in CODEOWNERS (GitHub's syntax exceptions)";
  if (pattern.startsWith("\\#"))
    return "`\\#` does not escape a leading `#` in CODEOWNERS (GitHub's syntax exceptions)";
  if (pattern.includes("***")) return `\`${pattern}\` has three asterisks in a row, which is no pattern`;
  if (/(^|[^\\])(\\\\)*[[\]]/.test(pattern))
    return `\`${pattern}\` has a bracket no backslash escapes: both \`[\` and \`]\` must be escaped with a \`\\\` (GitHub reads no character ranges)`;
  if (/(^|[^\\])(\\\\)*\\$/.test(pattern)) return `\`${pattern}\` ends with a lone backslash`;
  return undefined;
}

/** `pattern` cut at each `/` no backslash escapes, each piece read into glob tokens (escapes resolved). */
function segmentsOf(pattern: string): { raw: string; glob: GlobToken[] }[] {
  const out = [{ raw: "", glob: [] as GlobToken[] }];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const seg = out[out.length - 1]!;
    if (ch === "/") out.push({ raw: "", glob: [] });
    else if (ch === "\\" && i + 1 < chars.length) {
      seg.raw += ch + chars[i + 1];
      seg.glob.push({ literal: chars[++i]! });
    } else {
      seg.raw += ch;
      seg.glob.push(ch === "*" || ch === "?" ? ch : { literal: ch });
    }
  }
  return out;
}

/** The steps `pattern` matches a path's segments with, or `null` when it matches no path (`/`). */
export function compilePattern(pattern: string): Part[] | null {
  const all = segmentsOf(pattern);
  const anchored = all.length > 1 && all[0]!.raw === "";
  const directory = all.length > 1 && all[all.length - 1]!.raw === "";
  const segs = all.filter((s) => s.raw !== "");
  if (segs.length === 0) return null;
  const parts: Part[] = segs.map((s) => (s.raw === "**" ? "**" : s.glob));
  // a single segment, unanchored, matches at any depth
  if (!anchored && segs.length === 1 && parts[0] !== "**") parts.unshift("**");
  const last = segs[segs.length - 1]!.raw;
  // a directory (trailing `/`) or a trailing `**` owns what is under it: one or more segments
  if (directory || last === "**") {
    if (last === "**") parts.pop();
    parts.push(["*"], "**");
  } else if (last !== "*") parts.push("**"); // the path named, or anything under it
  return parts;
}

/** Whether `tokens` match all of `chars` (the wildcard algorithm: backtrack to the last `*` only). */
function globMatches(tokens: readonly GlobToken[], chars: readonly string[]): boolean {
  return walk(
    tokens.length,
    chars.length,
    (t, c) => matchesOne(tokens[t]!, chars[c]!),
    (t) => tokens[t] === "*",
  );
}

function matchesOne(token: GlobToken, ch: string): boolean {
  return token === "?" || (typeof token === "object" && token.literal === ch);
}

/**
 * The two-pointer wildcard walk over `nT` tokens and `nU` units: `isStar(t)` tokens match any run of units
 * (backtracking to the last one seen), the others one unit when `eats(t, u)`. At most nT × nU steps.
 */
function walk(
  nT: number,
  nU: number,
  eats: (t: number, u: number) => boolean,
  isStar: (t: number) => boolean,
): boolean {
  let t = 0;
  let u = 0;
  let starT = -1;
  let starU = 0;
  while (u < nU) {
    if (t < nT && isStar(t)) {
      starT = t++;
      starU = u;
    } else if (t < nT && eats(t, u)) {
      t++;
      u++;
    } else if (starT >= 0) {
      t = starT + 1;
      u = ++starU;
    } else return false;
  }
  while (t < nT && isStar(t)) t++;
  return t === nT;
}

/** The segments of a repository path (`src/a.ts`; a leading `/` is ignored), each as code points. */
function pathSegments(path: string): string[][] {
  return path
    .split("/")
    .filter((s) => s !== "")
    .map((s) => Array.from(s));
}

/** Whether compiled `parts` match the path `segs`. */
function partsMatch(parts: readonly Part[], segs: readonly string[][]): boolean {
  if (segs.length === 0) return false;
  return walk(
    parts.length,
    segs.length,
    (p, s) => parts[p] !== "**" && globMatches(parts[p] as GlobToken[], segs[s]!),
    (p) => parts[p] === "**",
  );
}

/** Whether the CODEOWNERS `pattern` matches the repository path `path` (GitHub's rules, above). */
export function matchesPattern(pattern: string, path: string): boolean {
  const parts = compilePattern(pattern);
  return parts !== null && partsMatch(parts, pathSegments(path));
}

/** Each rule's compiled pattern, compiled on first use. */
const compiled = new WeakMap<CodeownersRule, Part[] | null>();

/**
 * The rule of `rules` that decides `path`'s owners: the last one whose pattern matches ("the last matching
 * pattern takes the most precedence", GitHub "Example of a CODEOWNERS file"), or `null` when none does.
 */
export function lastMatchingRule(rules: readonly CodeownersRule[], path: string): CodeownersRule | null {
  const segs = pathSegments(path);
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    let parts = compiled.get(rule);
    if (parts === undefined) compiled.set(rule, (parts = compilePattern(rule.pattern)));
    if (parts !== null && partsMatch(parts, segs)) return rule;
  }
  return null;
}
