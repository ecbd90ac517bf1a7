import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { RedisConnection } from "./connection.js";

/**
 * GitHub's documented limits on content-creating requests (POST, PATCH, PUT, DELETE) of one installation
 * (docs: REST API "Rate limits for the REST API" → "About secondary rate limits": "no more than 80
 * content-generating requests per minute and no more than 500 content-generating requests per hour";
 * "Best practices for using the REST API" → "Avoid concurrent requests" / "Pause between mutative requests":
 * "wait at least one second between each request").
 */
export interface LaneLimits {
  /** least time between two writes of one installation, in ms (GitHub: 1,000) */
  minGapMs: number;
  /** content-creating requests per rolling minute (GitHub: 80) */
  perMinute: number;
  /** content-creating requests per rolling hour (GitHub: 500) */
  perHour: number;
}

/** GitHub's figures ({@link LaneLimits}). */
export const GITHUB_WRITE_LIMITS: LaneLimits = { minGapMs: 1_000, perMinute: 80, perHour: 500 };

/**
 * The order in which one installation's waiting writes are granted (lower first): completing a check run,
 * creating the check run of a pull request that has none, other check-run changes, reviews and comments,
 * progress (the reasons: `WRITE_PRIORITY` in src/github/writes.ts).
 */
export const LANE_PRIORITY = { complete: 0, create: 1, update: 2, review: 3, progress: 4 } as const;
export type LanePriority = keyof typeof LANE_PRIORITY;

/** What a write asks of the lane. */
export interface LaneRequest {
  priority: LanePriority;
  /**
   * The check run this write updates: a pending coalescible update of the same check run is taken over by
   * this one (its fields merged under this write's, "latest wins"), whatever process queued it.
   */
  checkRunId?: number;
  /** this write may itself be taken over by a later update of the same check run (no annotations, no conclusion) */
  coalescible?: boolean;
  /** the write's fields (a check-run update), stored in Redis while pending so a later one can merge them */
  fields?: Record<string, unknown>;
  /** only when the installation's lane is idle (no write waiting); otherwise the write is skipped */
  onlyWhenIdle?: boolean;
}

/** How the lane answered a {@link LaneRequest}. */
export type LaneGrant =
  /** send now; `fields` are the write's fields with those of the pending writes it took over merged under them */
  | { kind: "granted"; fields?: Record<string, unknown> }
  /** a later update of the same check run took this write's place */
  | { kind: "coalesced" }
  /** not sent: the lane was busy (`onlyWhenIdle`) */
  | { kind: "skipped" };

/**
 * Lua shared by {@link ENQUEUE} and {@link ACQUIRE}: forget the waiters whose process stopped refreshing them
 * (their `alive` deadline, in ms since the epoch, passed). Reads the locals `q`, `alive`, `fate`, `cr`, `crof`,
 * `payload` and `now` that both scripts define.
 */
const FORGET_DEAD_WAITERS = `-- forget waiters whose process stopped refreshing them
local dead = redis.call('ZRANGEBYSCORE', alive, '-inf', now)
for _, d in ipairs(dead) do
  redis.call('ZREM', q, d); redis.call('ZREM', alive, d); redis.call('HSET', fate, d, 'expired')
  local c = redis.call('HGET', crof, d)
  if c then redis.call('HDEL', crof, d); if redis.call('HGET', cr, c) == d then redis.call('HDEL', cr, c) end end
  redis.call('HDEL', payload, d)
end`;

/**
 * Lua shared by {@link ENQUEUE} and {@link ACQUIRE}: the waiting writes' keys end with the last waiter. Every
 * call refreshes their expiry to twice the waiters' ttl (each waiting process calls {@link ACQUIRE} at least
 * once a second), so a lane whose processes all died with writes waiting is gone by itself, even when nothing
 * is ever written for the installation again; `fate` is read back within the hour.
 */
const KEEP_WAITING_KEYS = `-- the waiting writes' keys outlive the last waiter by one ttl at most
for _, k in ipairs({q, alive, cr, payload, crof}) do redis.call('PEXPIRE', k, 2 * ttl) end
redis.call('PEXPIRE', fate, 3600000)`;

