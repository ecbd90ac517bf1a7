/**
 * The organization's page as data: one installation's credits, spend, scans in flight, reports, held
 * approvals, expiring acceptances and problems, filtered to what the viewer may see. Loaded by
 * `src/org-page/page-data.ts`, rendered by `src/org-page/render-page.ts`, served as JSON as it is. Amounts in credits,
 * instants in ms since the epoch.
 */
import type { CapForecast } from "../domain/cap-forecast.js";

/** What a viewer may see of an installation: GitHub's own access, decided at sign-in. */
export interface PageAccess {
  /**
   * organization-wide figures (balance, the month's spend, caps, token health, the installation's jobs per
   * queue): an organization owner, or the account itself for a user installation
   */
  orgWide: boolean;
  /** the repositories (`owner/name`, compared case-insensitively) the viewer can access, or all of them */
  repositories: ReadonlySet<string> | "all";
  /**
   * the whole deployment's queue depths, every installation's jobs: only for a request that carries the
   * admin bearer (`DIFFWARD_ADMIN_TOKEN`), never from GitHub's access
   */
  deployment?: boolean;
}

/** The service's billing balance (spec §Billing `GET …/billing/balance`), cached at most 60 s. */
export type CreditsSection =
  | { balance: number; available: number; reserved: number; readAt: number }
  /** the balance could not be read: the account has no service token, or the service did not answer */
  | { error: string };

/** The credits one pull request spent in one month; 0 for a baseline or a merge group without one. */
export interface PullSpend {
  pullNumber: number;
  credits: number;
  /** false while a scan's spend is its budget (the settlement not in yet) */
  settled: boolean;
}

/** One repository's spend in one month, with the pull requests that spent it (most first). */
export interface RepoMonthSpend {
  month: string;
  credits: number;
  pulls: PullSpend[];
}

/** One repository's spend over the months shown. */
export interface RepoSpend {
  repository: string;
  /** one per month of {@link SpendSection.months}, same order */
  months: RepoMonthSpend[];
  total: number;
}

/** A repository's `creditCap.monthly` against its spend this month. */
export interface CapRow {
  repository: string;
  cap: number;
  spent: number;
  forecast: CapForecast;
}

/** Spend: this month against the caps, and per repository for the last 6 months. */
export interface SpendSection {
  /** `YYYY-MM`, UTC */
  month: string;
  /** the oldest first, the current one last */
  months: string[];
  /** the installation's spend this month, every repository; null unless organization-wide */
  monthSpent: number | null;
  /** the repositories with a cap; empty unless organization-wide */
  caps: CapRow[];
  repositories: RepoSpend[];
}

/** A scan in flight. */
export interface InFlightScan {
  scanId: string;
  repository: string;
  /** 0 for a baseline, or a merge group without a pull request */
  pullNumber: number;
  kind: "pull" | "merge-group" | "baseline";
  headSha: string;
  /** spec §Scan status as last read; `LAUNCHED` before the first read; `REPORTING` once terminal */
  status: string;
  percent: number | null;
  /** when it was launched; null before its poll job exists */
  since: number | null;
  /** the next read of the service, when one is scheduled */
  nextPollAt: number | null;
}

/** One report of the last 50, in the order of the page's columns. */
export interface ReportRow {
  repository: string;
  pullNumber: number;
  /** the check run's conclusion */
  conclusion: string;
  /** findings by severity, `CRITICAL` … `INFO` */
  severities: Record<string, number>;
  /** null when the spend was not recorded */
  credits: number | null;
  settled: boolean;
  /**
   * from when diffward received the push (the delivery of the pull request event that set the head, or the
   * re-run) to the report, ms; null for a report logged before diffward recorded that moment
   */
  pushToReportMs: number | null;
  reportedAt: number;
  scanId: string;
  headSha: string;
}

/** A dismissal held for a second person's approval. */
export interface HeldApproval {
  repository: string;
  pullNumber: number;
  findingId: string;
  severity: string;
  resolutionStatus: string;
  requestedBy: string;
  /** ISO 8601 */
  requestedAt: string;
  /** diffward's review comment of the finding, when the report knows it */
  commentId: number | null;
  /**
   * with `triage.approval.codeowners`, the code owners of the finding's file who may approve (`@login`,
   * `@org/team-slug`), as read when the dismissal was held; empty otherwise
   */
  owners: string[];
  /** why code owners do not limit who approves it (the role rule applies alone), when they were asked for */
  ownersNote?: string;
}

/** An accepted finding whose acceptance expires soon: then it is open again. */
export interface ExpiringAcceptance {
  repository: string;
  pullNumber: number;
  findingId: string;
  /** the accepted resolution (`WONT_FIX`, `MITIGATED`) */
  resolutionStatus: string;
  /** who accepted it (GitHub login) */
  by: string;
  expiresAt: number;
  /** diffward's review comment of the finding, when the report knows it */
  commentId: number | null;
}

/** A failed job of this installation. */
export interface FailedJobRow {
  queue: string;
  id: string;
  name: string;
  repository: string | null;
  pullNumber: number | null;
  reason: string;
  at: number | null;
}

/** One queue's jobs by state (BullMQ's states; prioritized jobs count as waiting). */
export interface QueueDepth {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/** What is wrong or worth a look. */
export interface ProblemsSection {
  /** repositories whose `.github/diffward.yml` was invalid when last read, with the first problem */
  invalidConfigs: Array<{ repository: string; problem: string; seenAt: number }>;
  /** each repository's effective policy as last read: mode, `failOn`, the keys the organization floor raised */
  policies: Array<{ repository: string; mode: string; failOn: string; raised: string[]; seenAt: number }>;
  /** the account has no service token; null unless organization-wide */
  missingToken: boolean | null;
  /** the service's reachability (`/healthz`'s detail) */
  service: { state: string; detail?: string };
  /** GitHub's answer to the installation */
  github: { state: string; detail?: string };
  /** this installation's jobs in each queue; null unless organization-wide */
  queues: QueueDepth[] | null;
  /** every installation's jobs in each queue; null unless the request carries the admin bearer */
  deploymentQueues: QueueDepth[] | null;
  failedJobs: FailedJobRow[];
}

/** One installation's page. */
export interface InstallationPage {
  installationId: number;
  account: string;
  /** GitHub's web address (`https://github.com`, or the GHES host's) for links */
  githubUrl: string;
  generatedAt: number;
  orgWide: boolean;
  /** null unless organization-wide */
  credits: CreditsSection | null;
  spend: SpendSection;
  inFlight: InFlightScan[];
  reports: ReportRow[];
  approvals: HeldApproval[];
  /** the acceptances expiring in the next 30 days; `available: false` when they could not be read */
  expiring: { available: boolean; items: ExpiringAcceptance[] };
  problems: ProblemsSection;
}

/** The viewer's test of a repository (`owner/name`, case-insensitive) against {@link PageAccess}. Pure. */
export function repositoryFilter(access: PageAccess): (repository: string) => boolean {
  if (access.repositories === "all") return () => true;
  const allowed = new Set([...access.repositories].map((r) => r.toLowerCase()));
  return (repository) => allowed.has(repository.toLowerCase());
}
