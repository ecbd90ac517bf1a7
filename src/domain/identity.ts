/**
 * Finding identity across pushes.
 *
 * Each push to a pull request runs a new scan, and the service gives its findings new ids when it
 * does not recognise them as the same. diffward pairs a finding of a later scan with an earlier one
 * (a posted comment, a team decision, a severity override, a pending approval) in three steps, each
 * one-to-one and only among what the earlier steps left unpaired:
 *
 * 1. **equal id** (`by: "id"`);
 * 2. **equal fingerprint** (`by: "fingerprint"`), where
 *    ```
 *    fingerprint = sha256_hex( "v2|" + path + "|" + category + "|" + normalizedTitle + "|" + anchor )
 *    ```
 * 3. **service-recognised, same shape** (`by: "recurring"`): the later finding's `triageStatus` is
 *    `RECURRING` or `DUPLICATE` (the service's own verdict that it has seen this finding before; spec
 *    §Finding `triageStatus`), and its shape key
 *    ```
 *    shape = sha256_hex( "shape|" + path + "|" + category + "|" + normalizedTitle )
 *    ```
 *    equals the shape of exactly one unpaired earlier finding, and no other unpaired recognised later
 *    finding has that shape. Ambiguous shapes pair nothing.
 *
 * The parts (spec §Finding (list item): `title`, `location`, `category`
 * are required strings; the spec fixes no location format):
 * - `path` is the path of `parseLocation(location)` (so `./src/a.ts:12` and `src/a.ts#L12` share
 *   `src/a.ts`), or the trimmed raw location when it cannot be parsed;
 * - `category` is the finding's category exactly as the service sends it;
 * - `normalizedTitle` is the **whole** title after Unicode NFKC, lower-cased, runs of whitespace
 *   collapsed to one space, trimmed. Digits, quotes and punctuation are kept: "Hard-coded AWS key on
 *   line 8" and "Hard-coded 'AWS' key on line 240" are two findings (the first rule dropped digits and
 *   quotes and let one false positive close a finding nobody had looked at);
 * - `anchor` is `L<startLine>` from the location (`src/a.ts:12-20` → `L12`), or empty when the
 *   location names no line.
 *
 * **Trade-off.** The code at the location would survive a push that only shifts lines, but diffward
 * does not have it at every place that computes an identity (a command reply, the code scanning alert
 * sync and the SARIF upload see only the finding), and an identity that depends on where it was
 * computed would stop matching. The start line stands in for it: a push that moves a finding changes
 * its fingerprint, and the moved finding keeps its earlier decision only through step 3, that is when
 * the service itself says it has seen it before. A moved finding the service calls `NEW` starts
 * undecided: the team looks at it once more, which is the safe way to be wrong. A finding whose title
 * changes (even only in a number) is a new finding, for the same reason.
 *
 * **Stored identities.** Fingerprints are 64 lower-case hex characters, kept in diffward's hidden
 * comment marker (src/render/inline-comment.ts), in the decisions, overrides and approval requests of
 * a pull request, in the report state and as the SARIF `partialFingerprints` value. Fingerprints of
 * the first rule (sha256 of path, category and the title without digits or quotes; markers
 * `<!-- diffward:finding=ID fp=HEX -->`) are still read, but their input never starts with `v2|`,
 * so they never equal a fingerprint of this rule, and such entries have no shape. As a last step (4),
 * entries of the first rule pair with a later finding whose {@link legacyFingerprint} equals theirs
 * (`by: "fingerprint"`), in input order: diffward's own comments (`legacy: "comment"`) with any later
 * finding, so the comment is refreshed with the new marker instead of a second one being posted; stored
 * decisions, overrides and approval requests (`legacy: "recognised"`) only with a later finding the
 * service triaged `RECURRING`/`DUPLICATE`, so decisions taken before the upgrade are not lost and the
 * first rule alone never closes a finding the service calls new. Entries written from now on carry a
 * shape and never take step 4.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { parseLocation } from "./location.js";
import type { ReportFinding } from "./finding-types.js";

/** The fields an identity is computed from. */
export type FingerprintInput = Pick<ReportFinding, "location" | "category" | "title">;

/** Version of the fingerprint rule in this module; part of the hashed text and of the comment marker. */
export const FINGERPRINT_VERSION = 2;

