import { z } from "zod";
import type { Logger } from "pino";
import type { RedisConnection } from "../runtime/connection.js";
import { DEFAULT_STATE_PREFIX } from "../runtime/connection.js";

/**
 * The audit trail of triage decisions: every decision diffward applies or refuses (a command, a code scanning
 * alert changed in GitHub's UI, an approval request, an approval or rejection, an expiry, the auto-close of a
 * fixed finding) is one entry of one Redis Stream, `<state prefix>:audit` (Redis "Streams": append-only,
 * ordered by entry id, read by id range with XRANGE). An entry id's first part is the Redis server's time of
 * the append in ms, so a time range is an id range and never a scan of the whole stream.
 */

/** What was decided. */
export const AUDIT_ACTIONS = [
  /** a resolution status set (`/wontfix`, `/fp`, `/mitigate`, `/fixed`, a code scanning dismissal) */
  "resolve",
  /** a finding set back to `NOT_STARTED` (`/reopen`, a code scanning alert reopened) */
  "reopen",
  /** a severity override (`/severity`) */
  "severity",
  /** a note added to a finding (`/note`) */
  "note",
  /** a dismissal held for a second person (`triage.approval`) */
  "approval-request",
  "approve",
  "reject",
  /** an acceptance whose expiry came: the finding back to `NOT_STARTED` */
  "expire",
  /** an acceptance's expiry cancelled by a later decision */
  "expiry-cancelled",
  /** a finding the latest scan no longer reports, closed by diffward */
  "auto-close",
  /** a repository's configuration value raised to the organization floor (`enforce:`): `from`, `to`, the key in `detail` */
  "floor-raise",
] as const;

/** Where the decision came from. */
export const AUDIT_SOURCES = [
  "command",
  "code-scanning",
  "approval",
  "expiry",
  "auto-close",
  "service-ui",
  /** the organization's `.github` repository's `.github/diffward.yml`, its `enforce:` */
  "org-floor",
  /** a `diffward-ignore` marker in the pull request's head commit (`suppressions`), for its author */
  "suppression",
] as const;

/**
 * What became of it: `applied` (written to the service), `refused` (not allowed or invalid: nothing written),
 * `held` (waiting for a second person), `skipped` (nothing to do: already in that state, or the finding moved on).
 */
export const AUDIT_OUTCOMES = ["applied", "refused", "held", "skipped"] as const;

/** The most characters kept of a user's text (reason, note, detail): longer text is cut and ends in `…`. */
export const AUDIT_TEXT_MAX = 2_000;

const text = z.string().max(AUDIT_TEXT_MAX + 1);
const login = z.string().min(1).max(100);

/**
 * One audit entry (JSON in the stream's `e` field, one line of the JSON Lines export). Never a token, a
 * password or a secret: logins, ids, states and the user's own reason or note text only.
 */
