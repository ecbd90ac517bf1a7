import { describe, expect, it } from "vitest";
import { idealBound, idealBoundByInstallation } from "../../bench/bound.js";

const GITHUB = { minGapMs: 1_000, perMinute: 80, perHour: 500 };

describe("the ideal scheduler's bound (bench/bound.ts)", () => {
  it("where the limits do not bind: creation at the webhook, completion at the scan's end", () => {
    const r = idealBound([{ key: "a", webhookAt: 0, scanDoneAt: 10_000 }], GITHUB);
    expect(r.firstFeedbackMs.get("a")).toBe(0);
    expect(r.reportDelayMs.get("a")).toBe(0);
  });

  it("writes are 1 s apart, completions before creations", () => {
    // three webhooks at once; a's scan ends at 1.5 s, while b and c still wait for their check runs
    const r = idealBound(
      [
        { key: "a", webhookAt: 0, scanDoneAt: 1_500 },
        { key: "b", webhookAt: 0, scanDoneAt: 60_000 },
        { key: "c", webhookAt: 0, scanDoneAt: 60_000 },
      ],
      GITHUB,
    );
    // slots: 0 create a, 1 s create b, 2 s complete a (ready at 1.5 s, before c's creation), 3 s create c
    expect(r.firstFeedbackMs.get("a")).toBe(0);
    expect(r.firstFeedbackMs.get("b")).toBe(1_000);
    expect(r.reportDelayMs.get("a")).toBe(500);
    expect(r.firstFeedbackMs.get("c")).toBe(3_000);
  });

  it("holds the 81st write of a minute and the 501st of an hour", () => {
    const pulls = Array.from({ length: 81 }, (_, i) => ({ key: `p${i}`, webhookAt: 0 }));
    const r = idealBound(pulls, { minGapMs: 0, perMinute: 80, perHour: 500 });
    expect(r.firstFeedbackMs.get("p79")).toBe(0);
    expect(r.firstFeedbackMs.get("p80")).toBe(60_000);
    const many = Array.from({ length: 501 }, (_, i) => ({ key: `q${i}`, webhookAt: 0 }));
    const h = idealBound(many, { minGapMs: 0, perMinute: 10_000, perHour: 500 });
    expect(h.firstFeedbackMs.get("q500")).toBe(3_600_000);
  });
});

describe("the bound over several installations (bench/bound.ts idealBoundByInstallation)", () => {
  it("gives each installation its own write slots: two installations' webhooks at once both get slot 0", () => {
    const pulls = [
      { key: "a", installationId: 1, webhookAt: 0, scanDoneAt: 10_000 },
      { key: "b", installationId: 2, webhookAt: 0, scanDoneAt: 10_000 },
      { key: "c", installationId: 1, webhookAt: 0, scanDoneAt: 10_000 },
    ];
    const r = idealBoundByInstallation(pulls, GITHUB);
    expect(r.firstFeedbackMs.get("a")).toBe(0);
    expect(r.firstFeedbackMs.get("b")).toBe(0);
    // c shares installation 1 with a: the next slot, 1 s later
    expect(r.firstFeedbackMs.get("c")).toBe(1_000);
    // one installation would have put b in the second slot and c in the third
    const one = idealBound(pulls, GITHUB);
    expect(one.firstFeedbackMs.get("b")).toBe(1_000);
    expect(one.firstFeedbackMs.get("c")).toBe(2_000);
  });

  it("equals idealBound for one installation", () => {
    const pulls = Array.from({ length: 5 }, (_, i) => ({
      key: `p${i}`,
      installationId: 7,
      webhookAt: i * 300,
      scanDoneAt: 2_000 + i * 700,
    }));
    const merged = idealBoundByInstallation(pulls, GITHUB);
    const single = idealBound(pulls, GITHUB);
    expect([...merged.firstFeedbackMs]).toEqual([...single.firstFeedbackMs]);
    expect([...merged.reportDelayMs]).toEqual([...single.reportDelayMs]);
  });
});
