/**
 * The schedule of a default-branch baseline (`baseline.schedule`): `daily`, `weekly` or a 5-field cron
 * expression in UTC (minute, hour, day of month, month, day of week; the fields of cron(8) that BullMQ's
 * job schedulers read: https://docs.bullmq.io/guide/job-schedulers/repeat-strategies). Pure.
 */
import { createHash } from "node:crypto";

/** The shorthand schedules besides a cron expression. */
export const SCHEDULE_SHORTHANDS = ["daily", "weekly"] as const;

/** Each cron field's name and its inclusive range (day of week: 0 and 7 are both Sunday). */
const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day of week", min: 0, max: 7 },
] as const;

/** What a schedule accepts, as a regular expression (the JSON Schema's `pattern`): the shape only. */
export const SCHEDULE_PATTERN = "^(daily|weekly|[0-9*/,-]+( +[0-9*/,-]+){4})$";

/**
 * Why `schedule` is not a valid schedule, or `undefined` when it is: a shorthand, or five fields each a
 * comma-separated list of `*`, `n`, `a-b`, each optionally `/step`, with every number in its field's range.
 */
export function scheduleProblem(schedule: string): string | undefined {
  if ((SCHEDULE_SHORTHANDS as readonly string[]).includes(schedule)) return undefined;
  const parts = schedule.trim().split(/ +/);
  if (parts.length !== 5)
    return `must be daily, weekly or a cron expression of 5 fields (minute hour day-of-month month day-of-week), got ${parts.length} field${parts.length === 1 ? "" : "s"}`;
  for (const [i, part] of parts.entries()) {
    const field = FIELDS[i]!;
    for (const item of part.split(",")) {
      const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(item);
      if (!m) return `the ${field.name} field "${part}" is not a cron field`;
      const numbers = [m[2], m[3]].filter((n) => n !== undefined).map(Number);
      for (const n of numbers)
        if (n < field.min || n > field.max)
          return `the ${field.name} field "${part}" has ${n}, outside ${field.min}-${field.max}`;
      if (numbers.length === 2 && numbers[0]! > numbers[1]!)
        return `the ${field.name} field "${part}" has a range that runs backwards`;
      if (m[4] !== undefined && Number(m[4]) === 0)
        return `the ${field.name} field "${part}" has a step of 0`;
    }
  }
  return undefined;
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
