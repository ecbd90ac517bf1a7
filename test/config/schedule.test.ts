import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { cronPatternOf, SCHEDULE_PATTERN, scheduleProblem } from "../../src/config/schedule.js";
import { propertyOptions } from "../support/property.js";

describe("scheduleProblem", () => {
  it("accepts the shorthands and cron expressions within each field's range", () => {
    for (const s of ["daily", "weekly", "0 0 * * *", "59 23 31 12 7", "*/5 1-3,5 */2 1 0-6"])
      expect(scheduleProblem(s), s).toBeUndefined();
  });

  it("names the field and the value that is wrong", () => {
    expect(scheduleProblem("0 24 * * *")).toBe('the hour field "24" has 24, outside 0-23');
    expect(scheduleProblem("0 0 0 * *")).toBe('the day of month field "0" has 0, outside 1-31');
    expect(scheduleProblem("5-1 * * * *")).toBe('the minute field "5-1" has a range that runs backwards');
    expect(scheduleProblem("*/0 * * * *")).toBe('the minute field "*/0" has a step of 0');
    expect(scheduleProblem("0 0 * *")).toMatch(/got 4 fields$/);
  });

  it("every schedule it accepts matches the JSON Schema's pattern", () => {
    const field = fc.oneof(fc.constant("*"), fc.nat(70).map(String), fc.constant("*/7"), fc.constant("1-5"));
    fc.assert(
      fc.property(fc.array(field, { minLength: 5, maxLength: 5 }), (fields) => {
        const s = fields.join(" ");
        if (scheduleProblem(s) === undefined) expect(new RegExp(SCHEDULE_PATTERN).test(s)).toBe(true);
      }),
      propertyOptions(),
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
