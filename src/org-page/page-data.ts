/**
 * Loads one installation's page (`InstallationPage`, `src/org-page/page-model.ts`) from diffward's own Redis state
 * (`src/stores/org-records.ts`, the scans in flight and their poll jobs, approvals, queues) and two cached
 * answers from outside: the service's billing balance and GitHub's answer to the installation, each asked
 * at most once per installation per {@link ORG_PAGE_CACHE_MS}. Never one outside call per row.
 */
import type { Job } from "bullmq";
import { lastMonths } from "../domain/cap-forecast.js";
import {
  repositoryFilter,
  type CreditsSection,
  type ExpiringAcceptance,
  type HeldApproval,
  type InFlightScan,
  type InstallationPage,
  type PageAccess,
  type ReportRow,
} from "./page-model.js";
import type { PollProgress } from "../job-kit/types.js";
import type { PollJobData } from "../job-catalogue/index.js";
import { jobId, pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import type { OrgRecords, ScanSpendRecord } from "../stores/org-records.js";
import type { ScanLink } from "../stores/scan-state.js";
import { StoredRecordError } from "../stores/stored-record.js";
import { listAcceptanceExpiries } from "../triage/index.js";
import { within } from "../runtime/ttl-cache.js";
import { SPEND_MONTHS, REPORTS_SHOWN, type OrgPageDeps } from "./page-deps.js";
import { problemsSection } from "./problems-section.js";
import { spendSection } from "./spend-section.js";

export type { PageAccess, InstallationPage } from "./page-model.js";
export { createOrgPageDeps, githubWebUrl, type OrgPageDeps } from "./page-deps.js";

/**
 * One installation's page as `access` may see it: every row of a repository outside
 * `access.repositories` is left out, the organization-wide figures (balance, this month's spend, caps,
 * token health, the installation's jobs per queue) are null unless `access.orgWide`, and the whole
 * deployment's queue depths are null unless `access.deployment` (the admin bearer).
 * @throws Redis errors as they come; the balance's and GitHub's failures are shown, never thrown.
 */
export async function loadInstallationPage(
  deps: OrgPageDeps,
  installationId: number,
  access: PageAccess,
): Promise<InstallationPage> {
  const { rt } = deps;
  const now = rt.now();
  const visible = repositoryFilter(access);
  const records = rt.stores.orgRecords;
  const account = (await deps.accountOf(installationId)) ?? "";
  const [months, logged, inFlight, approvals, credits, problems, expiring] = await Promise.all([
    records.monthSpend(installationId, lastMonths(now, SPEND_MONTHS)),
    records.reports(installationId),
    loadInFlight(deps, installationId, visible),
    loadApprovals(deps, records, account, visible),
    access.orgWide ? loadCredits(deps, installationId, account) : Promise.resolve(null),
    problemsSection(deps, {
      installationId,
      account,
      orgWide: access.orgWide,
      deployment: access.deployment === true,
      seesAll: access.repositories === "all",
      visible,
      records,
    }),
    loadExpiring(deps, installationId, visible),
  ]);
  return {
    installationId,
    account,
    githubUrl: deps.githubUrl,
    generatedAt: now,
    orgWide: access.orgWide,
    credits,
    spend: spendSection(months, visible, access.orgWide, now),
    inFlight,
    reports: reportRows(
      logged,
      months.flatMap((m) => m.scans),
      visible,
    ),
    approvals,
    expiring,
    problems,
  };
}

/** The last {@link REPORTS_SHOWN} visible reports with the credits each scan counts (pure). */
export function reportRows(
  logged: Awaited<ReturnType<OrgRecords["reports"]>>,
  spends: readonly ScanSpendRecord[],
  visible: (repository: string) => boolean,
): ReportRow[] {
  const spendOf = new Map(spends.map((s) => [s.scanId, s]));
  return logged
    .filter((r) => visible(r.repository))
    .slice(0, REPORTS_SHOWN)
    .map((r) => {
      const s = spendOf.get(r.scanId);
      return {
        ...r,
        credits: s ? s.credits : null,
        settled: s?.settled ?? false,
        pushToReportMs: r.receivedAt === undefined ? null : Math.max(0, r.reportedAt - r.receivedAt),
      };
    });
}

/** The service's balance for the installation's account, cached per installation. */
function loadCredits(deps: OrgPageDeps, installationId: number, account: string): Promise<CreditsSection> {
  const balance = deps.balances
    .get(String(installationId), async () => {
      const tenant = await deps.rt.scanner.forAccount(account);
      if (!tenant) return { error: "no service token for this account" };
      const b = await tenant.client.getBalance(tenant.projectId);
      return {
        balance: b.balanceCredits,
        available: b.availableCredits,
        reserved: b.reservedCredits,
        readAt: deps.rt.now(),
      };
    })
    .catch((err: unknown) => {
      deps.rt.log.warn({ err, installationId }, "organization page: billing balance not read");
      return { error: "the service did not answer the balance" };
    });
  return within(balance, deps.outsideBudgetMs, () => ({
    error: "the service has not answered yet: reload in a moment",
  }));
}

/**
 * The installation's scans in flight (`inflight:<installationId>`), each with its scan link and its poll
 * job's last read ({@link PollProgress}).
 */
async function loadInFlight(
  deps: OrgPageDeps,
  installationId: number,
  visible: (repository: string) => boolean,
): Promise<InFlightScan[]> {
  const { rt } = deps;
  const ids = await rt.stores.scans.inflightScans(installationId);
  const links = await Promise.all(ids.map((id) => rt.stores.scans.getScanLink(id)));
  const shown = links.filter((l): l is ScanLink => !!l && visible(`${l.owner}/${l.repo}`));
  const jobs = await Promise.all(
    shown.map(
      (l) => rt.queues.scans.getJob(jobId("poll", l.scanId)) as Promise<Job<PollJobData> | undefined>,
    ),
  );
  return shown
    .map((l, i) => inFlightRow(l, jobs[i]))
    .sort((a, b) => (a.since ?? Infinity) - (b.since ?? Infinity) || a.scanId.localeCompare(b.scanId));
}

/** One scan in flight from its link and poll job (pure). */
export function inFlightRow(
  l: ScanLink,
  job: Pick<Job<PollJobData>, "data" | "progress" | "timestamp" | "finishedOn"> | undefined,
): InFlightScan {
  const p = job?.progress as Partial<PollProgress> | number | undefined;
  const read =
    typeof p === "object" && p !== null && typeof p.status === "string" ? (p as PollProgress) : undefined;
  const status = job?.data.terminalAt || job?.finishedOn ? "REPORTING" : (read?.status ?? "LAUNCHED");
  return {
    scanId: l.scanId,
    repository: `${l.owner}/${l.repo}`,
    pullNumber: l.baseline ? 0 : l.pullNumber,
    kind: l.baseline ? "baseline" : l.mergeGroup ? "merge-group" : "pull",
    headSha: l.headSha,
    status,
    percent: read ? read.percent : null,
    since: job?.data.launchedAt ?? job?.timestamp ?? null,
    nextPollAt: status === "REPORTING" ? null : (read?.nextReadAt ?? null),
  };
}

/**
 * What a store read, or `undefined` when the record is not one (`StoredRecordError`): the page shows the rest
 * (a request without its comment link, no row for unreadable requests) rather than failing.
 */
async function orAbsent<T>(read: Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof StoredRecordError) return undefined;
    throw error;
  }
}

