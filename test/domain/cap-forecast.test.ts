import { describe, expect, it } from "vitest";
import { forecastCapDay, lastMonths } from "../../src/domain/cap-forecast.js";

/** 11 November 2026, 00:00 UTC: ten whole days of the month have passed. */
const NOV_11 = Date.UTC(2026, 10, 11);

describe("forecastCapDay", () => {
  it("has nothing to forecast without a cap", () => {
    expect(forecastCapDay(500, undefined, NOV_11)).toEqual({ kind: "no-cap" });
  });

  it("has no pace when nothing was spent", () => {
    expect(forecastCapDay(0, 1_000, NOV_11)).toEqual({ kind: "no-spend", cap: 1_000 });
  });

  it("says the cap is reached when the spend is at or over it", () => {
    expect(forecastCapDay(1_000, 1_000, NOV_11)).toEqual({ kind: "reached", cap: 1_000, spent: 1_000 });
    expect(forecastCapDay(1_250, 1_000, NOV_11)).toEqual({ kind: "reached", cap: 1_000, spent: 1_250 });
  });

  it("extrapolates the month's pace to the day the cap is met", () => {
    // 400 credits in 10 days: 40 a day; 600 more take 15 days → 26 November
    expect(forecastCapDay(400, 1_000, NOV_11)).toEqual({
      kind: "this-month",
      cap: 1_000,
      spent: 400,
      date: "2026-11-26",
      day: 26,
      at: Date.UTC(2026, 10, 26),
    });
  });

  it("says when the month ends first, with the spend it ends on", () => {
    // 100 credits in 10 days: 10 a day, 300 by 1 December, under a cap of 1,000
    expect(forecastCapDay(100, 1_000, NOV_11)).toEqual({
      kind: "not-this-month",
      cap: 1_000,
      spent: 100,
      monthEndSpend: 300,
    });
  });

  it("forecasts from the first instant of the month without dividing by zero", () => {
    const f = forecastCapDay(5, 10, Date.UTC(2026, 10, 1));
    expect(f.kind).toBe("this-month");
  });
});

describe("lastMonths", () => {
  it("lists the months up to the current one, oldest first, across a year's end", () => {
    expect(lastMonths(Date.UTC(2027, 1, 14), 6)).toEqual([
      "2026-09",
      "2026-10",
      "2026-11",
      "2026-12",
      "2027-01",
      "2027-02",
    ]);
  });
});
