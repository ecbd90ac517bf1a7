import type { Job } from "bullmq";
import { withSettledCredits } from "../report/decide/report-state.js";
import { addJob, type PollJobData, type SettleJobData } from "../job-catalogue/index.js";
import { jobId, pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { writesOf } from "../runtime/apply-writes.js";
import { recomputeCheck } from "../triage/index.js";
import { readScanSpend, type ScanSpend } from "../policy/credits.js";
import type { ScannerTenant } from "../tenants/index.js";
import { decideCoverage } from "../report/decide/closing.js";
import { auditThreadWrites, syncNotReported } from "../report/write/closing-threads.js";

/** How many looks at the ledger at most (every `settleDelayMs`, 30 s by default: 10 minutes). */
export const SETTLE_MAX_TRIES = 20;

/**
 * Schedules a later look at the usage ledger for a reported scan whose settlement was not in yet (job
 * `settle-<scanId>-<tries>`, queue `diffward-scans`, after `delayMs`, `settleDelayMs` by default). A merge
 * group's scan (`target.kind` `merge-group`) gets a {@link SettleJobData.mergeGroup} job.
 */
export async function enqueueSettle(
  rt: Runtime,
  d: Pick<
    PollJobData,
    "installationId" | "accountLogin" | "owner" | "repo" | "pullNumber" | "scanId" | "launchedAt"
  > & { target?: PollJobData["target"]; mergeGroup?: boolean },
  tries: number,
  delayMs = rt.settings.settleDelayMs,
): Promise<void> {
  const data: SettleJobData = {
    installationId: d.installationId,
    accountLogin: d.accountLogin,
    owner: d.owner,
    repo: d.repo,
    pullNumber: d.pullNumber,
    scanId: d.scanId,
    launchedAt: d.launchedAt,
    tries,
    // a merge group's or a baseline's scan: the ledger only (no pull request report to update)
    ...(d.mergeGroup || d.target?.kind === "merge-group" || d.target?.kind === "baseline"
      ? { mergeGroup: true }
      : {}),
  };
  await addJob(rt, "settle", data, { jobId: jobId("settle", d.scanId, tries), delay: delayMs });
}

/**
 * When a scan's settlement lands in the usage ledger after its report, puts the credits actually spent
 * (deductions less refunds) and whether it ran short of budget into the check run summary
 * (while the settlement is not in, the summary says so; it is updated when it lands). Looks again every 30 s,
 * at most {@link SETTLE_MAX_TRIES} times; a newer report of the pull request ends it. Either way, once settled,
 * `creditCap.monthly`'s ledger counts the scan's actual spend instead of its budget.
 * A merge group's scan ({@link SettleJobData.mergeGroup}) settles the cap ledger only: a group has no report
 * state, and the pull request its ref names keeps its own check run and report untouched.
 * @returns `settled` once the spend landed, `pending` while not (a next look is scheduled), `stale` when
 *   the pull request's report moved on or the account has no scanner token.
 */
export async function processSettle(
  rt: Runtime,
  job: Job<SettleJobData>,
): Promise<"settled" | "pending" | "stale"> {
  const d = job.data;
  if (d.mergeGroup) return settleGroupScan(rt, d);
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  const first = await rt.stores.reports.get(key);
  if (!first || first.scanId !== d.scanId) return "stale";
  const look = await settleSpend(rt, d);
  if (typeof look === "string") return look;
  const { tenant, spend } = look;
  // Read the report again: while the ledger was read, a triage recompute may have posted a fresh check run
  // (new `checkRunId`, `annotationsDigest`, findings) or a newer report replaced this one. Writing the first
  // read back would undo them.
  const report = await rt.stores.reports.get(key);
  if (!report || report.scanId !== d.scanId) return "stale";
  // Only the credits change: every other extra (guidance annotation, code scanning, …) stays as reported, or
  // the recompute below would drop its section and, the annotations no longer matching the stored digest,
  // post a fresh check run.
  const settled = withSettledCredits(report, spend.spent);
  await rt.stores.reports.put(key, settled);
  const ranShort = settled.extras?.credits?.ranShort;
  const octokit = await rt.octokit(d.installationId);
  const log = rt.log.child({ pull: key, scanId: d.scanId });
  await recomputeCheck(rt, d.installationId, tenant, d, log);
  // The settlement proves full coverage (not short of budget): close the threads of findings no longer reported.
  if (report.closeWhenSettled && ranShort !== undefined) {
    const botLogin = await rt.botLogin();
    const scan = { id: report.scanId, headSha: report.headSha };
    const done = await syncNotReported(
      octokit,
      writesOf(rt, d.installationId),
      d,
      {
        findings: report.findings,
        coverage: decideCoverage({ ranShort, scopeCovers: true }),
        scan,
        botLogin,
      },
      log,
    );
    await auditThreadWrites(rt, { installationId: d.installationId, pull: d, botLogin, scan }, done.applied);
  }
  return "settled";
}

/** {@link processSettle} for a merge group's scan: the cap ledger only. */
async function settleGroupScan(rt: Runtime, d: SettleJobData): Promise<"settled" | "pending" | "stale"> {
  const look = await settleSpend(rt, d);
  if (typeof look === "string") return look;
  rt.log.info({ scanId: d.scanId, spent: look.spend.spent }, "merge group scan settled in the cap ledger");
  return "settled";
}

/**
 * One look at the usage ledger for a reported scan, with the account's scanner token
 * ({@link readScanSpend}: `GET …/billing/usage` from the scan's `launchedAt` less one day). While its
 * settlement is not in, schedules the next look (`settle-<scanId>-<tries + 1>`, {@link enqueueSettle})
 * unless {@link SETTLE_MAX_TRIES} looks were made. Once it is in, `creditCap.monthly`'s ledger counts the
 * scan's actual spend instead of its budget.
 * @returns the scan's spend (credits, `settled: true`) once settled, with the tenant it was read with;
 *   `pending` while not; `stale` when the account has no scanner token.
 * @throws what {@link readScanSpend} or the cap ledger throw (scanning-service or Redis errors): the settle
 *   job is retried by BullMQ.
 */
async function settleSpend(
  rt: Runtime,
  d: SettleJobData,
): Promise<{ tenant: ScannerTenant; spend: ScanSpend } | "pending" | "stale"> {
  const tenant = await rt.scanner.forAccount(d.accountLogin);
  if (!tenant) return "stale";
  const spend = await readScanSpend(tenant, d.scanId, d.launchedAt, rt.now());
  if (!spend.settled) {
    if (d.tries + 1 < SETTLE_MAX_TRIES) await enqueueSettle(rt, d, d.tries + 1);
    return "pending";
  }
  // creditCap.monthly: the scan now counts what it spent, no longer its budget.
  await rt.stores.capLedger.settle(d.scanId, spend.spent);
  await recordScanSpend(rt, d, spend.spent, true);
  rt.metrics?.creditsSpent.inc(spend.spent);
  return { tenant, spend };
}

/**
 * Counts a scan's spend for the organization's page (`src/stores/org-records.ts`), in its launch month: the
 * settled spend, else its budget until the settlement lands; the repository's `creditCap.monthly` beside it.
 */
export async function recordScanSpend(
  rt: Runtime,
  d: Pick<PollJobData, "installationId" | "owner" | "repo" | "pullNumber" | "scanId" | "launchedAt"> & {
    config?: PollJobData["config"];
  },
  credits: number,
  settled: boolean,
): Promise<void> {
  await rt.stores.orgRecords.recordSpend(
    d.installationId,
    d.launchedAt,
    { scanId: d.scanId, repository: `${d.owner}/${d.repo}`, pullNumber: d.pullNumber, credits, settled },
    // a settle job carries no config: the cap kept by the report stays
    d.config ? (d.config.creditCap.monthly ?? null) : undefined,
  );
}