const ENQUEUE = `
local q, alive, seq, fate, cr, payload, crof = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local ticket, prio, ttl, crid, coal, fields, idle = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
${FORGET_DEAD_WAITERS}
${KEEP_WAITING_KEYS}
if idle == '1' and redis.call('ZCARD', q) > 0 then return {'skipped', ''} end
local old = ''
if crid ~= '' then
  local prev = redis.call('HGET', cr, crid)
  if prev and redis.call('ZSCORE', q, prev) then
    local pscore = tonumber(redis.call('ZSCORE', q, prev))
    local pprio = math.floor(pscore / 1e12)
    if pprio < prio then prio = pprio end
    old = redis.call('HGET', payload, prev) or ''
    redis.call('ZREM', q, prev); redis.call('ZREM', alive, prev)
    redis.call('HSET', fate, prev, 'coalesced'); redis.call('HDEL', payload, prev); redis.call('HDEL', crof, prev)
  end
  redis.call('HDEL', cr, crid)
end
local n = redis.call('INCR', seq)
-- the order counter outlives every waiter (each refreshed within seconds) by far; idle for a day, it goes
redis.call('PEXPIRE', seq, 86400000)
redis.call('ZADD', q, prio * 1e12 + n, ticket)
redis.call('ZADD', alive, now + ttl, ticket)
if coal == '1' and crid ~= '' then
  local merged = fields
  if old ~= '' then
    local o = cjson.decode(old)
    local f = cjson.decode(fields)
    for k, v in pairs(o) do if f[k] == nil then f[k] = v end end
    merged = cjson.encode(f)
  end
  redis.call('HSET', cr, crid, ticket); redis.call('HSET', crof, ticket, crid); redis.call('HSET', payload, ticket, merged)
end
${KEEP_WAITING_KEYS}
return {'queued', old, tostring(prio * 1e12 + n)}
`;

const ACQUIRE = `
local q, alive, sent, fate, cr, payload, crof = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local ticket, ttl, gap, perMin, perHour = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- refresh this process's waiters; report the ones that left the queue (taken over or expired)
local gone = {}
for i = 6, #ARGV do
  local w = ARGV[i]
  if redis.call('ZSCORE', q, w) then redis.call('ZADD', alive, now + ttl, w)
  else
    local f = redis.call('HGET', fate, w)
    if f then redis.call('HDEL', fate, w) end
    table.insert(gone, w); table.insert(gone, f or 'expired')
  end
end
${FORGET_DEAD_WAITERS}
${KEEP_WAITING_KEYS}
local head = redis.call('ZRANGE', q, 0, 0)[1]
if head ~= ticket then return {'wait', '50', unpack(gone)} end
redis.call('ZREMRANGEBYSCORE', sent, '-inf', now - 3600000)
local wait = 0
local last = redis.call('ZREVRANGE', sent, 0, 0, 'WITHSCORES')
if last[2] then wait = math.max(wait, tonumber(last[2]) + gap - now) end
local inMinute = redis.call('ZCOUNT', sent, now - 60000, '+inf')
if inMinute >= perMin then
  local s = redis.call('ZRANGEBYSCORE', sent, now - 60000, '+inf', 'WITHSCORES', 'LIMIT', inMinute - perMin, 1)
  wait = math.max(wait, tonumber(s[2]) + 60000 - now)
end
local inHour = redis.call('ZCARD', sent)
if inHour >= perHour then
  local s = redis.call('ZRANGE', sent, inHour - perHour, inHour - perHour, 'WITHSCORES')
  wait = math.max(wait, tonumber(s[2]) + 3600000 - now)
end
if wait > 0 then return {'wait', tostring(wait), unpack(gone)} end
redis.call('ZREM', q, ticket); redis.call('ZREM', alive, ticket)
redis.call('ZADD', sent, now, now .. ':' .. ticket)
redis.call('PEXPIRE', sent, 3700000)
local fields = redis.call('HGET', payload, ticket) or ''
redis.call('HDEL', payload, ticket)
local c = redis.call('HGET', crof, ticket)
if c then redis.call('HDEL', crof, ticket); if redis.call('HGET', cr, c) == ticket then redis.call('HDEL', cr, c) end end
return {'granted', fields, unpack(gone)}
`;

