import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { getNextMillis } from "bullmq";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { cronPatternOf, SCHEDULE_PATTERN, scheduleProblem } from "../../src/config/schedule.js";
import { propertyOptions } from "../support/property.js";

const NOW = Date.UTC(2026, 10, 25, 12);

/** The package.json of the package whose entry file `entry` is (the nearest one up that names a package). */
function packageOf(entry: string): { name: string; version: string; dependencies?: Record<string, string> } {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (typeof pkg.name === "string") return pkg;
    } catch {
      // no package.json here: one level up
    }
  }
  throw new Error(`no package.json above ${entry}`);
}

/** Whether BullMQ's own next-run computation (its job schedulers' default strategy) gives a due time. */
function bullmqRuns(pattern: string): boolean {
  try {
    return typeof getNextMillis(NOW, { pattern, tz: "UTC" }) === "number";
  } catch {
    return false;
  }
}

describe("scheduleProblem", () => {
  it("accepts the shorthands and cron expressions BullMQ runs", () => {
    for (const s of [
      "daily",
      "weekly",
      "0 0 * * *",
      "59 23 31 12 7",
      "*/5 1-3,5 */2 1 0-6",
      "0 0 29 2 *",
      "0 0 31 4,5 *",
      "0 0 30 2 1",
    ])
      expect(scheduleProblem(s, NOW), s).toBeUndefined();
  });

  it("rejects a day of month that none of its months has, saying why", () => {
    // BullMQ's parser refuses these: upsertJobScheduler would throw
    for (const s of ["0 0 30 2 *", "0 0 31 4 *"])
      expect(scheduleProblem(s, NOW), s).toBe(
        "BullMQ's cron parser (cron-parser) refuses it: Invalid explicit day of month definition",
      );
    // this one parses but never comes due: BullMQ swallows the error and creates no scheduler
    expect(scheduleProblem("0 0 31 4,6 *", NOW)).toBe(
      "matches no date (none of its months has its day of month), so BullMQ would never run it",
    );
  });

  it("names the value out of range, a backwards range, a step of 0 and a wrong number of fields", () => {
    expect(scheduleProblem("0 24 * * *", NOW)).toMatch(/refuses it: .*got value 24 expected range 0-23$/);
    expect(scheduleProblem("0 0 0 * *", NOW)).toMatch(/refuses it: .*got value 0 expected range 1-31$/);
    expect(scheduleProblem("5-1 * * * *", NOW)).toMatch(/refuses it: Invalid range: 5-1/);
    expect(scheduleProblem("*/0 * * * *", NOW)).toMatch(/refuses it: .*cannot repeat at every 0 time$/);
    expect(scheduleProblem("0 0 * *", NOW)).toMatch(/got 4 fields$/);
  });

  it("property: accepts exactly the cron expressions for which BullMQ computes a next run", () => {
    const item = fc.oneof(
      fc.constant("*"),
      fc.nat(62).map(String),
      fc.tuple(fc.nat(32), fc.nat(32)).map(([a, b]) => `${a}-${b}`),
      fc.nat(40).map((n) => `*/${n}`),
    );
    const field = fc.array(item, { minLength: 1, maxLength: 3 }).map((xs) => xs.join(","));
    const days = fc.oneof(fc.constantFrom("29", "30", "31", "30,31", "*"), field);
    const months = fc.oneof(fc.constantFrom("2", "4", "6", "9", "11", "4,6", "2,4,6,9,11", "*"), field);
    fc.assert(
      fc.property(field, field, days, months, fc.oneof(fc.constant("*"), field), (mi, h, dom, mon, dow) => {
        const s = [mi, h, dom, mon, dow].join(" ");
        expect(scheduleProblem(s, NOW) === undefined, s).toBe(bullmqRuns(s));
      }),
      propertyOptions(300),
    );
  });

  it("every schedule it accepts matches the JSON Schema's pattern", () => {
    const field = fc.oneof(fc.constant("*"), fc.nat(70).map(String), fc.constant("*/7"), fc.constant("1-5"));
    fc.assert(
      fc.property(fc.array(field, { minLength: 5, maxLength: 5 }), (fields) => {
        const s = fields.join(" ");
        if (scheduleProblem(s, NOW) === undefined) expect(new RegExp(SCHEDULE_PATTERN).test(s)).toBe(true);
      }),
      propertyOptions(),
    );
  });

  it("validates with the very cron-parser BullMQ runs: one copy, at the version BullMQ pins", () => {
    const ours = createRequire(new URL("../../src/config/schedule.ts", import.meta.url));
    const bullmq = createRequire(ours.resolve("bullmq"));
    const diffwardParser = ours.resolve("cron-parser");
    const bullmqParser = bullmq.resolve("cron-parser");
    expect(packageOf(bullmqParser).version).toBe(packageOf(diffwardParser).version);
    expect(bullmqParser).toBe(diffwardParser);
    // the range diffward declares is the one BullMQ declares, so an upgrade of BullMQ that moves it fails here
    const declared = (entry: string, name: string) => packageOf(entry).dependencies?.[name];
    expect(declared(ours.resolve("../../package.json"), "cron-parser")).toBe(
      declared(ours.resolve("bullmq"), "cron-parser"),
    );
  });
});

describe("cronPatternOf", () => {
  it("spreads daily and weekly over the day and week per repository, stably", () => {
    const daily = cronPatternOf("daily", "repo_1");
    expect(daily).toMatch(/^\d{1,2} \d{1,2} \* \* \*$/);
    expect(scheduleProblem(daily)).toBeUndefined();
    expect(cronPatternOf("daily", "repo_1")).toBe(daily);
    const weekly = cronPatternOf("weekly", "repo_1");
    expect(weekly).toMatch(/^\d{1,2} \d{1,2} \* \* [0-6]$/);
    expect(weekly.split(" ").slice(0, 2)).toEqual(daily.split(" ").slice(0, 2));
    const many = new Set(Array.from({ length: 20 }, (_, i) => cronPatternOf("daily", `repo_${i}`)));
    expect(many.size).toBeGreaterThan(10);
  });

  it("keeps a cron expression as written, whitespace collapsed", () => {
    expect(cronPatternOf("0  3 * *  1", "r")).toBe("0 3 * * 1");
  });
});