/**
 * The `triageStatus` values by which the service says it has seen a finding before (spec §Finding
 * `triageStatus`: `RECURRING`, `DUPLICATE`); only such a finding can pair by shape (step 3).
 */
export const RECOGNISED_TRIAGE: readonly string[] = ["RECURRING", "DUPLICATE"];

/** The title as identity sees it: NFKC, lower-case, whitespace runs collapsed, trimmed. Keeps digits and quotes. */
export function normalizeTitle(title: string): string {
  return title.normalize("NFKC").toLowerCase().replace(/\s+/gu, " ").trim();
}

/** The path part of an identity: the parsed path, or the trimmed raw location. */
export function fingerprintPath(location: string): string {
  return parseLocation(location)?.path ?? location.trim();
}

/** The anchor part of a fingerprint: `L<startLine>`, or `""` when the location names no line. */
export function fingerprintAnchor(location: string): string {
  const start = parseLocation(location)?.startLine;
  return start === undefined ? "" : `L${start}`;
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * `sha256("v2|" + path + "|" + category + "|" + normalized title + "|" + anchor)` as 64 lower-case hex
 * characters (rule and trade-off in the module comment). Pure.
 */
export function fingerprint(f: FingerprintInput): string {
  return sha256(
    `v${FINGERPRINT_VERSION}|${fingerprintPath(f.location)}|${f.category}|${normalizeTitle(f.title)}|${fingerprintAnchor(f.location)}`,
  );
}

/**
 * The line-independent shape key: `sha256("shape|" + path + "|" + category + "|" + normalized title)`,
 * 64 lower-case hex characters. Used only with the service's `RECURRING`/`DUPLICATE` triage (step 3 in
 * the module comment): on its own it would merge two findings of the same title in one file. Pure.
 */
export function shapeKey(f: FingerprintInput): string {
  return sha256(`shape|${fingerprintPath(f.location)}|${f.category}|${normalizeTitle(f.title)}`);
}

/**
 * The first rule's fingerprint: `sha256(path + "|" + category + "|" + title)` with the title NFKC,
 * lower-cased, digits and quote characters removed, other punctuation and symbols as spaces, whitespace
 * collapsed. Read-only bridge for comments posted before version 2 (module comment); never stored.
 */
export function legacyFingerprint(f: FingerprintInput): string {
  const title = f.title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/['"`\u2018-\u201F\u00AB\u00BB\u2039\u203A\u300C-\u300F\uFF02\uFF07]/gu, "")
    .replace(/\p{N}/gu, "")
    .replace(/[\p{P}\p{S}]/gu, " ")
    .replace(/\s+/gu, " ")
    .trim();
  return sha256(`${fingerprintPath(f.location)}|${f.category}|${title}`);
}

/** Both stored parts of an identity. */
export interface FindingIdentity {
  /** {@link fingerprint} */
  fingerprint: string;
  /** {@link shapeKey} */
  shape: string;
}

/** The fingerprint and shape key of `f`. Pure. */
export function identityOf(f: FingerprintInput): FindingIdentity {
  return { fingerprint: fingerprint(f), shape: shapeKey(f) };
}

/**
 * A stored decision, severity override or approval request as identity sees it (pure): its finding's id,
 * fingerprint and shape key; an entry written before the shape existed has none and is marked
 * `legacy: "recognised"` (module comment, step 4: it pairs by the first rule only with a finding the service
 * triaged `RECURRING`/`DUPLICATE`).
 */
export function storedIdentity(e: { findingId: string; fingerprint: string; shape?: string | undefined }) {
  return {
    id: e.findingId,
    fingerprint: e.fingerprint,
    shape: e.shape,
    legacy: e.shape === undefined ? ("recognised" as const) : undefined,
  };
}

/**
 * The identity fields every stored entry keyed to a finding carries (decisions, severity overrides,
 * approval requests), as zod fields to spread into their schemas: `findingId`, `fingerprint` (64 hex
 * characters, identity across pushes) and `shape` (the line-independent shape key, {@link shapeKey};
 * absent in entries written before it). Read them back with {@link storedIdentity}.
 */
export const STORED_IDENTITY_FIELDS = {
  findingId: z.string().min(1),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
  shape: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
};

/**
 * A finding as identity sees it: its id, plus either a stored fingerprint (and shape key, absent in
 * entries written before the shape existed) or the fields to compute them; `triageStatus` for a later
 * finding that may pair by shape.
 */
export type Identifiable = {
  id: string;
  triageStatus?: string;
  /** an entry stored under the first rule (module comment, step 4) */
  legacy?: "comment" | "recognised" | undefined;
} & ({ fingerprint: string; shape?: string | undefined } | FingerprintInput);

/** How a pair was made (module comment, steps 1 to 3). */
export type MatchedBy = "id" | "fingerprint" | "recurring";

/** One match of {@link matchFindings}. */
export interface FindingMatch<P, C> {
  previous: P;
  current: C;
  /** `id` when the ids are equal, `fingerprint` when only the fingerprints are, `recurring` by shape */
  by: MatchedBy;
}

/** The fingerprint of `f`: the stored one when present, else computed. */
export function fingerprintOf(f: Identifiable): string {
  return "fingerprint" in f && typeof f.fingerprint === "string"
    ? f.fingerprint
    : fingerprint(f as FingerprintInput);
}

/** The shape key of `f`: the stored one, else computed from its fields, else `undefined` (an older entry). */
export function shapeOf(f: Identifiable): string | undefined {
  if ("shape" in f && typeof f.shape === "string") return f.shape;
  if ("location" in f && typeof f.location === "string" && "title" in f) return shapeKey(f);
  return undefined;
}

/**
 * Pairs findings of an earlier scan (`previous`, e.g. read back from diffward's comment markers or a
 * pull request's decisions) with findings of a later scan (`current`) by the identity rule: equal id,
 * then equal fingerprint, then (for a `current` finding the service triaged `RECURRING`/`DUPLICATE`)
 * an unambiguous equal shape key. Matching is one-to-one: each finding appears in at most one pair;
 * when several findings share a fingerprint they pair in input order. Pairs come in the order of
 * `current`.
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
): [number, number, MatchedBy][] {
  const byCurrent = new Map<number, [number, number, MatchedBy]>();
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
    if (pi === undefined) return;
    usedPrevious.add(pi);
    byCurrent.set(ci, [pi, ci, "fingerprint"]);
  });
  // Step 3: service-recognised findings by shape, only where the shape names one finding on each side.
  const previousByShape = new Map<string, number[]>();
  previous.forEach((p, i) => {
    const shape = usedPrevious.has(i) ? undefined : shapeOf(p);
    if (shape !== undefined) previousByShape.set(shape, [...(previousByShape.get(shape) ?? []), i]);
  });
  const currentByShape = new Map<string, number[]>();
  current.forEach((c, ci) => {
    if (byCurrent.has(ci) || !RECOGNISED_TRIAGE.includes(c.triageStatus ?? "")) return;
    const shape = shapeOf(c);
    if (shape !== undefined) currentByShape.set(shape, [...(currentByShape.get(shape) ?? []), ci]);
  });
  for (const [shape, cis] of currentByShape) {
    const pis = previousByShape.get(shape);
    if (cis.length === 1 && pis?.length === 1) {
      byCurrent.set(cis[0]!, [pis[0]!, cis[0]!, "recurring"]);
      usedPrevious.add(pis[0]!);
    }
  }
  // Step 4: entries of the first rule (`legacy`), by the first rule's fingerprint, in order.
  const legacyByFingerprint = new Map<string, number[]>();
  previous.forEach((p, i) => {
    if (!p.legacy || usedPrevious.has(i)) return;
    const fp = fingerprintOf(p);
    legacyByFingerprint.set(fp, [...(legacyByFingerprint.get(fp) ?? []), i]);
  });
  if (legacyByFingerprint.size > 0) {
    current.forEach((c, ci) => {
      if (byCurrent.has(ci) || !("location" in c) || typeof c.location !== "string") return;
      const recognised = RECOGNISED_TRIAGE.includes(c.triageStatus ?? "");
      const list = legacyByFingerprint.get(legacyFingerprint(c));
      const at = list?.findIndex((pi) => recognised || previous[pi]!.legacy === "comment") ?? -1;
      if (at < 0) return;
      const [pi] = list!.splice(at, 1);
      byCurrent.set(ci, [pi!, ci, "fingerprint"]);
    });
  }
  return [...byCurrent.values()].sort((a, b) => a[1] - b[1]);
}
