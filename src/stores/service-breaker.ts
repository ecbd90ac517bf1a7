import { DEFAULT_STATE_PREFIX, type RedisConnection } from "../runtime/connection.js";

/**
 * What a job may do before sending requests to a service tenant (one scanner token):
 * - `closed`: the service answered last time; send as usual;
 * - `probe`: the breaker is half-open and this caller holds the one probe across all processes: send one
 *   request, then report it ({@link ServiceBreaker.recordSuccess} or {@link ServiceBreaker.recordFailure});
 * - `wait`: the breaker is open (or another process is probing): send nothing before `untilMs` (ms since epoch).
 */
export type Admission = { kind: "closed" } | { kind: "probe" } | { kind: "wait"; untilMs: number };

/** Timings of a {@link ServiceBreaker}, in ms. */
export interface BreakerTimings {
  /** the first open interval without a `Retry-After` (doubles after each failed probe) */
  baseMs: number;
  /** the longest open interval, whatever a `Retry-After` says: a probe goes out at least this often */
  capMs: number;
  /** how long one probe holds the half-open slot at most (longer than one request's timeout) */
  probeTtlMs: number;
  /** how long the breaker's keys outlive the open interval, so an idle breaker closes by expiry */
  keepMs: number;
  /** how long a waiter re-checks while another process is probing, at most */
  halfOpenRecheckMs: number;
}

/** Default {@link BreakerTimings}: 2 s doubling to 60 s, a probe slot of 45 s (the client's timeout is 30 s). */
export const DEFAULT_BREAKER_TIMINGS: BreakerTimings = {
  baseMs: 2_000,
  capMs: 60_000,
  probeTtlMs: 45_000,
  keepMs: 10 * 60_000,
  halfOpenRecheckMs: 2_000,
};

// KEYS: state, probe. ARGV: now, owner, probe ttl, recheck.
const ADMIT = `
local untilMs = redis.call('hget', KEYS[1], 'until')
if not untilMs then return {'closed', 0} end
untilMs = tonumber(untilMs)
local now = tonumber(ARGV[1])
if now < untilMs then return {'wait', untilMs} end
if redis.call('set', KEYS[2], ARGV[2], 'NX', 'PX', tonumber(ARGV[3])) then return {'probe', 0} end
local left = redis.call('pttl', KEYS[2])
if left < 0 then left = 0 end
return {'wait', now + math.min(left, tonumber(ARGV[4]))}
`;

// KEYS: state, probe, waiting. ARGV: now, retry-after ms (-1: none), base, cap, keep, probe ('1' or '0').
// A failure seen while the breaker is already open, by a request sent before it opened, changes nothing: only
// the first failure and each failed probe set the next interval. The interval is whole ms and never above the
// cap (PEXPIRE takes an integer).
const FAIL = `
local now = tonumber(ARGV[1])
local open = redis.call('exists', KEYS[1]) == 1
if open and ARGV[6] ~= '1' then return {tonumber(redis.call('hget', KEYS[1], 'until')), 0} end
local step = redis.call('hincrby', KEYS[1], 'step', 1)
local cap = tonumber(ARGV[4])
local wait = math.min(tonumber(ARGV[3]) * 2 ^ (step - 1), cap)
local retryAfter = tonumber(ARGV[2])
if retryAfter >= 0 then wait = math.min(math.max(retryAfter, 1000), cap) end
wait = math.floor(wait)
local untilMs = now + wait
redis.call('hset', KEYS[1], 'until', untilMs)
redis.call('hsetnx', KEYS[1], 'since', now)
redis.call('pexpire', KEYS[1], wait + tonumber(ARGV[5]))
redis.call('del', KEYS[2])
if redis.call('exists', KEYS[3]) == 1 then redis.call('pexpire', KEYS[3], wait + tonumber(ARGV[5])) end
if open then return {untilMs, 0} end
return {untilMs, 1}
`;

// KEYS: state, probe, waiting. Closes the breaker and hands back the parked job ids.
const SUCCEED = `
local was = redis.call('exists', KEYS[1])
redis.call('del', KEYS[1], KEYS[2])
local ids = redis.call('zrange', KEYS[3], 0, -1)
redis.call('del', KEYS[3])
return {was, ids}
`;

// KEYS: state, waiting. ARGV: now, job id, keep. Parks only while the breaker is open.
const PARK = `
if redis.call('exists', KEYS[1]) == 0 then return 0 end
redis.call('zadd', KEYS[2], tonumber(ARGV[1]), ARGV[2])
redis.call('pexpire', KEYS[2], math.max(redis.call('pttl', KEYS[1]), 0) + tonumber(ARGV[3]))
return 1
`;

// KEYS: probe. ARGV: owner. Gives the half-open slot back when its holder sent nothing.
const RELEASE = `
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
`;

/**
 * The open interval a `Retry-After` of `retryAfterSeconds` advises, in whole ms: at least 1 s and at most
 * `capMs` (the service's `Retry-After` is advice, spec §Errors; the breaker probes at least every `capMs`
 * whatever it says). `-1` when there is no usable advice (absent or not a number). Pure.
 */
export function retryAfterMs(retryAfterSeconds: number | undefined, capMs: number): number {
  if (retryAfterSeconds === undefined || Number.isNaN(retryAfterSeconds)) return -1;
  return Math.ceil(Math.min(Math.max(retryAfterSeconds * 1000, 1000), capMs));
}