export const AuditEntry = z.object({
  /** ISO 8601 date-time of the decision */
  time: z.iso.datetime(),
  installationId: z.number().int(),
  /** `owner/name` */
  repository: z.string().regex(/^[^/\s]+\/[^/\s]+$/),
  pullNumber: z.number().int().positive().optional(),
  /** the service's finding id */
  findingId: z.string().max(200).optional(),
  /** the finding's label as shown on GitHub (`SC-12`) */
  findingLabel: z.string().max(200).optional(),
  /** GitHub login of who asked (the commenter, the user who changed the alert, diffward's bot for its own acts) */
  actor: login,
  /** GitHub login of the second person of an approved or rejected dismissal */
  approver: login.optional(),
  action: z.enum(AUDIT_ACTIONS),
  /** the state before: a resolution status, or a severity for `severity` */
  from: z.string().max(64).optional(),
  /** the state asked for or set */
  to: z.string().max(64).optional(),
  /** the reason code and the user's note, or why the decision was refused */
  reason: text.optional(),
  /** ISO 8601 date-time the acceptance ends, when it has one */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  /**
   * the code owners of the finding's file consulted for a two-person dismissal (`triage.approval.codeowners`),
   * as CODEOWNERS names them (`@login`, `@org/team-slug`)
   */
  codeOwners: z.array(z.string().max(200)).max(100).optional(),
  /** why the role rule applied alone when code owners were asked for (no owner, an invalid CODEOWNERS, …) */
  codeOwnersNote: text.optional(),
  source: z.enum(AUDIT_SOURCES),
  outcome: z.enum(AUDIT_OUTCOMES),
  /** anything else worth keeping (the command's text, the alert number) */
  detail: text.optional(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** An entry to append: `time` defaults to the runtime's clock. */
export type AuditEntryInput = Omit<AuditEntry, "time"> & { time?: string };

const DAY_MS = 86_400_000;

/** The audit stream's key under a state prefix (`{dw}:audit`; REDIS_KEYS `audit`). */
export function auditKey(prefix: string = DEFAULT_STATE_PREFIX): string {
  return `${prefix}:audit`;
}

function bounded(s: string | undefined): string | undefined {
  if (s === undefined || s.length <= AUDIT_TEXT_MAX) return s;
  return `${s.slice(0, AUDIT_TEXT_MAX)}…`;
}

/** Which entries to read: a time range (ms since epoch, both ends included) and one repository. */
export interface AuditQuery {
  sinceMs?: number;
  untilMs?: number;
  /** `owner/name`, compared without case (GitHub's names are case-insensitive) */
  repository?: string;
}

/**
 * The times `since` and `until` may name, in ms since epoch (both ends included): an entry id's time is an
 * unsigned count of ms from 1970-01-01T00:00:00Z (Redis "Streams", entry IDs), and ISO 8601's four-digit years
 * end with 9999.
 */
export const AUDIT_TIME_RANGE = { minMs: 0, maxMs: Date.UTC(9999, 11, 31, 23, 59, 59, 999) } as const;

const RANGE_TEXT = `${new Date(AUDIT_TIME_RANGE.minMs).toISOString()} to ${new Date(AUDIT_TIME_RANGE.maxMs).toISOString()}`;

/** `since`/`until`: a date (`YYYY-MM-DD`, UTC) or an ISO 8601 date-time with `Z` or an offset. */
const When = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

/** The parameters of `GET /audit` and `npm run audit:export`, as text (each at most once). */
export const AuditQueryText = z.strictObject({
  since: When.optional(),
  until: When.optional(),
  repository: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be owner/name")
    .optional(),
});
export type AuditQueryText = z.infer<typeof AuditQueryText>;

/**
 * An {@link AuditQuery} from its text: `since` a date means the start of that day (UTC), `until` a date its
 * end (23:59:59.999 UTC), so `since=2026-11-01&until=2026-11-30` is the whole of November. Pure.
 * @returns the query, or `error`: one sentence naming each bad parameter and what it must be (unknown
 * parameters, unreadable dates, a time outside {@link AUDIT_TIME_RANGE}, `since` after `until`).
 */
export function parseAuditQuery(
  text: Record<string, string | undefined>,
): { ok: true; query: AuditQuery } | { ok: false; error: string } {
  const parsed = AuditQueryText.safeParse(text);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) =>
      i.code === "unrecognized_keys"
        ? `unknown parameter ${i.keys.join(", ")} (known: since, until, repository)`
        : `${i.path.join(".")}: ${i.path[0] === "repository" ? i.message : "must be a date (YYYY-MM-DD) or an ISO 8601 date-time"}`,
    );
    return { ok: false, error: why.join("; ") };
  }
  const { since, until, repository } = parsed.data;
  const ms = (s: string, end: boolean) =>
    s.length === 10 ? Date.parse(`${s}T00:00:00Z`) + (end ? DAY_MS - 1 : 0) : Date.parse(s);
  const query: AuditQuery = {
    ...(since ? { sinceMs: ms(since, false) } : {}),
    ...(until ? { untilMs: ms(until, true) } : {}),
    ...(repository ? { repository } : {}),
  };
  const outside = (["since", "until"] as const).filter((name) => {
    const at = name === "since" ? query.sinceMs : query.untilMs;
    return at !== undefined && (at < AUDIT_TIME_RANGE.minMs || at > AUDIT_TIME_RANGE.maxMs);
  });
  if (outside.length > 0)
    return { ok: false, error: outside.map((name) => `${name}: must be within ${RANGE_TEXT}`).join("; ") };
  if (query.sinceMs !== undefined && query.untilMs !== undefined && query.sinceMs > query.untilMs)
    return { ok: false, error: "since must not be after until" };
  return { ok: true, query };
}

/**
 * The Unicode line terminators `JSON.stringify` writes raw: U+0085 (NEL), U+2028 (LINE SEPARATOR) and U+2029
 * (PARAGRAPH SEPARATOR). Readers that split lines by Unicode's rules (JavaScript's line terminators, Python's
 * `str.splitlines`) would cut a JSON Lines entry at them.
 */
const RAW_LINE_BREAKS = /[\u0085\u2028\u2029]/g;

