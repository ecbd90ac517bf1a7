/**
 * The schedule of a default-branch baseline (`baseline.schedule`): `daily`, `weekly` or a 5-field cron
 * expression in UTC (minute, hour, day of month, month, day of week), run by a BullMQ job scheduler
 * (https://docs.bullmq.io/guide/job-schedulers/repeat-strategies), which reads it with `cron-parser`.
 * diffward validates with that same parser, at the version BullMQ pins (package.json), so what is accepted
 * here is what BullMQ runs.
 */
import { createHash } from "node:crypto";
import { CronExpressionParser } from "cron-parser";

/** The shorthand schedules besides a cron expression. */
export const SCHEDULE_SHORTHANDS = ["daily", "weekly"] as const;

/** What a schedule accepts, as a regular expression (the JSON Schema's `pattern`): the shape only. */
export const SCHEDULE_PATTERN = "^(daily|weekly|[0-9*/,-]+( +[0-9*/,-]+){4})$";

/**
 * Why `schedule` is not a schedule BullMQ can run, or `undefined` when it is: a shorthand, or a 5-field cron
 * expression that BullMQ's parser reads and that comes due at least once. The check is BullMQ's own
 * (`defaultRepeatStrategy` in bullmq's `job-scheduler`): `CronExpressionParser.parse(pattern, { tz, currentDate })`,
 * where a throw makes `upsertJobScheduler` throw, then `next()`, where a throw (no date matches, e.g. the 31st
 * of April or June) is swallowed and no scheduler is created.
 * @param nowMs when the schedule starts (ms since epoch), BullMQ's `currentDate`; default the clock.
 * @returns what is wrong (the parser's reason), for the configuration error that names the expression
 *   (`baseline.schedule: … (got "0 0 30 2 *")`).
 */
export function scheduleProblem(schedule: string, nowMs: number = Date.now()): string | undefined {
  if ((SCHEDULE_SHORTHANDS as readonly string[]).includes(schedule)) return undefined;
  const parts = schedule.trim().split(/ +/);
  if (parts.length !== 5)
    return `must be daily, weekly or a cron expression of 5 fields (minute hour day-of-month month day-of-week), got ${parts.length} field${parts.length === 1 ? "" : "s"}`;
  let interval: ReturnType<typeof CronExpressionParser.parse>;
  try {
    interval = CronExpressionParser.parse(parts.join(" "), { tz: "UTC", currentDate: new Date(nowMs) });
  } catch (error) {
    return `BullMQ's cron parser (cron-parser) refuses it: ${reason(error)}`;
  }
  try {
    interval.next();
  } catch {
    return "matches no date (none of its months has its day of month), so BullMQ would never run it";
  }
  return undefined;
}

/** The parser's message of `error`, without a trailing period. */
function reason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\.$/, "");
}

/**
 * The cron pattern (UTC) of a schedule for one repository. `daily` and `weekly` are spread over the day
 * (and the week) by a hash of `seed` (the service repository id), so many repositories never launch at the
 * same minute: `daily` is `M H * * *`, `weekly` is `M H * * D`, with M, H and D stable for the repository.
 * A cron expression is returned as written (whitespace collapsed).
 */
export function cronPatternOf(schedule: string, seed: string): string {
  const digest = createHash("sha256").update(seed).digest();
  const minute = digest.readUInt16BE(0) % 60;
  const hour = digest.readUInt16BE(2) % 24;
  const day = digest.readUInt16BE(4) % 7;
  if (schedule === "daily") return `${minute} ${hour} * * *`;
  if (schedule === "weekly") return `${minute} ${hour} * * ${day}`;
  return schedule.trim().split(/ +/).join(" ");
}
