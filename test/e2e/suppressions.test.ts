import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { addedFilePatch, demoConfig } from "../../dev/harness/demo-repo.js";
import { writeConversationComment } from "../../dev/harness/triage.js";
import type { Severity } from "../../src/scanner/catalog.js";
import { findingLabel } from "../../src/scanner/labels.js";
import { toReportFinding } from "../../src/report/decide/findings.js";
import { applySuppressions } from "../../src/triage/suppressions.js";
import { checkRuns, completedRun, launchPosts, openPull, sha } from "../support/pr.js";
import { sandboxCalls } from "../support/commands.js";

/**
 * Inline suppressions end to end: `diffward-ignore <reason>: <note>` in the files of the pull request's head
 * commit on the GitHub stand-in, the scanning-service sandbox over HTTP with findings on chosen lines, a real
 * Redis; `suppressions: allow | approval | deny` and the organization floor.
 */
describe("inline suppressions: diffward-ignore at the head commit, under suppressions allow | approval | deny", () => {
  let h: Harness;
  let n = 0;
  const PATCH_RESOLUTION = "PATCH /projects/:projectId/findings/:findingId/resolution";
  beforeAll(async () => {
    h = await startHarness({ sandbox: { scenario: "demo", scanDurationMs: 1_000, retryAfterSeconds: 1 } });
  });
  afterAll(async () => h?.close());

  const files = ["src/server.js", "scripts/run.py", "src/db.sql"].map((filename) => ({
    filename,
    status: "added" as const,
    patch: addedFilePatch(40),
  }));
  type Placed = { title: string; location: string; severity: Severity };
  const at = (location: string, severity: Severity, title: string): Placed => ({ title, location, severity });
  /** 40 lines of code, `marked` lines replaced (1-based line → text). */
  const source = (marked: Record<number, string>) =>
    Array.from({ length: 40 }, (_, i) => marked[i + 1] ?? `line ${i + 1}`).join("\n");

  /**
   * A pull request whose scan finds `findings` under `config`, its head commit holding `contents` (path →
   * text): its completed check run and the pull request.
   */
  async function pullWith(
    config: string,
    findings: Placed[],
    contents: Record<string, string>,
    extra: Partial<Parameters<typeof openPull>[1]> = {},
  ) {
    const head = sha(0x3590 + ++n);
    const demo = h.sandbox.state.scenario!;
    const a = demo.findings.find((f) => f.triageStatus !== "FALSE_POSITIVE")!;
    h.sandbox.state.scenario = {
      ...demo,
      findings: findings.map((f) => ({ ...a, triageStatus: "CONFIRMED" as const, ...f })),
    };
    try {
      const pr = await openPull(h, {
        head,
        repo: `suppress-${n}`,
        private: true,
        files,
        config,
        send: false,
        ...extra,
      });
      for (const [path, text] of Object.entries(contents))
        h.github.state.setFile(pr.owner, pr.repo, head, path, text);
      expect((await h.send("pull_request", pr.payload)).status).toBe(200);
      const run = await completedRun(h, pr.owner, pr.repo, head, 30_000);
      return { run, pr, head };
    } finally {
      h.sandbox.state.scenario = demo;
    }
  }
  const finding = (head: string, title: string) =>
    [...h.sandbox.state.findings.values()].find((f) => f.commitHash === head && f.title === title)!;
  /** The contents requests for the pull request's changed files (not its config or guidance file). */
  const contentReads = (pr: { owner: string; repo: string }) =>
    h.github.requests
      .filter((r) => r.route === "/repos/{owner}/{repo}/contents/{path}")
      .map((r) => decodeURIComponent(r.path))
      .filter((p) => files.some((f) => p === `/repos/${pr.owner}/${pr.repo}/contents/${f.filename}`));
  async function auditOf(pr: { owner: string; repo: string }) {
    const audit = [];
    for await (const e of h.booted.rt.stores.audit.read({ repository: `${pr.owner}/${pr.repo}` }))
      audit.push(e);
    return audit.filter((e) => e.source === "suppression");
  }

  it("allow: a marker above the line (//) and one on it (#) set won't fix once each, with the note; a re-report writes and reads nothing again", async () => {
    const launches = launchPosts(h);
    const { run, pr, head } = await pullWith(
      demoConfig(),
      [
        at("src/server.js:8", "HIGH", "Open redirect"),
        at("scripts/run.py:6", "CRITICAL", "Shell injection"),
        at("src/server.js:30", "HIGH", "Unmarked leak"),
      ],
      {
        "src/server.js": source({ 7: "  // diffward-ignore risk_accepted: behind the VPN" }),
        "scripts/run.py": source({ 6: "run(x)  # diffward-ignore out_of_scope: a test tool" }),
      },
    );
    // the unmarked HIGH one still blocks; the two marked ones are suppressed
    expect(run.conclusion).toBe("failure");
    expect(run.output.title).toBe("1 blocking finding (1 high)");
    expect(run.output.summary).toContain(
      "Blocking: **1** · Pre-existing: **0** · Monitored: **0** · Suppressed: **2** · Held: **0**",
    );
    expect(run.output.summary).toContain("_suppressed inline at `src/server.js:7`_");
    expect(run.output.summary).toContain("_suppressed inline at `scripts/run.py:6`_");
    const author = pr.payload.pull_request.user.login as string;
    const redirect = finding(head, "Open redirect");
    expect(redirect.resolutionStatus).toBe("WONT_FIX");
    const note = redirect.notes.map((x) => x.body).join("\n");
    expect(note).toContain("Reason: `risk_accepted`. behind the VPN");
    expect(note).toContain(`src/server.js:7 (commit ${head.slice(0, 12)})`);
    expect(note).toContain(`@${author}`);
    expect(finding(head, "Shell injection").resolutionStatus).toBe("WONT_FIX");
    expect(finding(head, "Unmarked leak").resolutionStatus).toBe("NOT_STARTED");
    const patches = sandboxCalls(h, PATCH_RESOLUTION);
    // one contents request per file with findings at the head commit
    expect(contentReads(pr).sort()).toEqual([
      `/repos/${pr.owner}/${pr.repo}/contents/scripts/run.py`,
      `/repos/${pr.owner}/${pr.repo}/contents/src/server.js`,
    ]);
    expect(await auditOf(pr)).toEqual([
      expect.objectContaining({ action: "resolve", outcome: "applied", actor: author, to: "WONT_FIX" }),
      expect.objectContaining({ action: "resolve", outcome: "applied", actor: author, to: "WONT_FIX" }),
    ]);

    // the report again on the same head commit, with the findings as the scan listed them (a retry after a
    // crash): no second write, no second read of a file, no second audit entry
    const { rt } = h.booted;
    const listed = ["Open redirect", "Shell injection", "Unmarked leak"].map((t) => ({
      ...toReportFinding({ ...finding(head, t), resolutionStatus: "NOT_STARTED" } as never),
    }));
    const again = await applySuppressions(
      {
        rt,
        octokit: await rt.octokit(pr.payload.installation.id as number),
        tenant: (await rt.scanner.forAccount(pr.owner))!,
        log: rt.log,
      },
      {
        installationId: pr.payload.installation.id as number,
        accountLogin: pr.owner,
        owner: pr.owner,
        repo: pr.repo,
        pullNumber: pr.number,
        headSha: head,
        projectId: redirect.projectId,
        mode: "allow",
        approvers: "maintain",
      },
      listed,
    );
    expect(again.map((f) => f.resolutionStatus)).toEqual(["WONT_FIX", "WONT_FIX", "NOT_STARTED"]);
    expect(sandboxCalls(h, PATCH_RESOLUTION)).toBe(patches);
    expect(contentReads(pr)).toHaveLength(2);
    expect(await auditOf(pr)).toHaveLength(2);
    // suppressions launch no scan
    expect(launchPosts(h)).toBe(launches + 1);
  }, 60_000);

  it("approval: the marker (/* */ on the finding's line) is held until a maintainer approves; then won't fix, once", async () => {
    const { run, pr, head } = await pullWith(
      demoConfig("suppressions: approval"),
      [at("src/server.js:12", "HIGH", "Weak hash")],
      { "src/server.js": source({ 12: "hash(x); /* diffward-ignore code_being_removed: going away */" }) },
      { permissions: { "octo-maint": "maintain" } },
    );
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("Suppressed: **0** · Held: **1**");
    expect(run.output.summary).toContain("_suppression at `src/server.js:12` held for approval_");
    const weak = finding(head, "Weak hash");
    expect(weak.resolutionStatus).toBe("NOT_STARTED");
    expect(await auditOf(pr)).toEqual([
      expect.objectContaining({ action: "approval-request", outcome: "held" }),
    ]);
    const patches = sandboxCalls(h, PATCH_RESOLUTION);

    const say = writeConversationComment(h, {
      owner: pr.owner,
      repo: pr.repo,
      pullNumber: pr.number,
      login: "octo-maint",
      body: `/diffward approve ${findingLabel(weak.id)}`,
    });
    expect((await h.send("issue_comment", say)).status).toBe(200);
    const recomputed = await h.waitFor(
      () => checkRuns(h, pr.owner, pr.repo, head).find((c) => c.conclusion === "success"),
      20_000,
      "the check after the approval",
    );
    expect(finding(head, "Weak hash").resolutionStatus).toBe("WONT_FIX");
    expect(sandboxCalls(h, PATCH_RESOLUTION)).toBe(patches + 1);
    expect(recomputed.output.summary).toContain("Suppressed: **1** · Held: **0**");
  }, 60_000);

  it("deny: a valid marker (--) is not applied and says suppressions are not allowed here; a marker without a valid reason (<!-- -->) says why", async () => {
    const patches = sandboxCalls(h, PATCH_RESOLUTION);
    const { run, pr, head } = await pullWith(
      demoConfig("suppressions: deny"),
      [at("src/db.sql:5", "HIGH", "SQL grant")],
      { "src/db.sql": source({ 4: "-- diffward-ignore risk_accepted: admin only" }) },
    );
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain(
      "_`diffward-ignore` at `src/db.sql:4` not honoured: suppressions are not allowed here (`suppressions: deny`)_",
    );
    expect(finding(head, "SQL grant").resolutionStatus).toBe("NOT_STARTED");
    expect(await auditOf(pr)).toEqual([]);

    const bad = await pullWith(demoConfig(), [at("src/server.js:9", "HIGH", "XSS")], {
      "src/server.js": source({ 9: "<p>{x}</p> <!-- diffward-ignore because: trusted -->" }),
    });
    expect(bad.run.conclusion).toBe("failure");
    expect(bad.run.output.summary).toContain(
      "_`diffward-ignore` at `src/server.js:9` not honoured: `because` is not a reason for won't fix (reasons: `risk_accepted`",
    );
    expect(finding(bad.head, "XSS").resolutionStatus).toBe("NOT_STARTED");
    expect(sandboxCalls(h, PATCH_RESOLUTION)).toBe(patches);
  }, 60_000);
});