/**
 * The held approval requests of the account's visible pull requests (`approvals-held:<owner>`), each with
 * diffward's review comment of its finding from the pull request's report, for the link to its thread.
 */
async function loadApprovals(
  deps: OrgPageDeps,
  records: OrgRecords,
  account: string,
  visible: (repository: string) => boolean,
): Promise<HeldApproval[]> {
  if (!account) return [];
  const { stores } = deps.rt;
  const pulls = (await records.heldApprovals(account)).filter((k) => visible(k.slice(0, k.lastIndexOf("#"))));
  const rows = await Promise.all(
    pulls.map(async (key) => {
      const [requests, report] = await Promise.all([
        orAbsent(stores.approvals.get(key)),
        orAbsent(stores.reports.get(key)),
      ]);
      if (!requests) return [];
      const repository = key.slice(0, key.lastIndexOf("#"));
      const pullNumber = Number(key.slice(key.lastIndexOf("#") + 1));
      const comments = new Map((report?.findings ?? []).map((f) => [f.id, f.commentId ?? null]));
      return requests.map((r) => ({
        repository,
        pullNumber,
        findingId: r.findingId,
        severity: r.severity,
        resolutionStatus: r.resolutionStatus,
        requestedBy: r.requestedBy,
        requestedAt: r.requestedAt,
        commentId: comments.get(r.findingId) ?? null,
        owners: r.codeOwners?.owners ?? [],
        ...(r.codeOwners?.fallback !== undefined ? { ownersNote: r.codeOwners.fallback } : {}),
      }));
    }),
  );
  return rows
    .flat()
    .sort(
      (a, b) =>
        a.requestedAt.localeCompare(b.requestedAt) ||
        a.repository.localeCompare(b.repository) ||
        a.pullNumber - b.pullNumber,
    );
}

/** How far ahead expiring acceptances are listed, in ms (30 days). */
export const EXPIRING_WITHIN_MS = 30 * 24 * 3600_000;

/**
 * Acceptances of visible repositories expiring in the next {@link EXPIRING_WITHIN_MS} (`deps.expiries`, by
 * default the installation's expiries index: `listAcceptanceExpiries`), each with diffward's review comment of
 * its finding from the pull request's report. Unreadable: `available: false`, logged.
 */
async function loadExpiring(
  deps: OrgPageDeps,
  installationId: number,
  visible: (repository: string) => boolean,
): Promise<InstallationPage["expiring"]> {
  const { rt } = deps;
  try {
    const list = deps.expiries ?? ((id, withinMs) => defaultExpiries(rt, id, withinMs));
    const items = (await list(installationId, EXPIRING_WITHIN_MS)).filter((e) => visible(e.repository));
    return { available: true, items };
  } catch (err) {
    rt.log.warn({ err, installationId }, "organization page: acceptance expiries not read");
    return { available: false, items: [] };
  }
}

/** The installation's expiring acceptances from its expiries index, with their findings' review comments. */
async function defaultExpiries(
  rt: OrgPageDeps["rt"],
  installationId: number,
  withinMs: number,
): Promise<ExpiringAcceptance[]> {
  // listAcceptanceExpiries reads the runtime's Redis, state, clock and logger only
  const listed = await listAcceptanceExpiries(rt as Runtime, installationId, { withinMs });
  const keys = [...new Set(listed.map((e) => pullKey(e.owner, e.repo, e.pullNumber)))];
  const reports = await Promise.all(keys.map((k) => orAbsent(rt.stores.reports.get(k))));
  const comments = new Map(
    keys.map((k, i) => [k, new Map((reports[i]?.findings ?? []).map((f) => [f.id, f.commentId ?? null]))]),
  );
  return listed.map((e) => ({
    repository: `${e.owner}/${e.repo}`,
    pullNumber: e.pullNumber,
    findingId: e.findingId,
    resolutionStatus: e.resolutionStatus,
    by: e.by,
    expiresAt: Date.parse(e.expiresAt),
    commentId: comments.get(pullKey(e.owner, e.repo, e.pullNumber))?.get(e.findingId) ?? null,
  }));
}
