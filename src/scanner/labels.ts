/**
 * Finding labels (spec §Finding label): the last eight characters of a finding id, optionally preceded
 * by a two-letter prefix named after the service and a hyphen, e.g. `SC-1a2b3c4d`. Every finding
 * endpoint accepts the full id or a label in its `findingId` path parameter.
 */

export const LABEL_LENGTH = 8;

/**
 * The default two-letter prefix diffward prints before labels. The spec names the prefix after the
 * service without giving it; `SCANNER_LABEL_PREFIX` overrides it. Parsing accepts any two letters.
 */
export const DEFAULT_LABEL_PREFIX = "SC";

/** The short label of a finding id: `PREFIX-xxxxxxxx`, or the bare eight characters when `prefix` is "". */
export function findingLabel(id: string, prefix: string = DEFAULT_LABEL_PREFIX): string {
  const short = id.slice(-LABEL_LENGTH);
  return prefix ? `${prefix}-${short}` : short;
}

/** How a user named a finding. */
export type FindingRef =
  | {
      kind: "label";
      /** the eight characters */ short: string;
      /** the two-letter prefix typed, if any */ prefix?: string;
    }
  | { kind: "id"; id: string };

const PREFIXED = /^([A-Za-z]{2})-([A-Za-z0-9_]{8})$/;
const BARE = /^[A-Za-z0-9_]{8}$/;
const FULL_ID = /^[A-Za-z0-9_-]{9,128}$/;

/**
 * Parses `XX-1a2b3c4d`, a bare eight-character label, or a full id (9 to 128 characters of
 * `[A-Za-z0-9_-]`). Returns `undefined` for anything else (empty text, spaces, punctuation).
 */
export function parseFindingRef(text: string): FindingRef | undefined {
  const t = text.trim();
  const m = PREFIXED.exec(t);
  if (m) return { kind: "label", short: m[2]!, prefix: m[1]!.toUpperCase() };
  if (BARE.test(t)) return { kind: "label", short: t };
  if (FULL_ID.test(t)) return { kind: "id", id: t };
  return undefined;
}

/** The value to put in the `findingId` path parameter for a parsed reference. */
export function findingRefParam(ref: FindingRef, prefix: string = DEFAULT_LABEL_PREFIX): string {
  if (ref.kind === "id") return ref.id;
  return `${ref.prefix ?? prefix}-${ref.short}`;
}

/** True when `id` (a full finding id) is named by `ref`. */
export function refMatchesId(ref: FindingRef, id: string): boolean {
  return ref.kind === "id" ? ref.id === id : id.endsWith(ref.short) && id.length >= LABEL_LENGTH;
}
