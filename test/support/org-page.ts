import { forecastCapDay } from "../../src/domain/cap-forecast.js";
import type { InstallationPage } from "../../src/org-page/page-model.js";

/** 20 November 2026, 12:00 UTC. */
export const PAGE_NOW = Date.UTC(2026, 10, 20, 12);

/** An organization-wide page of installation 7 (`acme`) with a row in every section, `over` replacing sections. */
export function orgPage(over: Partial<InstallationPage> = {}): InstallationPage {
  const months = ["2026-06", "2026-07", "2026-08", "2026-09", "2026-10", "2026-11"];
  const perMonth = (credits: number[], pull: number) =>
    months.map((month, i) => ({
      month,
      credits: credits[i]!,
      pulls: credits[i]! > 0 ? [{ pullNumber: pull + i, credits: credits[i]!, settled: i < 5 }] : [],
    }));
  return {
    installationId: 7,
    account: "acme",
    githubUrl: "https://github.com",
    generatedAt: PAGE_NOW,
    orgWide: true,
    credits: { balance: 9_000, available: 8_500, reserved: 500, readAt: PAGE_NOW },
    spend: {
      month: "2026-11",
      months,
      monthSpent: 420,
      caps: [{ repository: "acme/web", cap: 500, spent: 400, forecast: forecastCapDay(400, 500, PAGE_NOW) }],
      repositories: [
        { repository: "acme/web", months: perMonth([10, 0, 30, 40, 50, 400], 10), total: 530 },
        { repository: "acme/api", months: perMonth([0, 0, 0, 0, 5, 20], 40), total: 25 },
      ],
    },
    inFlight: [
      {
        scanId: "scan_live",
        repository: "acme/web",
        pullNumber: 12,
        kind: "pull",
        headSha: "abcdef1234567890abcdef1234567890abcdef12",
        status: "PROCESSING",
        percent: 40,
        since: PAGE_NOW - 120_000,
        nextPollAt: PAGE_NOW + 5_000,
      },
    ],
    reports: [
      {
        scanId: "scan_done",
        repository: "acme/web",
        pullNumber: 11,
        headSha: "1".repeat(40),
        conclusion: "failure",
        severities: { CRITICAL: 1, HIGH: 2 },
        credits: 37,
        settled: true,
        pushToReportMs: 95_000,
        reportedAt: PAGE_NOW - 3_600_000,
      },
    ],
    approvals: [
      {
        repository: "acme/web",
        pullNumber: 11,
        findingId: "fnd_1",
        severity: "HIGH",
        resolutionStatus: "FALSE_POSITIVE",
        requestedBy: "bob",
        requestedAt: "2026-11-19T10:00:00Z",
        commentId: 555,
        owners: ["@dana", "@acme/payments"],
      },
    ],
    expiring: {
      available: true,
      items: [
        {
          repository: "acme/web",
          pullNumber: 11,
          findingId: "fnd_2",
          resolutionStatus: "WONT_FIX",
          by: "carol",
          expiresAt: PAGE_NOW + 5 * 86_400_000,
          commentId: 556,
        },
      ],
    },
    problems: {
      invalidConfigs: [
        { repository: "acme/api", problem: "failOn: expected one of critical, high", seenAt: PAGE_NOW },
      ],
      policies: [
        {
          repository: "acme/web",
          mode: "enforce",
          failOn: "high",
          raised: ["failOn.severity"],
          seenAt: PAGE_NOW,
        },
      ],
      missingToken: false,
      service: { state: "ok" },
      github: { state: "ok", detail: "2 repositories" },
      queues: [{ queue: "diffward-scans", waiting: 1, active: 2, delayed: 3, failed: 0 }],
      deploymentQueues: null,
      failedJobs: [],
    },
    ...over,
  };
}
