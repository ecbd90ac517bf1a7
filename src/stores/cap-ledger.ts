import type { RedisConnection } from "../runtime/connection.js";
import { DEFAULT_STATE_PREFIX } from "../runtime/connection.js";

/** What `creditCap.monthly` caps: one service repository of one project (`.github/diffward.yml` `repositoryId`). */
export interface CapScope {
  projectId: string;
  repositoryId: string;
}

/** The UTC month of `now` (ms), `YYYY-MM`: the cap's period (README "creditCap.monthly"). Pure. */
export function capMonth(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

/** One scan's count in a month's seed, in credits. */
export interface MonthSeedEntry {
  scanId: string;
  /** the settled spend (deductions less refunds) when `settled`, else the scan's credit budget */
  credits: number;
  settled: boolean;
}

/**
 * The Redis ledger of `creditCap.monthly` (README "Guidance, spend and approvals": concurrent pull requests
 * never pass the cap together): per service project, repository and UTC month,
 * one hash holding what every launch reserved and every scan spent, changed only by Lua scripts so that a
 * check and its reservation are one atomic step (Redis "EVAL": a script runs with no other command in
 * between). One hash is one key, so every script touches one key, under the state prefix's hash tag
 * (`{dw}` by default): the scripts run unchanged on Redis Cluster.
 *
 * Fields of the hash `<prefix>:cap:<projectId>:<repositoryId>:<YYYY-MM>` (all amounts in credits):
 * - `seeded`: set once the month's spend before this hash existed was read from the service ({@link seed});
 *   no reservation is made before that (a Redis flush never forgets the month's spend);
 * - `r:<launchKey>`: `<credits>:<ms since epoch>`, the launch's reserved maximum spend before its POST;
 *   a reservation older than {@link RESERVATION_STALE_MS} whose launch never bound it is dropped;
 * - `b:<launchKey>`: the scan id the launch became (so a retried launch job never reserves twice);
 * - `c:<scanId>`: what the scan counts: its credit budget while it runs, its actual spend once settled;
 * - `f:<scanId>`: `1` once `c:<scanId>` is the settled spend (deductions less refunds in the usage ledger).
 *
 * Invariant: the sum of `r:*` and `c:*` never passes the cap a reservation was checked against.
 */
export class CapLedger {
  constructor(
    readonly redis: RedisConnection,
    readonly prefix = DEFAULT_STATE_PREFIX,
  ) {
    defineScripts(redis);
  }

  /** The hash of one scope and UTC month (`now`, ms). */
  keyOf(scope: CapScope, now: number): string {
    return `${this.prefix}:cap:${scope.projectId}:${scope.repositoryId}:${capMonth(now)}`;
  }

  #scanIndex(scanId: string): string {
    return `${this.prefix}:capscan:${scanId}`;
  }

  /**
   * Checks and reserves, atomically, a launch's maximum spend against the month's cap.
   * @param amount the launch's credit budget, in credits; `undefined` reserves what is left of the cap
   *   (the launch then sends that as its `creditBudget`, so the service never picks a larger one).
   * @param minAmount the least budget the launch may run with (the preset's `minCredits`, at least 1).
   * @returns `unseeded` when the month's spend must first be read from the service ({@link seed});
   *   `reserved` (also for a launch key that already holds a reservation: the same amount is returned, nothing
   *   more is reserved), `bound` when the launch key already became a scan, or `refused`, each with the credits
   *   counted before this launch (`counted`: spent, in flight and reserved).
   */
  async reserve(
    key: string,
    launchKey: string,
    cap: number,
    amount: number | undefined,
    minAmount: number,
    now: number,
  ): Promise<ReserveResult> {
    const [code, counted, amt] = (await this.#run("dwCapReserve", key, [
      launchKey,
      cap,
      amount ?? 0,
      Math.max(1, minAmount),
      now,
      RESERVATION_STALE_MS,
      TTL_SECONDS,
    ])) as [number, number, number];
    if (code === -1) return { kind: "unseeded" };
    if (code === 0) return { kind: "refused", counted, wanted: amt };
    if (code === 2) return { kind: "bound", counted };
    return { kind: "reserved", counted, amount: amt };
  }

  /**
   * Drops a launch's reservation (the launch was refused, failed for good, or is no longer wanted): nothing
   * was spent. A launch key already bound to a scan keeps its scan's count. Idempotent.
   * @returns the credits released (0 when there was nothing to release).
   */
  async release(key: string, launchKey: string): Promise<number> {
    return Number(await this.#run("dwCapRelease", key, [launchKey]));
  }

  /**
   * Turns a launch's reservation into its scan's count once the service accepted it: the scan counts
   * `creditBudget` (the budget the service answered) until it settles. Idempotent per launch key and scan.
   */
  async bind(
    key: string,
    launchKey: string,
    scanId: string,
    creditBudget: number | undefined,
  ): Promise<void> {
    await this.#run("dwCapBind", key, [launchKey, scanId, creditBudget ?? "", TTL_SECONDS]);
    await this.redis.set(this.#scanIndex(scanId), key, "EX", TTL_SECONDS);
  }

  /**
   * Replaces a scan's count with its settled spend (usage ledger: deductions less refunds, credits), for
   * any scan this ledger knows (launched under a cap, or seeded). Idempotent (a set, never an increment).
   * @returns false when the scan is in no cap ledger (no cap applied to its launch).
   */
  async settle(scanId: string, spent: number, key?: string): Promise<boolean> {
    const k = key ?? (await this.redis.get(this.#scanIndex(scanId)));
    if (!k) return false;
    await this.#run("dwCapSettle", k, [scanId, Math.max(0, spent), TTL_SECONDS]);
    return true;
  }

  /**
   * Records the month's spend read from the service when the hash is new (first use, or after a Redis
   * flush): each scan's count, final when settled. Runs once per hash; later calls change nothing (a scan
   * already counted keeps its count).
   * @returns true when this call seeded the hash.
   */
  async seed(key: string, entries: readonly MonthSeedEntry[]): Promise<boolean> {
    const args: Array<string | number> = [TTL_SECONDS];
    for (const e of entries) args.push(e.scanId, Math.max(0, e.credits), e.settled ? 1 : 0);
    return Number(await this.#run("dwCapSeed", key, args)) === 1;
  }

  /** What the hash counts now, in credits, and the scans whose count is not settled yet. */
  async snapshot(key: string): Promise<CapSnapshot> {
    const h = await this.redis.hgetall(key);
    let settled = 0;
    let inFlight = 0;
    let reserved = 0;
    const unsettled: string[] = [];
    for (const [field, value] of Object.entries(h)) {
      if (field.startsWith("r:")) reserved += Number(value.split(":")[0]);
      else if (field.startsWith("c:")) {
        const scanId = field.slice(2);
        if (h[`f:${scanId}`] === "1") settled += Number(value);
        else {
          inFlight += Number(value);
          unsettled.push(scanId);
        }
      }
    }
    return { seeded: h.seeded === "1", settled, inFlight, reserved, unsettled };
  }

  async #run(name: ScriptName, key: string, args: Array<string | number>): Promise<unknown> {
    const fn = (
      this.redis as unknown as Record<ScriptName, (...a: Array<string | number>) => Promise<unknown>>
    )[name];
    return fn.call(this.redis, key, ...args);
  }
}

/** The outcome of {@link CapLedger.reserve}; amounts in credits. */
export type ReserveResult =
  | { kind: "unseeded" }
  | { kind: "reserved"; counted: number; amount: number }
  | { kind: "bound"; counted: number }
  | { kind: "refused"; counted: number; wanted: number };

/** What one month's hash counts, in credits (see {@link CapLedger}). */
export interface CapSnapshot {
  seeded: boolean;
  /** settled spend of the month's scans */
  settled: number;
  /** budgets of scans launched and not settled yet */
  inFlight: number;
  /** reservations of launches not answered yet */
  reserved: number;
  /** the scans counted at their budget until they settle */
  unsettled: string[];
}

/** A reservation whose launch never bound it (crashed for good) stops counting after this, in ms (a day). */
export const RESERVATION_STALE_MS = 24 * 3600_000;
/** How long a month's hash is kept after its last change, in seconds (70 days: past the month's end). */
const TTL_SECONDS = 70 * 24 * 3600;

type ScriptName = "dwCapReserve" | "dwCapRelease" | "dwCapBind" | "dwCapSettle" | "dwCapSeed";

/** Sums `r:*` (dropping stale ones) and `c:*` of KEYS[1]. */
const COUNT = `
local function counted(now, staleMs)
  local all = redis.call('HGETALL', KEYS[1])
  local total = 0
  for i = 1, #all, 2 do
    local f, v = all[i], all[i + 1]
    if string.sub(f, 1, 2) == 'r:' then
      local sep = string.find(v, ':', 1, true)
      local amt, at = tonumber(string.sub(v, 1, sep - 1)), tonumber(string.sub(v, sep + 1))
      if now - at > staleMs then redis.call('HDEL', KEYS[1], f) else total = total + amt end
    elseif string.sub(f, 1, 2) == 'c:' then
      total = total + tonumber(v)
    end
  end
  return total
end
`;

const SCRIPTS: Record<ScriptName, string> = {
  // ARGV: launchKey, cap, amount (0 = what is left), minAmount, now (ms), staleMs, ttl (s)
  dwCapReserve: `${COUNT}
if redis.call('HEXISTS', KEYS[1], 'seeded') == 0 then return {-1, 0, 0} end
local launchKey, cap, amount, minAmount = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now, staleMs = tonumber(ARGV[5]), tonumber(ARGV[6])
local total = counted(now, staleMs)
if redis.call('HEXISTS', KEYS[1], 'b:' .. launchKey) == 1 then return {2, total, 0} end
local held = redis.call('HGET', KEYS[1], 'r:' .. launchKey)
if held then
  local amt = tonumber(string.sub(held, 1, string.find(held, ':', 1, true) - 1))
  return {1, total - amt, amt}
end
local want = amount
if want <= 0 then want = cap - total end
if want < minAmount or total + want > cap then return {0, total, want} end
redis.call('HSET', KEYS[1], 'r:' .. launchKey, want .. ':' .. now)
redis.call('EXPIRE', KEYS[1], ARGV[7])
return {1, total, want}
`,
  // ARGV: launchKey
  dwCapRelease: `
if redis.call('HEXISTS', KEYS[1], 'b:' .. ARGV[1]) == 1 then return 0 end
local held = redis.call('HGET', KEYS[1], 'r:' .. ARGV[1])
if not held then return 0 end
redis.call('HDEL', KEYS[1], 'r:' .. ARGV[1])
return tonumber(string.sub(held, 1, string.find(held, ':', 1, true) - 1))
`,
  // ARGV: launchKey, scanId, creditBudget ('' = the reserved amount), ttl (s)
  dwCapBind: `
local launchKey, scanId = ARGV[1], ARGV[2]
local held = redis.call('HGET', KEYS[1], 'r:' .. launchKey)
local amount = tonumber(ARGV[3])
if amount == nil and held then amount = tonumber(string.sub(held, 1, string.find(held, ':', 1, true) - 1)) end
if redis.call('HEXISTS', KEYS[1], 'c:' .. scanId) == 0 then
  redis.call('HSET', KEYS[1], 'c:' .. scanId, amount or 0)
end
redis.call('HSET', KEYS[1], 'b:' .. launchKey, scanId)
redis.call('HDEL', KEYS[1], 'r:' .. launchKey)
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
`,
  // ARGV: scanId, spent, ttl (s)
  dwCapSettle: `
redis.call('HSET', KEYS[1], 'c:' .. ARGV[1], ARGV[2], 'f:' .. ARGV[1], '1')
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
`,
  // ARGV: ttl (s), then triples scanId, credits, settled (1/0)
  dwCapSeed: `
if redis.call('HEXISTS', KEYS[1], 'seeded') == 1 then return 0 end
for i = 2, #ARGV, 3 do
  if redis.call('HSETNX', KEYS[1], 'c:' .. ARGV[i], ARGV[i + 1]) == 1 and ARGV[i + 2] == '1' then
    redis.call('HSET', KEYS[1], 'f:' .. ARGV[i], '1')
  end
end
redis.call('HSET', KEYS[1], 'seeded', '1')
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
`,
};

const defined = new WeakSet<object>();

/**
 * Registers the ledger's scripts on a connection once (ioredis `defineCommand`: EVALSHA, falling back to
 * EVAL when the server does not have the script yet, as after a restart or a flush).
 */
function defineScripts(redis: RedisConnection): void {
  if (defined.has(redis)) return;
  for (const [name, lua] of Object.entries(SCRIPTS)) redis.defineCommand(name, { numberOfKeys: 1, lua });
  defined.add(redis);
}
