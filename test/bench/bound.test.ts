import { describe, expect, it } from "vitest";
import { idealBound } from "../../bench/bound.js";

const GITHUB = { minGapMs: 1_000, perMinute: 80, perHour: 500 };

describe("the ideal scheduler's bound (bench/bound.ts, issue 15 item 5)", () => {
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
