import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { addedFilePatch, demoConfig } from "../../dev/harness/demo-repo.js";
import { pushPayload } from "../../dev/github-standin/index.js";
import type { Severity } from "../../src/scanner/catalog.js";
import { checkRuns, completedRun, openPull, sha } from "../support/pr.js";
import { writeConversationComment } from "../../dev/harness/triage.js";
import { findingLabel } from "../../src/scanner/labels.js";

/**
 * Per-path policies and the evaluation mode end to end: `.github/diffward.yml` on the GitHub stand-in, the
 * scanning-service sandbox over HTTP with findings placed under chosen paths, a real Redis.
 */
describe("policies: per-path modes, a path rule's own failOn, only: new and mode: evaluate", () => {
  let h: Harness;
  let n = 0;
  const repo = () => `policies-${++n}`;
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1 } });
  });
  afterAll(async () => h?.close());

  const files = [
    "src/server.js",
    "src/payments/pay.js",
    "test/app.test.js",
    "scripts/run.js",
    "docs/x.js",
  ].map((filename) => ({ filename, status: "added" as const, patch: addedFilePatch(40) }));
  type Placed = { title: string; location: string; severity: Severity };
  /** The demo scenario with only `findings` (each a demo finding moved and renamed). */
  const scenarioWith = (...findings: Placed[]) => {
    const demo = h.sandbox.state.scenario!;
    const a = demo.findings.find((f) => f.triageStatus !== "FALSE_POSITIVE")!;
    return { ...demo, findings: findings.map((f) => ({ ...a, triageStatus: "CONFIRMED" as const, ...f })) };
  };
  const at = (location: string, severity: Severity, title = `Finding in ${location}`): Placed => ({
    title,
    location,
    severity,
  });

  /** A pull request whose scan finds `findings` under `config`: its completed check run and the PR. */
  async function pullFinding(config: string, head: string, findings: Placed[], r = repo(), number?: number) {
    const demo = h.sandbox.state.scenario!;
    h.sandbox.state.scenario = scenarioWith(...findings);
    try {
      const pr = await openPull(h, {
        head,
        repo: r,
        private: true,
        files,
        config,
        ...(number ? { number } : {}),
      });
      const run = await completedRun(h, pr.owner, pr.repo, head, 30_000);
      return { run, pr };
    } finally {
      h.sandbox.state.scenario = demo;
    }
  }
  /** Sends a `push` of the default branch from `before` to `after`. */
  async function pushDefault(r: { owner: string; repo: string }, after: string, before: string) {
    const payload = pushPayload(h.github.state, { owner: r.owner, repo: r.repo, after, before });
    expect((await h.send("push", payload)).status).toBe(200);
  }
  /** The completed check run of a pull request opened under an invalid `config`. */
  async function configErrorRun(config: string, head: string) {
    const pr = await openPull(h, { head, repo: repo(), config });
    const run = await completedRun(h, pr.owner, pr.repo, head);
    expect(run.conclusion).toBe("failure");
    return run.output.summary;
  }
  const inlinePaths = (pr: { owner: string; repo: string; number: number }) =>
    h.github.state.reviewComments(pr.owner, pr.repo, pr.number).map((c) => c.path);
  const annotationAt = (run: { annotations: Array<Record<string, unknown>> }, path: string) =>
    run.annotations.find((x) => x["path"] === path);

  const modes = demoConfig(
    [
      "policies:",
      '  - paths: ["test/**"]',
      "    mode: monitor",
      '  - paths: ["scripts/**"]',
      "    mode: comment",
      '  - paths: ["docs/**"]',
      "    mode: off",
    ].join("\n"),
  );

  it("the check run of each mode, one high finding under src/: block fails, comment, monitor and off pass, evaluate is neutral", async ({
    annotate,
  }) => {
    const high = at("src/server.js:8", "HIGH", "Open redirect");
    const rule = (mode: string) => demoConfig(`policies:\n  - paths: ["src/**"]\n    mode: ${mode}`);
    const cases: [string, string, string, string, string][] = [
      [
        "block",
        rule("block"),
        "failure",
        "1 blocking finding (1 high)",
        "## ❌ 1 finding at or above `high` blocks this pull request",
      ],
      [
        "comment",
        rule("comment"),
        "success",
        "No blocking findings (1 open; 1 comment only)",
        "## ✅ No finding blocks this pull request (`policies`: 1 comment only)",
      ],
      [
        "monitor",
        rule("monitor"),
        "success",
        "No blocking findings (1 open; 1 monitored)",
        "## ✅ No finding blocks this pull request (`policies`: 1 monitored)",
      ],
      ["off", rule("off"), "success", "No blocking findings", "## ✅ No open finding at or above `high`"],
      [
        "evaluate",
        demoConfig("mode: evaluate"),
        "neutral",
        "Evaluation: 1 finding would block (1 high)",
        "## ⚪ 1 finding would block this pull request (1 high)",
      ],
    ];
    let head = 0x3570;
    for (const [mode, config, conclusion, title, heading] of cases) {
      const { run } = await pullFinding(config, sha(++head), [high]);
      // the summary down to the counts per outcome: the verdict, the effective policy and its counts
      const summary = run.output.summary ?? "";
      const policy = summary.indexOf("### Policy");
      const next = summary.slice(policy + 1).search(/\n\n(### |<details>|---)/);
      const top = next === -1 ? summary : summary.slice(0, policy + 1 + next);
      await annotate(`${mode}: conclusion ${run.conclusion}; title ${run.output.title}\n${top}`, "check run");
      expect([mode, run.conclusion, run.output.title]).toEqual([mode, conclusion, title]);
      expect(summary.split("\n")[0], mode).toBe(heading);
    }
  });

  it("comment posts inline and passes; monitor posts no inline comment, a notice annotation, and passes; off hides", async () => {
    const { run, pr } = await pullFinding(modes, sha(0x3501), [
      at("test/app.test.js:5", "CRITICAL", "Monitored secret"),
      at("scripts/run.js:6", "CRITICAL", "Commented injection"),
      at("docs/x.js:7", "CRITICAL", "Hidden thing"),
    ]);
    expect(run.conclusion).toBe("success");
    // comment: an inline comment; monitor and off: none
    expect(inlinePaths(pr)).toEqual(["scripts/run.js"]);
    expect(annotationAt(run, "test/app.test.js")).toMatchObject({ annotation_level: "notice" });
    expect(String(annotationAt(run, "test/app.test.js")!["message"])).toContain("Monitored");
    expect(annotationAt(run, "scripts/run.js")).toMatchObject({ annotation_level: "warning" });
    // off: not shown anywhere, not counted
    expect(annotationAt(run, "docs/x.js")).toBeUndefined();
    expect(run.output.summary).not.toContain("Hidden thing");
    expect(run.output.text ?? "").not.toContain("Hidden thing");
    expect(run.output.summary).toContain("2 findings: 2 open (0 blocking), 0 ruled out");
    // the effective policy with its source, the counts per outcome, and each row's rule
    expect(run.output.summary).toContain("### Policy");
    expect(run.output.summary).toContain(
      "| `policies[0]` | `test/** → monitor` | repository file (.github/diffward.yml) |",
    );
    expect(run.output.summary).toContain(
      "Blocking: **0** · Pre-existing: **0** · Monitored: **1** · Suppressed: **0** · Held: **0** · Comment only: **1**",
    );
    expect(run.output.summary).toMatch(/Monitored secret \|.*\| `policies\[0\] test\/\*\*` · monitor \|/);
    expect(run.output.summary).toMatch(
      /Commented injection \|.*\| `policies\[1\] scripts\/\*\*` · comment \|/,
    );
  });

  it("block (no rule matches) fails beside the other modes, with an inline comment; its row names failOn", async () => {
    const { run, pr } = await pullFinding(modes, sha(0x3502), [
      at("src/server.js:8", "HIGH", "Blocking redirect"),
      at("test/app.test.js:5", "CRITICAL", "Monitored secret"),
      at("docs/x.js:7", "CRITICAL", "Hidden thing"),
    ]);
    expect(run.conclusion).toBe("failure");
    expect(run.output.title).toBe("1 blocking finding (1 high)");
    expect(inlinePaths(pr)).toEqual(["src/server.js"]);
    expect(annotationAt(run, "src/server.js")).toMatchObject({ annotation_level: "failure" });
    expect(run.output.summary).toMatch(/Blocking redirect \|.*\| `failOn` \|/);
    expect(run.output.summary).toContain("Blocking: **1** · Pre-existing: **0** · Monitored: **1**");
  });

  const payments = demoConfig('policies:\n  - paths: ["src/payments/**"]\n    failOn: medium');

  it("a path rule's own failOn: medium under src/payments fails, where medium elsewhere passes under failOn: high", async () => {
    const elsewhere = await pullFinding(payments, sha(0x3511), [at("src/server.js:8", "MEDIUM")]);
    expect(elsewhere.run.conclusion).toBe("success");
    const pay = await pullFinding(payments, sha(0x3512), [
      at("src/payments/pay.js:9", "MEDIUM", "Rounding leak"),
    ]);
    expect(pay.run.conclusion).toBe("failure");
    expect(pay.run.output.title).toBe("1 blocking finding (1 medium)");
    expect(pay.run.output.summary).toMatch(/Rounding leak \|.*\| `policies\[0\] src\/payments\/\*\*` \|/);
    expect(pay.run.output.summary).toContain("| `policies[0]` | `src/payments/** → block, failOn medium` |");
  });

  it("a triage recompute applies the same policy as the report: after /severity low on the payments finding, the monitored high one does not block", async () => {
    const config = demoConfig(
      'policies:\n  - paths: ["test/**"]\n    mode: monitor\n  - paths: ["src/payments/**"]\n    failOn: medium',
    );
    const head = sha(0x3561);
    const { run, pr } = await pullFinding(config, head, [
      at("test/app.test.js:5", "HIGH", "Monitored secret"),
      at("src/payments/pay.js:9", "MEDIUM", "Rounding leak"),
    ]);
    expect(run.conclusion).toBe("failure");
    const leak = [...h.sandbox.state.findings.values()].find(
      (f) => f.commitHash === head && f.title === "Rounding leak",
    )!;
    h.github.state.setPermission(pr.owner, pr.repo, "octo-writer", "write");
    const say = writeConversationComment(h, {
      owner: pr.owner,
      repo: pr.repo,
      pullNumber: pr.number,
      login: "octo-writer",
      body: `/diffward severity ${findingLabel(leak.id)} low`,
    });
    expect((await h.send("issue_comment", say)).status).toBe(200);
    const recomputed = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.conclusion === "success"),
      20_000,
      "the recomputed check run",
    );
    expect(recomputed.output.title).toBe("No blocking findings (2 open; 1 monitored)");
    expect(recomputed.output.summary).toContain("Blocking: **0** · Pre-existing: **0** · Monitored: **1**");
    expect(recomputed.output.summary).toMatch(
      /Monitored secret \|.*\| `policies\[0\] test\/\*\*` · monitor \|/,
    );
    // the policy's parts name their files as the report did (mode: no file sets it)
    expect(recomputed.output.summary).toContain("| `mode` | `enforce` | default |");
    expect(recomputed.output.summary).toContain(
      "| `policies[1]` | `src/payments/** → block, failOn medium` | repository file (.github/diffward.yml) |",
    );
  });

  it("only: new under a path rule: a finding already open on the default branch's baseline does not block, a new one does", async () => {
    const r = repo();
    const config = demoConfig(
      [
        "baseline:",
        "  on: push",
        "  preset: full-standard",
        "policies:",
        '  - paths: ["src/payments/**"]',
        "    failOn:",
        "      severity: medium",
        "      only: new",
      ].join("\n"),
    );
    const old = at("src/payments/pay.js:9", "MEDIUM", "Rounding leak");
    const seeded = await openPull(h, { head: sha(0x3520), repo: r, config, private: true, send: false });
    const demo = h.sandbox.state.scenario!;
    h.sandbox.state.scenario = scenarioWith(old);
    try {
      await pushDefault(seeded, sha(0x3521), sha(0x3520));
      await completedRun(h, seeded.owner, seeded.repo, sha(0x3521), 30_000);
    } finally {
      h.sandbox.state.scenario = demo;
    }

    const onlyOld = await pullFinding(config, sha(0x3522), [old], r, 91);
    expect(onlyOld.run.conclusion).toBe("success");
    expect(onlyOld.run.output.summary).toContain("Blocking: **0** · Pre-existing: **1**");
    expect(onlyOld.run.output.summary).toMatch(/ _pre-existing_ \|/);

    const withNew = await pullFinding(
      config,
      sha(0x3523),
      [old, at("src/payments/refund.js:4", "MEDIUM")],
      r,
      92,
    );
    expect(withNew.run.conclusion).toBe("failure");
    expect(withNew.run.output.summary).toContain("Blocking: **1** · Pre-existing: **1**");
  });

  it("mode: evaluate: where the check would fail it concludes neutral and says why", async () => {
    const { run, pr } = await pullFinding(demoConfig("mode: evaluate"), sha(0x3531), [
      at("src/server.js:8", "HIGH", "Blocking redirect"),
    ]);
    expect(run.conclusion).toBe("neutral");
    expect(run.output.title).toBe("Evaluation: 1 finding would block (1 high)");
    expect(run.output.summary).toContain("## ⚪ 1 finding would block this pull request (1 high)");
    expect(run.output.summary).toContain("`mode: evaluate`");
    expect(run.output.summary).toContain("it concludes `neutral` instead");
    expect(run.output.summary).toContain("Would block: **1**");
    expect(run.output.summary).toContain("1 finding: 1 open (1 would block), 0 ruled out");
    // what it would conclude is still shown: the failure annotation and the inline comment
    expect(annotationAt(run, "src/server.js")).toMatchObject({ annotation_level: "failure" });
    expect(inlinePaths(pr)).toEqual(["src/server.js"]);
  });

  it("an unknown mode or a paths entry that is not a glob: the check run names the problem and its line; nothing is launched", async () => {
    const scans = h.sandbox.state.scans.size;
    const badMode = await configErrorRun(
      'repositoryId: repo_demo\npolicies:\n  - paths: ["test/**"]\n    mode: silent\n',
      sha(0x3541),
    );
    expect(badMode).toContain(
      'policies[0].mode (line 4): must be one of block, comment, monitor, off (got "silent")',
    );
    const badGlob = await configErrorRun(
      'repositoryId: repo_demo\npolicies:\n  - paths: ["src/{a,b"]\n',
      sha(0x3542),
    );
    expect(badGlob).toContain("policies[0].paths[0] (line 3): not a valid glob: it has an unclosed `{`");
    expect(h.sandbox.state.scans.size).toBe(scans);
  });

  it("changing only policies launches nothing: a push of the default branch's new policies and an edited pull request", async () => {
    const { pr } = await pullFinding(payments, sha(0x3551), [at("src/server.js:8", "MEDIUM")]);
    const scans = h.sandbox.state.scans.size;
    const branch = h.github.state.repository(pr.owner, pr.repo)!.defaultBranch;
    h.github.state.setFile(pr.owner, pr.repo, branch, ".github/diffward.yml", modes);
    await pushDefault(pr, sha(0x3552), sha(0x3550));
    const edited = { ...pr.payload, action: "edited", changes: { title: { from: "old title" } } };
    expect((await h.send("pull_request", edited)).status).toBe(200);
    await h.waitFor(
      async () => (await h.booted.rt.queues.events.getJobCounts("waiting", "active", "delayed")).active === 0,
      10_000,
      "events idle",
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(h.sandbox.state.scans.size).toBe(scans);
    expect(checkRuns(h, pr.owner, pr.repo, sha(0x3552))).toEqual([]);
    expect(checkRuns(h, pr.owner, pr.repo, sha(0x3551))).toHaveLength(1);
  });
});
