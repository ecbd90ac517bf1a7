/**
 * The organization's page's data against a real Redis seeded the way diffward's flows write it, the sandbox
 * of the service over HTTP (the billing balance) and the GitHub stand-in (the installation's health).
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { Worker } from "bullmq";
import pino from "pino";
import { ProbotOctokit } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devPrivateKey } from "../../dev/harness/harness.js";
import { startGitHubStandIn, type GitHubStandIn } from "../../dev/github-standin/index.js";
import { applyFaults, startSandbox, type Sandbox } from "../../dev/sandbox/index.js";
import { createOrgPageDeps, loadInstallationPage, type OrgPageDeps } from "../../src/org-page/page-data.js";
import { jobId } from "../../src/runtime/names.js";
import { createQueues } from "../../src/runtime/queues.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import type { ScanLink } from "../../src/stores/scan-state.js";
import { RepoConfig } from "../../src/config/repo-config.js";
import { reportedFinding } from "../../src/report/decide/report-state.js";
import { createStores } from "../../src/stores/index.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { serviceReachability } from "../../src/runtime/health.js";
import { createScannerAccess } from "../../src/tenants/index.js";
import { storeApprovalRequest } from "../../src/triage/approvals.js";
import { recordDecisionWithExpiry } from "../../src/triage/expiry.js";
import { flushPrefix } from "../support/flush.js";
import type { InstallationOctokit } from "../../src/github/octokit-types.js";
import { JOBS } from "../../src/job-catalogue/index.js";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url, { maxRetriesPerRequest: null });
const prefix = `{op-${randomBytes(4).toString("hex")}}`;
const queues = createQueues({ connection: redis, prefix });
/** 20 November 2026, 12:00 UTC. */
const clock = { t: Date.UTC(2026, 10, 20, 12) };
const log = pino({ level: "silent" });
const stores = createStores(redis, prefix, { settings: DEFAULT_SETTINGS, now: () => clock.t, log });
const BALANCE = "GET /projects/:projectId/billing/balance";
let sandbox: Sandbox;
let github: GitHubStandIn;
let rt: OrgPageDeps["rt"];

const balanceCalls = () =>
  Object.values(sandbox.state.stats.requests[BALANCE] ?? {}).reduce((a, b) => a + b, 0);

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 26 });
  github = await startGitHubStandIn();
  github.state.addInstallation({ id: 7, account: { login: "acme", type: "Organization" } });
  for (const name of ["web", "api", "secret"])
    github.state.addRepository({ owner: "acme", name, installationId: 7 });
  rt = {
    redis,
    stores,
    queues,
    scanner: createScannerAccess({ baseUrl: sandbox.url, tokens: () => ({ acme: "sandbox-token" }) }),
    octokit: async (installationId) =>
      new ProbotOctokit({
        baseUrl: github.url,
        auth: { appId: 1, privateKey: devPrivateKey(), installationId },
        retry: { enabled: false },
        throttle: { enabled: false },
      }) as unknown as InstallationOctokit,
    now: () => clock.t,
    log,
    serviceHealth: serviceReachability({ baseUrl: sandbox.url, token: "sandbox-token" }),
  };
  await seed();
});

afterAll(async () => {
  await Promise.all(Object.values(queues).map((q) => q.close()));
  await flushPrefix(prefix, url);
  redis.disconnect();
  await Promise.all([sandbox.close(), github.close()]);
});

function link(scanId: string, repo: string, pullNumber: number): ScanLink {
  return {
    scanId,
    projectId: "prj_demo",
    installationId: 7,
    accountLogin: "acme",
    owner: "acme",
    repo,
    pullNumber,
    headSha: `${pullNumber}`.padEnd(40, "0"),
    checkRunId: 100 + pullNumber,
  };
}

