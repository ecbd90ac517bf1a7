import { describe, expect, it } from "vitest";
import { countKinds, weekScenario } from "../../bench/week-scenario.js";

describe("the week's scenario", () => {
  const wallMs = 3_600_000;
  const week = weekScenario({ seed: 1, wallMs });

  it("is the same for the same seed and differs for another", () => {
    expect(weekScenario({ seed: 1, wallMs })).toEqual(week);
    expect(weekScenario({ seed: 2, wallMs })).not.toEqual(week);
  });

  it("is sorted in time, inside the wall time, every pull request's events after its opening", () => {
    expect(week.map((e) => e.at)).toEqual([...week.map((e) => e.at)].sort((a, b) => a - b));
    expect(week.every((e) => e.at >= 0 && e.at <= wallMs)).toBe(true);
    const opened = new Map<string, number>();
    for (const e of week) {
      if (!("pull" in e)) continue;
      const key = `${e.repo}#${e.pull}`;
      if (e.kind === "open") opened.set(key, e.at);
      else expect(opened.get(key), `${e.kind} of ${key} before its opening`).toBeLessThanOrEqual(e.at);
    }
  });

  it("has every kind of event, one uninstall, reinstall, outage and Redis restart, a kill every 1/12", () => {
    const n = countKinds(week);
    for (const kind of [
      "open",
      "push",
      "review",
      "command",
      "accept",
      "merge",
      "close",
      "reopen",
      "baseline",
      "errors",
    ])
      expect(n[kind as keyof typeof n], kind).toBeGreaterThan(0);
    expect([n.uninstall, n.reinstall, n.outage, n["redis-restart"], n["kill-worker"]]).toEqual([
      1, 1, 1, 1, 11,
    ]);
    const outage = week.find((e) => e.kind === "outage");
    expect(outage).toMatchObject({ durationMs: 5 * 60_000 });
    expect(week.some((e) => e.kind === "push" && e.force)).toBe(true);
  });

  it("sends nothing of the organization while the app is uninstalled", () => {
    const from = week.find((e) => e.kind === "uninstall")!.at;
    const to = week.find((e) => e.kind === "reinstall")!.at;
    expect(week.filter((e) => ("pull" in e || e.kind === "baseline") && e.at >= from && e.at < to)).toEqual(
      [],
    );
  });
});
