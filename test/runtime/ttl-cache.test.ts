import { describe, expect, it } from "vitest";
import { TtlCache, within } from "../../src/runtime/ttl-cache.js";

describe("TtlCache", () => {
  it("asks once per key within its time, shares a pending ask, and asks again after a failure", async () => {
    const clock = { t: 0 };
    const cache = new TtlCache<number>(60_000, () => clock.t);
    let asks = 0;
    const load = async () => ++asks;
    expect(await Promise.all([cache.get("a", load), cache.get("a", load)])).toEqual([1, 1]);
    clock.t = 59_999;
    expect(await cache.get("a", load)).toBe(1);
    expect(await cache.get("b", load)).toBe(2);
    clock.t = 60_000;
    expect(await cache.get("a", load)).toBe(3);
    await expect(cache.get("c", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("c", load)).toBe(4);
  });
});

describe("within", () => {
  it("gives the value when it comes in time, else the fallback", async () => {
    expect(await within(Promise.resolve("v"), 50, () => "late")).toBe("v");
    const slow = new Promise<string>((r) => setTimeout(() => r("v"), 200));
    expect(await within(slow, 20, () => "late")).toBe("late");
  });
});