/** What the report, settle, poll, pull-request and approval flows record, for acme/web, acme/api and acme/secret. */
async function seed(): Promise<void> {
  const records = stores.orgRecords;
  const oct = Date.UTC(2026, 9, 5);
  const now = clock.t;
  await records.recordSpend(
    7,
    oct,
    { scanId: "s_oct", repository: "acme/web", pullNumber: 4, credits: 70, settled: true },
    500,
  );
  await records.recordSpend(
    7,
    now,
    { scanId: "s_web1", repository: "acme/web", pullNumber: 11, credits: 40, settled: true },
    500,
  );
  await records.recordSpend(
    7,
    now,
    { scanId: "s_web2", repository: "acme/web", pullNumber: 11, credits: 25, settled: false },
    500,
  );
  await records.recordSpend(7, now, {
    scanId: "s_sec",
    repository: "acme/secret",
    pullNumber: 2,
    credits: 300,
    settled: true,
  });
  for (const [i, repository] of ["acme/web", "acme/secret", "acme/web"].entries())
    await records.recordReport(7, {
      scanId: ["s_web1", "s_sec", "s_web2"][i]!,
      repository,
      pullNumber: [11, 2, 11][i]!,
      headSha: "f".repeat(40),
      conclusion: "success",
      severities: { HIGH: i },
      receivedAt: now - 600_000 + i,
      reportedAt: now - 500_000 + i * 1000,
    });
  await records.recordConfig(7, "acme/api", "failOn: expected one of critical, high, medium, low", now);
  await records.recordConfig(7, "acme/secret", "YAML: unexpected end", now);
  for (const l of [link("s_live", "web", 12), link("s_hidden", "secret", 3), link("s_new", "api", 5)]) {
    await stores.scans.linkScan(l);
    if (l.scanId === "s_new") continue;
    const job = await queues.scans.add(
      JOBS.poll.name,
      { ...l, launchedAt: now - 90_000 },
      { jobId: jobId("poll", l.scanId), delay: 60_000 },
    );
    await job.updateProgress({
      status: "PROCESSING",
      percent: 35,
      readAt: now - 1_000,
      nextReadAt: now + 4_000,
    });
  }
  const request = {
    findingId: "fnd_1",
    fingerprint: "a".repeat(64),
    severity: "HIGH" as const,
    resolutionStatus: "FALSE_POSITIVE" as const,
    requestedBy: "bob",
    requestedAt: "2026-11-19T10:00:00Z",
    approvers: "maintain" as const,
  };
  await storeApprovalRequest(rt as Runtime, "acme/web#11", request);
  await storeApprovalRequest(rt as Runtime, "acme/secret#2", {
    ...request,
    findingId: "fnd_2",
    codeowners: true,
    codeOwners: { file: "a.js", owners: ["@dana", "@acme/payments"], notes: [] },
  });
  // the pull request's last report, as the report job stores it: the findings with their review comments
  const reported = (id: string, commentId: number) =>
    reportedFinding(
      {
        id,
        title: "t",
        location: "a.js:1",
        severity: "HIGH",
        category: "c",
        triageStatus: "NEW",
        resolutionStatus: "NOT_STARTED",
      },
      "SC",
      commentId,
    );
  await stores.reports.put("acme/web#11", {
    scanId: "scn_11",
    projectId: "prj_1",
    checkRunId: 1,
    headSha: "a".repeat(40),
    installationId: 7,
    accountLogin: "acme",
    config: RepoConfig.parse({ repositoryId: "repo_1" }),
    presetRef: "diff-standard",
    findings: [reported("fnd_1", 555), reported("fnd_9", 9)],
    reportedAt: clock.t,
  });
  // acceptances with an expiry, as /wontfix … until … records them: two within 30 days, one later
  const day = 86_400_000;
  for (const [repo, pullNumber, findingId, inDays] of [
    ["web", 11, "fnd_9", 5],
    ["secret", 2, "fnd_8", 3],
    ["web", 11, "fnd_7", 45],
  ] as const)
    await recordDecisionWithExpiry(
      rt as Runtime,
      { installationId: 7, accountLogin: "acme", owner: "acme", repo, pullNumber },
      {
        findingId,
        fingerprint: findingId.padEnd(64, "0").replace(/[^0-9a-f]/g, "0"),
        severity: "HIGH",
        resolutionStatus: "WONT_FIX",
        by: "carol",
        at: new Date(now).toISOString(),
        expiresAt: new Date(now + inDays * day).toISOString(),
      },
      "command",
      rt.log,
    );
  await failJob(
    { installationId: 7, owner: "acme", repo: "web", pullNumber: 11 },
    "GitHub 502 on every attempt",
  );
  await failJob(
    { installationId: 7, owner: "acme", repo: "secret", pullNumber: 2 },
    "secret repository's failure",
  );
  await failJob(
    { installationId: 8, owner: "other", repo: "x", pullNumber: 1 },
    "another installation's failure",
  );
}

