import { describe, expect, it } from "vitest";
import {
  checkWeek,
  rssGrowth,
  serverP99Ms,
  webhookBuckets,
  type WeekFacts,
} from "../../bench/week-invariants.js";

const run = (id: number, headSha: string, over: Partial<WeekFacts["runs"][number]> = {}) => ({
  id,
  headSha,
  status: "completed",
  conclusion: "success",
  completions: 1,
  leftByUninstall: false,
  ...over,
});
const scan = (id: string, commitHash: string, over: Partial<WeekFacts["scans"][number]> = {}) => ({
  id,
  commitHash,
  finalStatus: "COMPLETED" as const,
  cancelsAfterEndRead: 0,
  settled: true,
  netCredits: 10,
  ...over,
});
const flat = (from: number, mb: number[]) =>
  mb.map((m, i) => ({ at: from + i * 1000, rssBytes: m * 2 ** 20 }));

/** A week where everything holds. */
function good(): WeekFacts {
  return {
    runs: [run(1, "a"), run(2, "b"), run(3, "b")],
    openHeads: [
      { key: "r#1", headSha: "a" },
      { key: "r#2", headSha: "b" },
    ],
    scans: [scan("s1", "a"), scan("s2", "b"), scan("s3", "b")],
    rescans: new Map([["b", 1]]),
    findingCommands: new Map(),
    ledgerScanCredits: -30,
    commandPlaces: [{ place: "thread:1", commands: 2, answers: 2 }],
    keysWithoutEnd: [],
    ownKeys: 12,
    processes: [{ name: "web", samples: flat(0, [100, 100, 100, 100, 101, 101, 102, 102]) }],
    window: { from: 0, to: 8000 },
    ack: { coldMs: [90, 4], idleMs: [3, 4, 5], weekMs: [10, 20, 30], failed: 0 },
  };
}
const verdicts = (f: WeekFacts) => Object.fromEntries(checkWeek(f).map((r) => [r.figure, r.met]));
const failing = (f: WeekFacts) =>
  checkWeek(f)
    .filter((r) => r.met === false)
    .map((r) => r.figure);

