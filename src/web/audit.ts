import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Logger } from "pino";
import { parseAuditQuery, type AuditLog } from "../stores/audit-log.js";

/** Who may read `GET /audit`: holders of the admin bearer token (`DIFFWARD_ADMIN_TOKEN`). */
export interface AuditAccess {
  token: string;
  /** the audit trail read (`rt.stores.audit`) */
  trail: Pick<AuditLog, "lines">;
}

/** The query parameters of `GET /audit`, each at most once, or the problem with them. */
function queryOf(url: string): { ok: true; text: Record<string, string> } | { ok: false; error: string } {
  const params = new URL(url, "http://localhost").searchParams;
  const text: Record<string, string> = {};
  for (const key of new Set(params.keys())) {
    if (params.getAll(key).length > 1) return { ok: false, error: `${key} is given more than once` };
    text[key] = params.get(key)!;
  }
  return { ok: true, text };
}

/**
 * Answers `GET /audit?since=&until=&repository=`: the audit trail (`src/stores/audit-log.ts`) as JSON Lines
 * (`application/x-ndjson`, one entry a line, oldest first), streamed page by page as Redis gives them, so the
 * stream is never held in memory and a slow reader slows the reads (the response's backpressure).
 * - 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3) without `Authorization: Bearer <DIFFWARD_ADMIN_TOKEN>`
 *   or with another token (`hasBearer`: compared in constant time);
 * - 400 with `{ error }` for a bad query ({@link parseAuditQuery}: unknown parameter, unreadable date, a time
 *   before 1970, `since` after `until`, a malformed repository, a parameter given twice);
 * - a Redis failure before the first line is a 500; after it, the connection is closed (the body is cut
 *   short, never silently complete) and the error logged as `{ err }`.
 */
export async function serveAudit(
  opts: { log: Logger; access: AuditAccess; hasBearer: (token: string) => boolean },
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    void res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  if (!opts.hasBearer(opts.access.token))
    return json(
      401,
      { error: "a bearer token (DIFFWARD_ADMIN_TOKEN) is required" },
      { "www-authenticate": 'Bearer realm="audit"' },
    );
  const text = queryOf(req.url ?? "/");
  const parsed = text.ok ? parseAuditQuery(text.text) : text;
  if (!parsed.ok) return json(400, { error: `bad query: ${parsed.error}` });
  const lines = opts.access.trail.lines(parsed.query);
  let first: IteratorResult<string>;
  try {
    first = await lines.next();
  } catch (error) {
    opts.log.error({ err: error }, "audit trail could not be read");
    return json(500, { error: "the audit trail could not be read" });
  }
  res.writeHead(200, { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" });
  async function* all(): AsyncGenerator<string> {
    if (first.done) return;
    yield first.value;
    yield* lines;
  }
  try {
    await pipeline(Readable.from(all()), res);
  } catch (error) {
    // the reader went away (nothing to answer), or Redis failed mid-stream: the cut body says so
    if (!req.destroyed) opts.log.warn({ err: error }, "audit export ended early");
    res.destroy();
  }
}