async function failJob(data: Record<string, unknown>, reason: string): Promise<void> {
  const id = `report-${String(data.repo)}`;
  await queues.reports.add(JOBS.report.name, data, { jobId: id, attempts: 1 });
  const worker = new Worker(queues.reports.name, async () => Promise.reject(new Error(reason)), {
    connection: redis,
    prefix,
  });
  try {
    for (let t = 0; t < 100 && !(await queues.reports.getJob(id))?.finishedOn; t += 1)
      await new Promise((r) => setTimeout(r, 50));
  } finally {
    await worker.close();
  }
}

const owner = { orgWide: true, repositories: "all" } as const;
const member = { orgWide: false, repositories: new Set(["acme/web", "ACME/api"]) };

describe("loadInstallationPage", () => {
  it("gives an organization owner every section from diffward's own records", async () => {
    const deps = createOrgPageDeps(rt, {
      accountOf: async () => "acme",
      githubUrl: "https://github.com",
      outsideBudgetMs: 10_000,
    });
    const page = await loadInstallationPage(deps, 7, owner);
    expect(page.credits).toMatchObject({
      balance: expect.any(Number),
      available: expect.any(Number),
      reserved: expect.any(Number),
    });
    expect(page.spend.months).toEqual(["2026-06", "2026-07", "2026-08", "2026-09", "2026-10", "2026-11"]);
    expect(page.spend.monthSpent).toBe(365);
    expect(page.spend.caps).toEqual([
      {
        repository: "acme/web",
        cap: 500,
        spent: 65,
        forecast: expect.objectContaining({ kind: "not-this-month" }),
      },
    ]);
    const web = page.spend.repositories.find((r) => r.repository === "acme/web")!;
    expect(web.months.map((m) => m.credits)).toEqual([0, 0, 0, 0, 70, 65]);
    expect(web.months[5]!.pulls).toEqual([{ pullNumber: 11, credits: 65, settled: false }]);
    expect(page.inFlight.map((s) => [s.scanId, s.status, s.percent, s.nextPollAt])).toEqual([
      ["s_hidden", "PROCESSING", 35, clock.t + 4_000],
      ["s_live", "PROCESSING", 35, clock.t + 4_000],
      ["s_new", "LAUNCHED", null, null],
    ]);
    expect(page.reports.map((r) => [r.scanId, r.credits, r.settled])).toEqual([
      ["s_web2", 25, false],
      ["s_sec", 300, true],
      ["s_web1", 40, true],
    ]);
    expect(page.reports[0]!.pushToReportMs).toBe(102_000 - 2);
    expect(page.approvals.map((a) => [a.repository, a.findingId, a.commentId, a.owners])).toEqual([
      ["acme/secret", "fnd_2", null, ["@dana", "@acme/payments"]],
      ["acme/web", "fnd_1", 555, []],
    ]);
    expect(page.expiring).toEqual({
      available: true,
      items: [
        expect.objectContaining({ repository: "acme/secret", findingId: "fnd_8", commentId: null }),
        {
          repository: "acme/web",
          pullNumber: 11,
          findingId: "fnd_9",
          resolutionStatus: "WONT_FIX",
          by: "carol",
          expiresAt: clock.t + 5 * 86_400_000,
          commentId: 9,
        },
      ],
    });
    expect(page.problems.invalidConfigs.map((c) => c.repository)).toEqual(["acme/api", "acme/secret"]);
    expect(page.problems.missingToken).toBe(false);
    expect(page.problems.service.state).toBe("ok");
    expect(page.problems.github).toEqual({ state: "ok", detail: "3 repositories" });
    expect(page.problems.queues!.find((q) => q.queue === "diffward-scans")!.delayed).toBe(2);
    expect(page.problems.failedJobs.map((j) => j.reason).sort()).toEqual([
      "GitHub 502 on every attempt",
      "secret repository's failure",
    ]);
  });

  it("never shows a repository outside the viewer's access, nor organization-wide figures to a member", async () => {
    const deps = createOrgPageDeps(rt, {
      accountOf: async () => "acme",
      githubUrl: "https://github.com",
      outsideBudgetMs: 10_000,
    });
    const page = await loadInstallationPage(deps, 7, member);
    expect(JSON.stringify(page)).not.toMatch(/secret|s_hidden|fnd_2|another installation/);
    expect(page.credits).toBeNull();
    expect(page.spend.monthSpent).toBeNull();
    expect(page.spend.caps).toEqual([]);
    expect(page.problems.missingToken).toBeNull();
    expect(page.problems.queues).toBeNull();
    expect(page.inFlight.map((s) => s.scanId)).toEqual(["s_live", "s_new"]);
    expect(page.expiring.items.map((e) => e.findingId)).toEqual(["fnd_9"]);
    expect(page.problems.failedJobs.map((j) => j.repository)).toEqual(["acme/web"]);
  });

  it("asks the service for the balance at most once a minute per installation, whatever the loads", async () => {
    const deps = createOrgPageDeps(rt, {
      accountOf: async () => "acme",
      githubUrl: "https://github.com",
      outsideBudgetMs: 10_000,
    });
    const before = balanceCalls();
    const [a, b] = await Promise.all([
      loadInstallationPage(deps, 7, owner),
      loadInstallationPage(deps, 7, owner),
    ]);
    clock.t += 59_000;
    const c = await loadInstallationPage(deps, 7, owner);
    expect(balanceCalls() - before).toBe(1);
    expect(b.credits).toEqual(a.credits);
    expect(c.credits).toEqual(a.credits);
    clock.t += 1_000;
    await loadInstallationPage(deps, 7, owner);
    expect(balanceCalls() - before).toBe(2);
    // a member's load asks nothing
    await loadInstallationPage(deps, 7, member);
    expect(balanceCalls() - before).toBe(2);
  });

  it("says when the account has no service token", async () => {
    const deps = createOrgPageDeps(rt, {
      accountOf: async () => "nobody",
      githubUrl: "https://github.com",
      outsideBudgetMs: 10_000,
    });
    const page = await loadInstallationPage(deps, 7, { orgWide: true, repositories: new Set(["acme/web"]) });
    expect(page.credits).toEqual({ error: "no service token for this account" });
    expect(page.problems.missingToken).toBe(true);
  });

  it("waits at most its budget for a slow service or GitHub, and shows their answer once it landed", async () => {
    const slowGitHub: OrgPageDeps["rt"] = {
      ...rt,
      octokit: async (id) => {
        await new Promise((r) => setTimeout(r, 4_000));
        return rt.octokit(id);
      },
    };
    const deps = createOrgPageDeps(slowGitHub, {
      accountOf: async () => "acme",
      githubUrl: "https://github.com",
      outsideBudgetMs: 300,
    });
    applyFaults(sandbox.state, { latencyMs: 4_000 });
    try {
      const t0 = Date.now();
      const page = await loadInstallationPage(deps, 7, owner);
      expect(Date.now() - t0).toBeLessThan(3_000);
      expect(page.credits).toEqual({ error: "the service has not answered yet: reload in a moment" });
      expect(page.problems.github).toEqual({ state: "checking", detail: "GitHub has not answered yet" });
      // the answers land in the caches: a later load shows them without asking again
      await new Promise((r) => setTimeout(r, 7_000));
      const before = balanceCalls();
      const later = await loadInstallationPage(deps, 7, owner);
      expect(later.credits).toMatchObject({ balance: expect.any(Number) });
      expect(later.problems.github.state).toBe("ok");
      expect(balanceCalls()).toBe(before);
    } finally {
      applyFaults(sandbox.state, { latencyMs: 0 });
    }
  });
});
