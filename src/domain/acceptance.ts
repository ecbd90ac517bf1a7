/**
 * Acceptances that expire, the pure rules: `/wontfix <reason or note> until <date>` or `… for <N>d` (and the
 * same for `/mitigate`) accepts a finding's risk until a moment, after which diffward sets it back to
 * `NOT_STARTED` (README "Triage from the pull request", "Acceptances that expire").
 *
 * - The clause ends the command line: `until <YYYY-MM-DD>` (the end of that day, UTC: 23:59:59.999Z),
 *   `until <ISO 8601 date-time with Z or an offset>` (a time without an offset is ambiguous and refused), or
 *   `for <N>d` (N whole days from the command's time).
 * - Strict: an unparseable date, a moment already past, or one more than `triage.maxAcceptanceDays` days
 *   ahead is refused with the rule, and nothing is changed.
 * - `triage.requireExpiry` lists the statuses (`WONT_FIX`, `MITIGATED`) whose acceptance must carry one.
 * - The expiry is written into the service's note in a parseable line ({@link acceptanceLine}), so it can be
 *   rebuilt from the service after diffward's Redis state is lost ({@link parseAcceptanceLine}).
 */
import { z } from "zod";
import { ACCEPTANCE_STATUSES, type AcceptanceStatus } from "../config/repo-config.js";

export { ACCEPTANCE_STATUSES, type AcceptanceStatus } from "../config/repo-config.js";

/** Default of `triage.maxAcceptanceDays`: the longest expiry, in days, an acceptance may carry. */
export const DEFAULT_MAX_ACCEPTANCE_DAYS = 365;

const DAY_MS = 24 * 3600_000;

/** True for the statuses an expiry may be set on (`WONT_FIX`, `MITIGATED`). */
export function isAcceptance(status: string): status is AcceptanceStatus {
  return (ACCEPTANCE_STATUSES as readonly string[]).includes(status);
}

/**
 * An expiry as typed, before it is checked against the clock: `until` an absolute moment (ISO 8601, already
 * normalized to UTC), or `for` a number of days.
 */
export const ExpirySpec = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("until"),
    /** the moment, ISO 8601 UTC (`toISOString()`) */
    at: z.string(),
    /** what the user typed, for answers */
    typed: z.string(),
  }),
  z.object({ kind: z.literal("for"), days: z.number().int().positive(), typed: z.string() }),
]);
export type ExpirySpec = z.infer<typeof ExpirySpec>;

/** The split of a command line into its text and its expiry clause. */
export type ExpiryClause =
  | { kind: "none" }
  | { kind: "ok"; text: string; spec: ExpirySpec }
  | { kind: "invalid"; text: string; message: string };

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})$/i;

/** The rule stated in every refusal of a malformed expiry. */
export const EXPIRY_SYNTAX =
  "`until YYYY-MM-DD` (the end of that day, UTC), `until YYYY-MM-DDTHH:MM[:SS]Z` (or with an offset such as `+02:00`), or `for <N>d`";

/**
 * Finds the expiry clause at the end of a command line (pure). `until <token>` always is one (an
 * unparseable token is `invalid`); `for <token>` is one when the token starts with a digit (`for 30d`;
 * `for 3w` is `invalid`), so a note ending "… for review" stays a note.
 */
export function splitExpiryClause(line: string): ExpiryClause {
  const m = /(?:^|\s)(until|for)\s+(\S+)\s*$/i.exec(line);
  if (!m) return { kind: "none" };
  const word = m[1]!.toLowerCase();
  const token = m[2]!.replace(/[.,;]$/, "");
  const text = line.slice(0, m.index).trim();
  if (word === "for") {
    if (!/^\d/.test(token)) return { kind: "none" };
    const days = /^(\d{1,5})d$/i.exec(token);
    if (!days || Number(days[1]) === 0)
      return {
        kind: "invalid",
        text,
        message: `\`for ${echoToken(token)}\` is not a number of days: use ${EXPIRY_SYNTAX}.`,
      };
    return { kind: "ok", text, spec: { kind: "for", days: Number(days[1]), typed: `for ${token}` } };
  }
  const at = parseExpiryDate(token);
  if (!at)
    return {
      kind: "invalid",
      text,
      message: `\`until ${echoToken(token)}\` is not a date diffward can read: use ${EXPIRY_SYNTAX}.`,
    };
  return { kind: "ok", text, spec: { kind: "until", at, typed: `until ${token}` } };
}

/**
 * A typed date as an ISO 8601 UTC moment, or `undefined` when it is not one (pure). A date alone is the end
 * of that day, UTC (`23:59:59.999Z`); a date-time needs `Z` or an offset. Calendar dates are checked (no
 * 2027-02-30, no hour 24).
 */