/**
 * A circuit breaker per service tenant, shared by every process through Redis, so N waiting pull requests
 * send one stream of retries, not N. Closed (no key) → open on a 5xx, a timeout or no answer (for the
 * service's `Retry-After` when it sends one, spec §Errors, but never longer than {@link BreakerTimings.capMs};
 * else {@link BreakerTimings.baseMs} doubling to {@link BreakerTimings.capMs}) → half-open once the interval has passed, where exactly one caller across
 * all processes holds the probe → closed when the probe succeeds (every parked job is handed back to be
 * woken once), open again when it fails.
 *
 * Keys, under the state prefix (`{dw}`; docs/architecture.md "Redis keys"):
 * - `breaker:<tenant>` (hash: `until` ms, `since` ms, `step`), TTL the open interval plus `keepMs`;
 * - `breaker:<tenant>:probe` (the probe holder), TTL `probeTtlMs`;
 * - `breaker:<tenant>:waiting` (sorted set of parked launch job ids, scored by when parked), TTL as the state.
 */
export class ServiceBreaker {
  constructor(
    private readonly redis: RedisConnection,
    readonly prefix = DEFAULT_STATE_PREFIX,
    readonly timings: BreakerTimings = DEFAULT_BREAKER_TIMINGS,
  ) {}

  private keys(tenant: string): [string, string, string] {
    const base = `${this.prefix}:breaker:${tenant}`;
    return [base, `${base}:probe`, `${base}:waiting`];
  }

  /** Whether requests to `tenant` may go out now ({@link Admission}); `owner` names a probe's holder. */
  async admit(tenant: string, owner: string, now: number): Promise<Admission> {
    const [state, probe] = this.keys(tenant);
    const [kind, at] = (await this.redis.eval(
      ADMIT,
      2,
      state,
      probe,
      now,
      owner,
      this.timings.probeTtlMs,
      this.timings.halfOpenRecheckMs,
    )) as [string, number];
    if (kind === "closed") return { kind: "closed" };
    if (kind === "probe") return { kind: "probe" };
    return { kind: "wait", untilMs: Number(at) };
  }

  /** Whether the breaker of `tenant` is open or half-open (a failure not yet followed by a success). */
  async isOpen(tenant: string): Promise<boolean> {
    return (await this.redis.exists(this.keys(tenant)[0])) === 1;
  }

  /**
   * Records a 5xx, timeout or unreachable service.
   * @param retryAfterSeconds the answer's `Retry-After`, in seconds, when it had one: advice, bounded to
   *   1 s … {@link BreakerTimings.capMs} ({@link retryAfterMs}).
   * @param probe whether the failed request was the half-open probe (only then does the interval grow).
   * @returns when the breaker lets a probe through next (ms since epoch), and whether this failure opened it.
   */
  async recordFailure(
    tenant: string,
    now: number,
    opts: { retryAfterSeconds?: number | undefined; probe?: boolean } = {},
  ): Promise<{ untilMs: number; opened: boolean }> {
    const [state, probe, waiting] = this.keys(tenant);
    const [untilMs, opened] = (await this.redis.eval(
      FAIL,
      3,
      state,
      probe,
      waiting,
      now,
      retryAfterMs(opts.retryAfterSeconds, this.timings.capMs),
      this.timings.baseMs,
      this.timings.capMs,
      this.timings.keepMs,
      opts.probe ? "1" : "0",
    )) as [number, number];
    return { untilMs: Number(untilMs), opened: opened === 1 };
  }

  /**
   * Records an answer from the service: closes the breaker.
   * @returns whether it was open, and the ids of the jobs parked meanwhile (each handed back once: the set is
   *   emptied in the same step).
   */
  async recordSuccess(tenant: string): Promise<{ wasOpen: boolean; parked: string[] }> {
    const [state, probe, waiting] = this.keys(tenant);
    const [was, ids] = (await this.redis.eval(SUCCEED, 3, state, probe, waiting)) as [number, string[]];
    return { wasOpen: was === 1, parked: ids };
  }

  /** Gives the half-open slot back when its holder sent nothing (its job ended before any request). */
  async releaseProbe(tenant: string, owner: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.keys(tenant)[1], owner);
  }

  /**
   * Parks a job until the breaker closes: its id is handed back by the {@link recordSuccess} that closes it.
   * @returns false when the breaker is already closed (nothing parked: the job goes on at once).
   */
  async park(tenant: string, jobId: string, now: number): Promise<boolean> {
    const [state, , waiting] = this.keys(tenant);
    return (await this.redis.eval(PARK, 2, state, waiting, now, jobId, this.timings.keepMs)) === 1;
  }

  /** The breaker's state as kept in Redis, for logs, metrics and tests. */
  async read(tenant: string): Promise<{ open: boolean; untilMs?: number; sinceMs?: number; parked: number }> {
    const [state, , waiting] = this.keys(tenant);
    const [h, parked] = await Promise.all([this.redis.hgetall(state), this.redis.zcard(waiting)]);
    if (!h.until) return { open: false, parked };
    return { open: true, untilMs: Number(h.until), sinceMs: Number(h.since), parked };
  }
}