const USAGE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {redis.call('ZCOUNT', KEYS[1], now - 3600000, '+inf'), redis.call('ZCARD', KEYS[2])}
`;

interface Waiter {
  ticket: string;
  /** priority then arrival in this process: the local order of asking */
  rank: number;
  resolve(g: LaneGrant): void;
  reject(e: unknown): void;
  request: LaneRequest;
}

/** A write granted by the lane in this async context (one request may use it). */
const granted = new AsyncLocalStorage<{ installationId: number; used: boolean }>();

/**
 * One write lane per installation, shared by every diffward process through Redis, because GitHub's secondary
 * rate limits count per installation, not per process
 * (https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits).
 * Writes wait in a Redis sorted set ordered by {@link LANE_PRIORITY}, then arrival; a write is granted only
 * when it heads that set and the installation's last write was at least `minGapMs` ago, with fewer than
 * `perMinute` writes in the last minute and `perHour` in the last hour ({@link GITHUB_WRITE_LIMITS}); each
 * check is one Lua script, so two processes never both take a slot. A pending coalescible update of a check
 * run is taken over by a later update of the same check run (its fields merged under the later one's). A
 * waiter whose process stops refreshing it (crash) is forgotten after `ttlMs`.
 *
 * Every key of an installation's lane starts with `prefix` (diffward's state prefix, a cluster hash tag),
 * so each script's keys share one Redis Cluster slot.
 */
export class WriteLane {
  /** called for each granted write with how long it waited, in ms (metrics: `diffward_write_lane_wait_seconds`) */
  onGrant?: (waitedMs: number, priority: LanePriority) => void;
  readonly #local = new Map<number, Waiter[]>();
  readonly #running = new Set<number>();
  #closed = false;
  #paced = true;

  constructor(
    readonly redis: RedisConnection,
    readonly prefix: string,
    readonly limits: LaneLimits = GITHUB_WRITE_LIMITS,
    /** how long a waiter survives its process's silence, in ms */
    readonly ttlMs = 15_000,
  ) {}

  #keys(installationId: number): string[] {
    const k = (s: string) => `${this.prefix}:lane:${installationId}:${s}`;
    return [k("q"), k("alive"), k("seq"), k("fate"), k("cr"), k("payload"), k("crof"), k("sent")];
  }

  /**
   * Waits for the installation's next write slot for this request (see the class). Resolves `granted`
   * (then send the write at once), `coalesced` or `skipped`.
   * @throws Redis errors; `Error("write lane closed")` after {@link close}.
   */
  async acquire(installationId: number, request: LaneRequest): Promise<LaneGrant> {
    if (this.#closed) throw new Error("write lane closed");
    const ticket = randomUUID();
    const [q, alive, seq, fate, cr, payload, crof] = this.#keys(installationId);
    const res = (await this.redis.eval(
      ENQUEUE,
      7,
      q!,
      alive!,
      seq!,
      fate!,
      cr!,
      payload!,
      crof!,
      ticket,
      String(LANE_PRIORITY[request.priority]),
      String(this.ttlMs),
      request.checkRunId !== undefined ? String(request.checkRunId) : "",
      request.coalescible && request.checkRunId !== undefined ? "1" : "0",
      JSON.stringify(request.fields ?? {}),
      request.onlyWhenIdle ? "1" : "0",
    )) as [string, string, string?];
    if (res[0] === "skipped") return { kind: "skipped" };
    const rank = Number(res[2]);
    const taken = res[1] ? fromLua(res[1]) : undefined;
    const grant = await new Promise<LaneGrant>((resolve, reject) => {
      const list = this.#local.get(installationId) ?? [];
      list.push({
        ticket,
        rank,
        resolve,
        reject,
        request,
      });
      this.#local.set(installationId, list);
      this.#run(installationId);
    });
    if (grant.kind !== "granted") return grant;
    const base = request.coalescible ? (grant.fields ?? taken) : taken;
    return base || request.fields
      ? { kind: "granted", fields: { ...base, ...request.fields } }
      : { kind: "granted" };
  }

  /**
   * Runs `send` inside a slot of the installation's lane (see {@link acquire}); a request Octokit makes
   * inside `send` uses that slot ({@link grantedHere}).
   */
  async run<T>(
    installationId: number,
    request: LaneRequest,
    send: (fields: Record<string, unknown> | undefined) => Promise<T>,
  ): Promise<T | Exclude<LaneGrant, { kind: "granted" }>> {
    const asked = Date.now();
    const g = await this.acquire(installationId, request);
    if (g.kind !== "granted") return g;
    this.onGrant?.(Date.now() - asked, request.priority);
    return granted.run({ installationId, used: false }, () => send(g.fields));
  }

  /**
   * Turns pacing off (`false`) or on: without pacing the lane keeps its priority order and coalescing but
   * grants at once, whatever the minimum gap and the per-minute and per-hour counts. For an Octokit whose
   * throttling is off (tests), as Octokit's own write pacing would be.
   */
  pacing(on: boolean): void {
    this.#paced = on;
  }

  /** Writes sent for the installation in the last hour, and writes waiting now (all processes). */
  async usage(installationId: number): Promise<{ lastHour: number; waiting: number }> {
    const keys = this.#keys(installationId);
    const [lastHour, waiting] = (await this.redis.eval(USAGE, 2, keys[7]!, keys[0]!)) as [number, number];
    return { lastHour, waiting };
  }

  /** Stops granting: waiters of this process are rejected. */
  close(): void {
    this.#closed = true;
    for (const list of this.#local.values())
      for (const w of list.splice(0)) w.reject(new Error("write lane closed"));
  }

  #run(installationId: number): void {
    if (this.#running.has(installationId)) return;
    this.#running.add(installationId);
    void this.#loop(installationId).finally(() => {
      this.#running.delete(installationId);
      if ((this.#local.get(installationId)?.length ?? 0) > 0 && !this.#closed) this.#run(installationId);
    });
  }

  async #loop(installationId: number): Promise<void> {
    const keys = this.#keys(installationId);
    const list = () => this.#local.get(installationId) ?? [];
    const remove = (w: Waiter) => {
      const l = list();
      const i = l.indexOf(w);
      if (i >= 0) l.splice(i, 1);
    };
    while (!this.#closed && list().length > 0) {
      const waiters = [...list()].sort((a, b) => a.rank - b.rank);
      const head = waiters[0]!;
      let res: string[];
      try {
        res = (await this.redis.eval(
          ACQUIRE,
          7,
          keys[0]!,
          keys[1]!,
          keys[7]!,
          keys[3]!,
          keys[4]!,
          keys[5]!,
          keys[6]!,
          head.ticket,
          String(this.ttlMs),
          String(this.#paced ? this.limits.minGapMs : 0),
          String(this.#paced ? this.limits.perMinute : Number.MAX_SAFE_INTEGER),
          String(this.#paced ? this.limits.perHour : Number.MAX_SAFE_INTEGER),
          ...waiters.map((w) => w.ticket),
        )) as string[];
      } catch (error) {
        for (const w of list().splice(0)) w.reject(error);
        return;
      }
      const [verdict, arg, ...gone] = res;
      for (let i = 0; i < gone.length; i += 2) {
        const w = waiters.find((x) => x.ticket === gone[i]);
        if (!w) continue;
        remove(w);
        if (gone[i + 1] === "coalesced") w.resolve({ kind: "coalesced" });
        else void this.#requeue(installationId, w);
      }
      if (verdict === "granted") {
        remove(head);
        head.resolve({ kind: "granted", ...(arg ? { fields: fromLua(arg) } : {}) });
        continue;
      }
      if (gone.some((t, i) => i % 2 === 0 && t === head.ticket)) continue;
      await sleep(Math.min(Number(arg ?? 50), 1_000));
    }
  }

  /** A waiter forgotten while its process stalled past `ttlMs` asks again (same request). */
  async #requeue(installationId: number, w: Waiter): Promise<void> {
    try {
      w.resolve(await this.acquire(installationId, w.request));
    } catch (error) {
      w.reject(error);
    }
  }
}

/**
 * Whether a content-creating request about to be sent for `installationId` was already granted a slot by
 * {@link WriteLane.run} in this async context; the first request of a grant uses it (returns true), any
 * later one (a second request inside the same `send`) must ask the lane itself.
 */
export function grantedHere(installationId: number): boolean {
  const g = granted.getStore();
  if (!g || g.installationId !== installationId || g.used) return false;
  g.used = true;
  return true;
}

/**
 * Fields stored by the Lua scripts: Redis's cjson writes an empty array as `{}`; the check-run fields that
 * are arrays (`actions`, where `[]` removes every button) get their empty array back.
 */
function fromLua(json: string): Record<string, unknown> {
  const f = JSON.parse(json) as Record<string, unknown>;
  const empty = (v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;
  if (empty(f.actions)) f.actions = [];
  const out = f.output as Record<string, unknown> | undefined;
  if (out && empty(out.annotations)) delete out.annotations;
  return f;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