export function parseExpiryDate(token: string): string | undefined {
  const d = DATE_ONLY.exec(token);
  if (d) {
    const [y, mo, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
    const at = new Date(Date.UTC(y, mo - 1, day, 23, 59, 59, 999));
    return validDay(at, y, mo, day) ? at.toISOString() : undefined;
  }
  const t = DATE_TIME.exec(token);
  if (!t) return undefined;
  const [y, mo, day, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(t[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!validDay(new Date(Date.UTC(y, mo - 1, day)), y, mo, day) || h > 23 || mi > 59 || s > 59)
    return undefined;
  const ms = Date.parse(token.toUpperCase());
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

function validDay(at: Date, y: number, mo: number, day: number): boolean {
  return at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === day;
}

function echoToken(token: string): string {
  const t = token.replace(/`/g, "'");
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}

/** The acceptance limits of a repository (`triage.maxAcceptanceDays`, `triage.requireExpiry`). */
export interface AcceptanceRules {
  maxAcceptanceDays: number;
  requireExpiry: readonly AcceptanceStatus[];
}

/** The defaults of {@link AcceptanceRules} (no config, or an invalid one). */
export const DEFAULT_ACCEPTANCE_RULES: AcceptanceRules = {
  maxAcceptanceDays: DEFAULT_MAX_ACCEPTANCE_DAYS,
  requireExpiry: [],
};

/** An expiry checked against the clock and the rules: the moment, or why it is refused. */
export type ResolvedExpiry = { ok: true; expiresAt?: string } | { ok: false; why: string };

/**
 * Checks an acceptance's expiry against `now` (ms since epoch) and the rules (pure): a status outside
 * {@link ACCEPTANCE_STATUSES} takes none; `requireExpiry` makes one mandatory; the moment must be after
 * `now` and at most `maxAcceptanceDays` days after it. `why` states the rule.
 */
export function resolveExpiry(
  status: string,
  spec: ExpirySpec | undefined,
  now: number,
  rules: AcceptanceRules,
): ResolvedExpiry {
  if (!isAcceptance(status)) return { ok: true };
  if (!spec) {
    if (!rules.requireExpiry.includes(status)) return { ok: true };
    return {
      ok: false,
      why: `this repository requires an expiry on this status (\`triage.requireExpiry\`): add ${EXPIRY_SYNTAX}, at most ${rules.maxAcceptanceDays} days ahead`,
    };
  }
  const at = spec.kind === "for" ? now + spec.days * DAY_MS : Date.parse(spec.at);
  if (at <= now)
    return { ok: false, why: `\`${spec.typed}\` is in the past: an expiry must be a moment after now` };
  if (at - now > rules.maxAcceptanceDays * DAY_MS)
    return {
      ok: false,
      why: `\`${spec.typed}\` is more than ${rules.maxAcceptanceDays} days ahead (\`triage.maxAcceptanceDays\`): choose an earlier date`,
    };
  return { ok: true, expiresAt: new Date(at).toISOString() };
}

/** "2027-03-31" for an end-of-day moment, else the full moment in UTC without milliseconds ("2027-03-31 14:00:00 UTC"). */
export function expiryText(expiresAt: string): string {
  if (expiresAt.endsWith("T23:59:59.999Z")) return expiresAt.slice(0, 10);
  return `${expiresAt.slice(0, 10)} ${expiresAt.slice(11, 19)} UTC`;
}

/**
 * The parseable line written into the service's note of an acceptance with an expiry, e.g.
 * `Accepted until 2027-03-31T23:59:59.999Z by @alice (diffward).` {@link parseAcceptanceLine} reads it back.
 */
export function acceptanceLine(expiresAt: string, by: string): string {
  return `Accepted until ${expiresAt} by @${by} (diffward).`;
}

const LINE =
  /Accepted until (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z) by @([A-Za-z0-9-]+(?:\[bot\])?) \(diffward\)\./;

/** The expiry and its author written by {@link acceptanceLine} in a note, or `undefined`. Pure. */
export function parseAcceptanceLine(note: string): { expiresAt: string; by: string } | undefined {
  const m = LINE.exec(note);
  if (!m || !Number.isFinite(Date.parse(m[1]!))) return undefined;
  return { expiresAt: new Date(Date.parse(m[1]!)).toISOString(), by: m[2]! };
}

/** True for a note written by {@link expiredNote}. Pure. */
export function isExpiredNote(note: string): boolean {
  return /^Risk acceptance by @\S+ expired on .*\(diffward\)\.$/m.test(note);
}

/** The note of an expired acceptance ("Risk acceptance by @alice expired on 2027-03-31 …"). */
export function expiredNote(by: string, expiresAt: string, status: string): string {
  return (
    `Risk acceptance by @${by} expired on ${expiryText(expiresAt)}: the finding was ${status} and is ` +
    "NOT_STARTED again (diffward)."
  );
}