/**
 * One entry as a JSON Lines line: its JSON and `\n`, with every line break in its text escaped (`\n`, `\r` by
 * `JSON.stringify`; {@link RAW_LINE_BREAKS} as `\uXXXX`), so the only line break is the one that ends it.
 */
function auditLine(entry: AuditEntry): string {
  const json = JSON.stringify(entry).replace(
    RAW_LINE_BREAKS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `${json}\n`;
}

/** The entry in a stream entry's fields (`e`: its JSON), or undefined when it is missing or does not parse. */
function entryOf(fields: string[]): AuditEntry | undefined {
  const i = fields.findIndex((f, n) => n % 2 === 0 && f === "e");
  try {
    const parsed = AuditEntry.safeParse(JSON.parse(fields[i + 1] ?? "null"));
    return parsed.success && i >= 0 ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Entries read per XRANGE. */
export const AUDIT_PAGE_SIZE = 500;

/** What appending needs beside Redis: the retention (read at each append), the clock and where failures go. */
export interface AuditAppendOptions {
  /** how long an entry is kept, in ms (`Settings.auditRetentionMs`) */
  retentionMs(): number;
  /** ms since the epoch: an entry's `time` when it has none */
  now(): number;
  /** where a failed append is logged */
  log: Pick<Logger, "warn">;
}

/**
 * The audit stream of one deployment (`<prefix>:audit`, {@link auditKey}): appended by the jobs that decide
 * (through the runtime's stores), read by `GET /audit` and `npm run audit:export`.
 */
export class AuditLog {
  /** the stream's key */
  readonly key: string;

  /** @param append what {@link append} needs; a log built without it only reads (`npm run audit:export`). */
  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string = DEFAULT_STATE_PREFIX,
    private readonly appendOptions?: AuditAppendOptions,
  ) {
    this.key = auditKey(prefix);
  }

  /**
   * Appends one entry to the audit stream: XADD with an id from the Redis server's clock, trimming entries
   * older than the retention (`MINID`, exact) and renewing the key's TTL to the same span, so a quiet stream
   * also ends. The reason and detail are cut to {@link AUDIT_TEXT_MAX} characters.
   * Never throws: a failed append is logged (`{ err }`) and the decision it records stands.
   * @throws {Error} only when the log was built to read only (no {@link AuditAppendOptions}): a wiring bug.
   */
  async append(entry: AuditEntryInput): Promise<void> {
    const opts = this.appendOptions;
    if (!opts) throw new Error("this audit log was built to read only");
    try {
      const now = opts.now();
      const parsed = AuditEntry.parse({
        ...entry,
        time: entry.time ?? new Date(now).toISOString(),
        reason: bounded(entry.reason),
        detail: bounded(entry.detail),
        codeOwnersNote: bounded(entry.codeOwnersNote),
      });
      const retentionMs = opts.retentionMs();
      const minId = Math.max(0, now - retentionMs);
      await this.redis
        .multi()
        .xadd(this.key, "MINID", String(minId), "*", "e", JSON.stringify(parsed))
        .expire(this.key, Math.ceil(retentionMs / 1000))
        .exec();
    } catch (error) {
      opts.log.warn(
        { err: error, action: entry.action, repository: entry.repository },
        "audit entry not appended",
      );
    }
  }

  /**
   * The audit entries of `query`, oldest first, read page by page ({@link AUDIT_PAGE_SIZE} ids per XRANGE,
   * the next page starting after the last id read): the stream is never loaded whole. The time range is the
   * ids' range (the server's time of each append). An entry that does not parse (written by a newer version)
   * is skipped.
   */
  async *read(query: AuditQuery = {}): AsyncGenerator<AuditEntry> {
    const end = query.untilMs === undefined ? "+" : `${query.untilMs}-18446744073709551615`;
    const repository = query.repository?.toLowerCase();
    let start = query.sinceMs === undefined ? "-" : `${query.sinceMs}-0`;
    for (;;) {
      const page = await this.redis.xrange(this.key, start, end, "COUNT", AUDIT_PAGE_SIZE);
      for (const [, fields] of page) {
        const entry = entryOf(fields);
        if (entry && (repository === undefined || entry.repository.toLowerCase() === repository)) yield entry;
      }
      if (page.length < AUDIT_PAGE_SIZE) return;
      start = `(${page[page.length - 1]![0]}`;
    }
  }

  /** The entries of {@link read} as JSON Lines ({@link auditLine}: one JSON object and `\n` each). */
  async *lines(query: AuditQuery): AsyncGenerator<string> {
    for await (const e of this.read(query)) yield auditLine(e);
  }
}