describe("the week's invariants", () => {
  it("all hold on a good week", () => {
    expect(failing(good())).toEqual([]);
    expect(Object.keys(verdicts(good()))).toHaveLength(11);
    // the cold window is reported, with no target: a new process's first deliveries pay its warm-up
    expect(
      verdicts(good())["webhook acknowledgement at 100 deliveries/s, a new web process's first 10 s (cold)"],
    ).toBe(null);
  });

  it("an open check run fails the first, also one the uninstall left: the reinstall must end it", () => {
    const ended = good();
    ended.runs.push(run(4, "z", { status: "completed", conclusion: "cancelled", leftByUninstall: true }));
    expect(failing(ended)).toEqual([]);
    expect(checkWeek(ended).find((r) => r.figure === "check runs completed")!.measured).toContain(
      "1 left unfinished by the uninstall, 1 ended after the reinstall",
    );
    const left = good();
    left.runs.push(
      run(4, "z", { status: "in_progress", conclusion: null, completions: 0, leftByUninstall: true }),
    );
    expect(failing(left)).toEqual(["check runs completed"]);
    const open = good();
    open.runs.push(run(5, "z", { status: "in_progress", conclusion: null, completions: 0 }));
    expect(failing(open)).toEqual(["check runs completed"]);
  });

  it("a newest head never reported, reported twice without /rescan, or completed twice fails", () => {
    const none = good();
    none.openHeads.push({ key: "r#3", headSha: "c" });
    expect(failing(none)).toEqual(["pull requests whose newest head is reported exactly once"]);
    const twice = good();
    twice.rescans.clear();
    expect(failing(twice)).toContain("pull requests whose newest head is reported exactly once");
    expect(failing(twice)).toContain("scans launched twice (same head, no /rescan, no reinstall)");
    // the reinstall launches a head the uninstall left unfinished once more: allowed, once
    twice.runs[1] = run(2, "b", { leftByUninstall: true });
    expect(failing(twice)).not.toContain("scans launched twice (same head, no /rescan, no reinstall)");
    const patched = good();
    patched.runs[0] = run(1, "a", { completions: 2 });
    expect(failing(patched)).toEqual(["pull requests whose newest head is reported exactly once"]);
    // a finding command on that head recomputes its check run in place: one more completion is no second report
    patched.findingCommands.set("a", 1);
    expect(failing(patched)).toEqual([]);
    patched.runs[0] = run(1, "a", { completions: 3 });
    expect(failing(patched)).toEqual(["pull requests whose newest head is reported exactly once"]);
  });

  it("a cancelled finished scan, a ledger that differs or an unsettled scan fails", () => {
    const cancelled = good();
    cancelled.scans[0] = scan("s1", "a", { cancelsAfterEndRead: 1 });
    expect(failing(cancelled)).toEqual(["finished scans cancelled (cancel after a read showed the end)"]);
    const ledger = good();
    ledger.ledgerScanCredits = -31;
    expect(failing(ledger)).toEqual(["credits spent (billing ledger) = launched scans' settlements"]);
    const unsettled = good();
    unsettled.scans[0] = scan("s1", "a", { settled: false });
    unsettled.ledgerScanCredits = -20;
    expect(failing(unsettled)).toEqual(["credits spent (billing ledger) = launched scans' settlements"]);
  });

  it("a command unanswered or answered twice, a key without TTL, growing memory or slow acknowledgements fail", () => {
    const f = good();
    f.commandPlaces.push({ place: "conversation:r#1", commands: 1, answers: 2 });
    f.keysWithoutEnd.push("state:pr:o/r#1");
    f.processes[0]!.samples = flat(0, [100, 100, 100, 100, 105, 110, 115, 120]);
    f.ack = { coldMs: [], idleMs: [3, 60], weekMs: [10, 250], failed: 0 };
    expect(failing(f)).toHaveLength(5);
  });

  it("a command written before the uninstall whose job ran after it is owed no answer, and is counted apart", () => {
    const f = good();
    f.commandPlaces.push({ place: "conversation:r#2", commands: 2, answers: 1, leftByUninstall: 1 });
    const row = checkWeek(f).find((r) => r.figure.startsWith("commands answered once"))!;
    expect(row.met).toBe(true);
    expect(row.measured).toContain("1 written before the uninstall, run after it");
    // answered although nothing could be answered: still a difference
    f.commandPlaces.push({ place: "conversation:r#3", commands: 1, answers: 1, leftByUninstall: 1 });
    expect(checkWeek(f).find((r) => r.figure.startsWith("commands answered once"))!.met).toBe(false);
  });

  it("the acknowledgement under the week tells each window's p99 apart", () => {
    const f = good();
    f.ack = { ...f.ack, weekMs: [10, 20, 30], weekWindowsMs: [[10], [20], [30]] };
    const row = checkWeek(f).find((r) => r.figure.includes("while the week runs"))!;
    expect(row.measured).toContain("p99 per window 10.0 / 20.0 / 30.0 ms");
  });

  it("RSS growth compares the last quarter's mean with the second's", () => {
    expect(rssGrowth(flat(0, [50, 50, 100, 100, 100, 100, 110, 110]), 0, 8000)).toBeCloseTo(0.1);
    expect(rssGrowth([], 0, 8000)).toBeNaN();
  });

  it("a fresh check run of the same scan (a triage recompute whose annotations changed) is not a second report", () => {
    const key = "pull requests whose newest head is reported exactly once";
    const f = good();
    f.runs = [run(1, "a", { externalId: "s1" }), run(9, "a", { externalId: "s1" }), run(2, "b"), run(3, "b")];
    expect(verdicts(f)[key]).toBe(true);
    // two scans reported on one head without a /rescan are two reports
    f.runs = [run(1, "a", { externalId: "s1" }), run(9, "a", { externalId: "s9" }), run(2, "b"), run(3, "b")];
    expect(verdicts(f)[key]).toBe(false);
  });

  it("the heap's floor per quarter is told beside the RSS row, without a target", () => {
    const f = good();
    const heaps = [40, 30, 35, 20, 45, 44, 60, 24];
    f.processes[0]!.samples = flat(0, [100, 100, 100, 100, 101, 101, 102, 102]).map((s, i) => ({
      ...s,
      heapUsedBytes: heaps[i]! * 2 ** 20,
    }));
    const rows = checkWeek(f).filter((r) => /^(RSS growth|V8 heap)/.test(r.figure));
    expect(rows.map((r) => [r.measured, r.met])).toEqual([
      ["2.0 % (100 MB → 102 MB)", true],
      ["20 MB → 24 MB (20.0 %)", null],
    ]);
  });

  it("RSS is told by part (V8's held heap, external, the rest) when the samples carry the parts", () => {
    const f = good();
    const rss = [100, 100, 100, 100, 110, 110, 130, 130];
    f.processes[0]!.samples = flat(0, rss).map((s, i) => ({
      ...s,
      heapTotalBytes: (i < 4 ? 60 : 62) * 2 ** 20,
      externalBytes: 8 * 2 ** 20,
    }));
    const row = checkWeek(f).find((r) => r.figure.startsWith("RSS by part"));
    // second quarter (samples 2–3): 100 − 60 − 8 = 32 MB of rest; last (samples 6–7): 130 − 62 − 8 = 60 MB
    expect([row?.measured, row?.met]).toEqual([
      "V8 heap held 60 MB → 62 MB; external 8 MB → 8 MB; rest (native) 32 MB → 60 MB",
      null,
    ]);
    // without the parts (an older child's samples) there is no such row
    f.processes[0]!.samples = flat(0, rss);
    expect(checkWeek(f).some((r) => r.figure.startsWith("RSS by part"))).toBe(false);
  });
});

