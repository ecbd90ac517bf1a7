/**
 * Finding identity across pushes.
 *
 * Each push to a pull request runs a new scan, and the service gives its findings new ids when it
 * does not recognise them as the same. diffward therefore treats two findings as the same finding
 * when **their ids are equal, or their fingerprints are equal**, where
 *
 * ```
 * fingerprint = sha256_hex( path + "|" + category + "|" + normalizedTitle )
 * ```
 *
 * - `path` is the path of `parseLocation(location)` (so `./src/a.ts:12` and `src/a.ts#L40` share
 *   `src/a.ts`, and line moves do not matter), or the trimmed raw location when it cannot be parsed;
 * - `category` is the finding's category exactly as the service sends it;
 * - `normalizedTitle` is the title after Unicode NFKC, lower-cased, with digits and quote characters
 *   (`' " \` ‘ ’ “ ” « »` …) removed, every other punctuation or symbol character replaced by a space,
 *   and runs of whitespace collapsed to one space, trimmed. "SQL injection in `getUser()`!"
 *   and "SQL Injection in getUser" normalise alike: `sql injection in getuser`.
 *
 * The fingerprint is 64 lower-case hex characters and is stored in diffward's hidden comment marker.
 */
import { createHash } from "node:crypto";
import { parseLocation } from "./location.js";
import type { ReportFinding } from "./types.js";

/** The fields the fingerprint reads. */
export type FingerprintInput = Pick<ReportFinding, "location" | "category" | "title">;

const QUOTES = /['"`\u2018-\u201F\u00AB\u00BB\u2039\u203A\u300C-\u300F\uFF02\uFF07]/gu;
const DIGITS = /\p{N}/gu;
const PUNCTUATION_OR_SYMBOL = /[\p{P}\p{S}]/gu;

/** The title as the fingerprint sees it (see the module comment for the exact rule). */
export function normalizeTitle(title: string): string {
  return title
    .normalize("NFKC")
    .toLowerCase()
    .replace(QUOTES, "")
    .replace(DIGITS, "")
    .replace(PUNCTUATION_OR_SYMBOL, " ")
    .replace(/\s+/gu, " ")
    .trim();
}

/** The path part of the fingerprint: the parsed path, or the trimmed raw location. */
export function fingerprintPath(location: string): string {
  return parseLocation(location)?.path ?? location.trim();
}

/**
 * `sha256(path | category | normalized title)` as 64 lower-case hex characters (rule in the module
 * comment). Pure: the same input always gives the same fingerprint.
 */
export function fingerprint(f: FingerprintInput): string {
  const text = `${fingerprintPath(f.location)}|${f.category}|${normalizeTitle(f.title)}`;
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** A finding as identity sees it: its id, plus either a stored fingerprint or the fields to compute one. */
export type Identifiable = { id: string } & ({ fingerprint: string } | FingerprintInput);

/** One match of {@link matchFindings}. */
export interface FindingMatch<P, C> {
  previous: P;
  current: C;
  /** `id` when the ids are equal, `fingerprint` when only the fingerprints are */
  by: "id" | "fingerprint";
}

/** The fingerprint of `f`: the stored one when present, else computed. */
export function fingerprintOf(f: Identifiable): string {
  return "fingerprint" in f && typeof f.fingerprint === "string"
    ? f.fingerprint
    : fingerprint(f as FingerprintInput);
}

/**
 * Pairs findings of an earlier scan (`previous`, e.g. read back from diffward's comment markers)
 * with findings of a later scan (`current`) by the identity rule: equal id first, then equal
 * fingerprint. Matching is one-to-one: each finding appears in at most one pair; when several
 * findings share a fingerprint they pair in input order. Pairs come in the order of `current`.
 */
export function matchFindings<P extends Identifiable, C extends Identifiable>(
  previous: readonly P[],
  current: readonly C[],
): FindingMatch<P, C>[] {
  return matchIndices(previous, current).map(([pi, ci, by]) => ({
    previous: previous[pi]!,
    current: current[ci]!,
    by,
  }));
}

/**
 * Splits two scans' findings into `matched` pairs (see {@link matchFindings}), `added` (current
 * findings with no earlier match) and `gone` (earlier findings with no current match).
 */
export function classifyFindings<P extends Identifiable, C extends Identifiable>(
  previous: readonly P[],
  current: readonly C[],
): { matched: FindingMatch<P, C>[]; added: C[]; gone: P[] } {
  const pairs = matchIndices(previous, current);
  const seenPrevious = new Set(pairs.map(([pi]) => pi));
  const seenCurrent = new Set(pairs.map(([, ci]) => ci));
  return {
    matched: pairs.map(([pi, ci, by]) => ({ previous: previous[pi]!, current: current[ci]!, by })),
    added: current.filter((_, i) => !seenCurrent.has(i)),
    gone: previous.filter((_, i) => !seenPrevious.has(i)),
  };
}

function matchIndices(
  previous: readonly Identifiable[],
  current: readonly Identifiable[],
): [number, number, "id" | "fingerprint"][] {
  const byCurrent = new Map<number, [number, number, "id" | "fingerprint"]>();
  const usedPrevious = new Set<number>();
  const previousById = new Map<string, number>();
  previous.forEach((p, i) => {
    if (!previousById.has(p.id)) previousById.set(p.id, i);
  });
  current.forEach((c, ci) => {
    const pi = previousById.get(c.id);
    if (pi === undefined || usedPrevious.has(pi)) return;
    usedPrevious.add(pi);
    byCurrent.set(ci, [pi, ci, "id"]);
  });
  const previousByFingerprint = new Map<string, number[]>();
  previous.forEach((p, i) => {
    if (usedPrevious.has(i)) return;
    const fp = fingerprintOf(p);
    const list = previousByFingerprint.get(fp);
    if (list) list.push(i);
    else previousByFingerprint.set(fp, [i]);
  });
  current.forEach((c, ci) => {
    if (byCurrent.has(ci)) return;
    const pi = previousByFingerprint.get(fingerprintOf(c))?.shift();
    if (pi !== undefined) byCurrent.set(ci, [pi, ci, "fingerprint"]);
  });
  return [...byCurrent.values()].sort((a, b) => a[1] - b[1]);
}
