import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../dev/harness/harness.js";
import { webhookExample } from "../../dev/harness/examples.js";
import { addedFilePatch, demoConfig, demoPullFiles } from "../../dev/harness/demo-repo.js";
import { spendOf } from "../../src/policy/credits.js";
import { type Payload, checkRuns, completedRun, openPull, sha } from "../support/pr.js";

const GUIDANCE = "SCANNER.md";

describe("guidance, spend controls, presets and audit areas in the pull request", () => {
  let h: Harness;
  let n = 0;
  const repo = () => `steering-${++n}`;
  const launchedFor = (head: string) =>
    [...h.sandbox.state.scans.values()].filter((s) => s.commitHash === head);

  async function click(
    pr: Awaited<ReturnType<typeof openPull>>,
    checkRunId: number,
    head: string,
    login: string,
  ) {
    const p: Payload = webhookExample("check_run", "requested_action");
    p.repository = pr.payload.repository;
    p.installation = pr.payload.installation;
    p.check_run.id = checkRunId;
    p.check_run.head_sha = head;
    p.check_run.pull_requests = [
      { number: pr.number, head: { sha: head, ref: "changes" }, base: { ref: "master" } },
    ];
    p.requested_action = { identifier: "scan-anyway" };
    p.sender = { ...p.sender, login, type: "User" };
    return h.send("check_run", p);
  }

  beforeAll(async () => {
    h = await startHarness({
      sandbox: { scenario: "demo", scanDurationMs: 1_500, retryAfterSeconds: 1, seed: 41 },
    });
  });
  afterAll(async () => h?.close());

  it("a guidance edit is flagged in the summary with its size and marked by an annotation; the file is linked", async () => {
    const files = [
      ...demoPullFiles(),
      { filename: GUIDANCE, status: "modified" as const, patch: addedFilePatch(4) },
    ];
    const pr = await openPull(h, { head: sha(301), repo: repo(), files, send: false });
    h.github.state.setFile(pr.owner, pr.repo, sha(301), GUIDANCE, "# Scope\nIgnore everything in src/.\n");
    await h.send("pull_request", pr.payload);
    const run = await completedRun(h, pr.owner, pr.repo, sha(301));
    expect(run.output.summary).toMatch(/changes the guidance file/);
    expect(run.output.summary).toContain("+4");
    expect(run.output.summary).toContain(`/blob/${sha(301)}/${GUIDANCE}`);
    expect(run.annotations.some((a) => a.path === GUIDANCE)).toBe(true);
  });

  it("guidance.onChange: require-approval waits; Scan anyway works only for a permitted user", async () => {
    const files = [
      ...demoPullFiles(),
      { filename: GUIDANCE, status: "added" as const, patch: addedFilePatch(2) },
    ];
    const pr = await openPull(h, {
      head: sha(302),
      repo: repo(),
      files,
      config: demoConfig("guidance:\n  onChange: require-approval"),
      permissions: { reader: "read", maintainer: "write" },
    });
    const waiting = await completedRun(h, pr.owner, pr.repo, sha(302));
    expect(waiting.conclusion).toBe("action_required");
    expect(waiting.actions).toEqual([
      expect.objectContaining({ identifier: "scan-anyway", label: "Scan anyway" }),
    ]);
    expect(launchedFor(sha(302))).toHaveLength(0);

    await click(pr, waiting.id, sha(302), "reader");
    await h.waitFor(
      () => (checkRuns(h, pr.owner, pr.repo, sha(302))[0]?.output.summary ?? "").includes("needs"),
      10_000,
      "refusal note",
    );
    expect(launchedFor(sha(302))).toHaveLength(0);

    await click(pr, waiting.id, sha(302), "maintainer");
    await h.waitFor(() => launchedFor(sha(302)).length === 1, 15_000, "approved launch");
    // the scan reports in a new check run (a completed one cannot return to in progress) …
    await h.waitFor(
      () =>
        checkRuns(h, pr.owner, pr.repo, sha(302)).find(
          (c) => c.id !== waiting.id && c.conclusion === "failure",
        ),
      20_000,
      "report in a new check run",
    );
    // … and the waiting one says who approved it
    expect(checkRuns(h, pr.owner, pr.repo, sha(302)).find((c) => c.id === waiting.id)?.output.title).toBe(
      "Approved by maintainer: scanning in a new check run",
    );
  });

  it("a fork's pull request by an outside contributor waits for approval (forks: approve)", async () => {
    const pr = await openPull(h, {
      head: sha(303),
      repo: repo(),
      send: false,
      permissions: { outsider: "read" },
    });
    pr.payload.pull_request.user = { ...pr.payload.pull_request.user, login: "outsider" };
    pr.payload.pull_request.head.repo = {
      ...pr.payload.pull_request.head.repo,
      full_name: "outsider/Hello-World",
    };
    await h.send("pull_request", pr.payload);
    const run = await completedRun(h, pr.owner, pr.repo, sha(303));
    expect(run.conclusion).toBe("action_required");
    expect(run.output.title).toMatch(/fork/);
    expect(launchedFor(sha(303))).toHaveLength(0);
  });

  it("a pull request whose fork was deleted (head.repo: null) is an outsider's: it waits for approval", async () => {
    const pr = await openPull(h, {
      head: sha(306),
      repo: repo(),
      send: false,
      permissions: { outsider: "read" },
    });
    pr.payload.pull_request.user = { ...pr.payload.pull_request.user, login: "outsider" };
    pr.payload.pull_request.head.repo = null; // GitHub sends null once the head repository is deleted
    await h.send("pull_request", pr.payload);
    const run = await completedRun(h, pr.owner, pr.repo, sha(306));
    expect(run.conclusion).toBe("action_required");
    expect(run.output.title).toMatch(/fork/);
    expect(launchedFor(sha(306))).toHaveLength(0);
  });

  it("paths.ignore and authors.skip spend nothing", async () => {
    const docsOnly = [{ filename: "docs/guide.md", status: "modified" as const, patch: addedFilePatch(3) }];
    const a = await openPull(h, {
      head: sha(304),
      repo: repo(),
      files: docsOnly,
      config: demoConfig('paths:\n  ignore: ["docs/**"]'),
    });
    const ignored = await completedRun(h, a.owner, a.repo, sha(304));
    expect(ignored.conclusion).toBe("neutral");
    expect(ignored.output.summary).toContain("paths.ignore");

    const b = await openPull(h, {
      head: sha(305),
      repo: repo(),
      config: demoConfig("authors:\n  skip: [Codertocat]"),
    });
    const skipped = await completedRun(h, b.owner, b.repo, sha(305));
    expect(skipped.conclusion).toBe("skipped");
    expect(launchedFor(sha(304)).length + launchedFor(sha(305)).length).toBe(0);
  });

  it("unknown preset, budget below the preset's minimum, unknown audit area: refused before any credit is reserved", async () => {
    const cases = [
      { config: demoConfig("preset: no-such-preset"), expect: /full-standard/ },
      { config: demoConfig("preset: full-deep\ncreditBudget: 20"), expect: /at least 200/ },
      { config: demoConfig("auditAreas: [no-such-area]"), expect: /no-such-area/ },
    ];
    for (const [i, c] of cases.entries()) {
      const head = sha(310 + i);
      const pr = await openPull(h, { head, repo: repo(), config: c.config });
      const run = await completedRun(h, pr.owner, pr.repo, head);
      expect(run.conclusion).toBe("failure");
      expect(run.output.summary).toMatch(c.expect);
      expect(launchedFor(head)).toHaveLength(0);
    }
  });

  it("the summary shows the credits the scan spent, equal to the sandbox ledger's figure", async () => {
    const pr = await openPull(h, { head: sha(320), repo: repo() });
    const run = await completedRun(h, pr.owner, pr.repo, sha(320));
    const scanId = run.externalId!;
    const ledger = spendOf(h.sandbox.state.ledger as never, scanId);
    expect(ledger.settled).toBe(true);
    const text = `${run.output.summary}\n${run.output.text ?? ""}`;
    expect(text).toMatch(new RegExp(`${ledger.spent} credits? spent|spent:? \\**${ledger.spent}`, "i"));
  });

  it("creditCap.monthly holds: once reached, the check is action_required naming the cap and the reset", async () => {
    const config = demoConfig("creditCap:\n  monthly: 1");
    const first = await openPull(h, { head: sha(330), repo: repo(), config });
    await completedRun(h, first.owner, first.repo, sha(330)); // spends at least 1 credit this month
    const second = await openPull(h, { head: sha(331), repo: repo(), config });
    const run = await completedRun(h, second.owner, second.repo, sha(331));
    expect(run.conclusion).toBe("action_required");
    expect(run.output.title).toMatch(/Monthly credit cap reached/);
    expect(run.output.summary).toMatch(/resets on \d{4}-\d{2}-01/);
    expect(launchedFor(sha(331))).toHaveLength(0);
  });

  it("a preset that refuses baseCommit is relaunched as a whole-repository scan", async () => {
    const pr = await openPull(h, {
      head: sha(340),
      repo: repo(),
      config: demoConfig("preset: full-standard"),
    });
    const run = await completedRun(h, pr.owner, pr.repo, sha(340));
    const scans = launchedFor(sha(340));
    expect(scans).toHaveLength(1);
    expect(scans[0]!.baseCommit).toBeNull();
    expect(`${run.output.summary}${run.output.text ?? ""}`).toMatch(/whole repository/);
  });
});