describe("the acknowledgement inside the web process (diffward_webhook_duration_seconds)", () => {
  const exposition = (counts: Record<string, [number, number]>) =>
    [
      "# HELP diffward_webhook_duration_seconds Seconds …",
      "# TYPE diffward_webhook_duration_seconds histogram",
      ...Object.entries(counts).flatMap(([le, [pr, ping]]) => [
        `diffward_webhook_duration_seconds_bucket{le="${le}",event="pull_request"} ${pr}`,
        `diffward_webhook_duration_seconds_bucket{le="${le}",event="ping"} ${ping}`,
      ]),
      'diffward_webhook_duration_seconds_sum{event="pull_request"} 1.5',
      'diffward_webhook_duration_seconds_count{event="pull_request"} 10',
      'diffward_webhooks_total{event="pull_request",status="200"} 10',
    ].join("\n");

  it("sums the cumulative buckets over events, +Inf as Infinity", () => {
    const b = webhookBuckets(exposition({ "0.005": [1, 0], "0.05": [9, 1], "+Inf": [10, 1] }));
    expect([...b]).toEqual([
      [0.005, 1],
      [0.05, 10],
      [Infinity, 11],
    ]);
  });

  it("gives the bound of the first bucket holding 99 % of what was observed between two scrapes, in ms", () => {
    const before = webhookBuckets(
      exposition({ "0.005": [5, 0], "0.025": [5, 0], "0.05": [5, 0], "+Inf": [5, 0] }),
    );
    // 1,000 answers between the scrapes: 985 within 5 ms, 995 within 25 ms, all within 50 ms
    const after = webhookBuckets(
      exposition({ "0.005": [990, 0], "0.025": [1_000, 0], "0.05": [1_005, 0], "+Inf": [1_005, 0] }),
    );
    expect(serverP99Ms(before, after)).toBe(25);
    expect(serverP99Ms(after, after)).toBeUndefined();
    const slow = webhookBuckets(
      exposition({ "0.005": [5, 0], "0.025": [5, 0], "0.05": [5, 0], "+Inf": [1_005, 0] }),
    );
    expect(serverP99Ms(before, slow)).toBe(Infinity);
  });
});
