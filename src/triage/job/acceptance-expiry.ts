/**
 * The `acceptance-expiry` job: at the moment an acceptance (`/wontfix … until …`, `/mitigate … for <N>d`)
 * ends, the finding is set back to `NOT_STARTED` on the service, once, and the pull request follows: the
 * finding's comment, its review thread (reopened), its code scanning alert (reopened when dismissed) and,
 * while the pull request is open, its check run (a blocking finding blocks again). Scheduled by
 * `src/triage/expiry.ts`; rules in `src/domain/acceptance.ts`.
 */
import type { Job } from "bullmq";
import type { Logger } from "pino";
import { expiredNote } from "../../domain/acceptance.js";
import { syncAlertWithResolution } from "../../code-scanning/index.js";
import { getPull } from "../../github/pulls.js";
import { listReviewComments } from "../../github/reviews.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import { postedFindingComments } from "../../report/decide/posted.js";
import type { ReportState } from "../../stores/stored-report.js";
import { pullKey } from "../../runtime/names.js";
import { writesOf } from "../../runtime/apply-writes.js";
import type { Runtime } from "../../runtime/runtime.js";
import type { FindingDetail } from "../../scanner/schemas.js";
import type { ScannerTenant } from "../../tenants/index.js";
import { recomputeCheck } from "../check.js";
import { addingDecisions, readDecisions, writePullDecisions } from "../decisions.js";
import type { AcceptanceExpiryJobData, ExpiryPull } from "../../job-catalogue/index.js";
import { dropExpiryEntry, expiryAudit } from "../expiry.js";
import { refreshFindingComment, setThreadResolved } from "../reflect.js";
import { Decision } from "../../domain/decision.js";

/** What the job did: `expired` (set back to `NOT_STARTED`), `cancelled` (the decision changed), `skipped` (the finding is in another state). */
export type ExpiryOutcome = "expired" | "cancelled" | "skipped";

/** The steps of one expiry already done (`once:expiry:<expiryId>`: `decision`, `resolution`, `note`, `ended`, `reflected`). */
type Sent = Record<string, string>;

/**
 * Where an expiry stands in its pull request's decisions (pure): `due` while the finding's decision still
 * carries it (`expiryId`), `ended` while the decision is the `NOT_STARTED` one it recorded
 * (`endedExpiryId`) and the pull request has not followed yet; `undefined` once a later decision of the
 * finding replaced it (a renewal, another command, a change in GitHub code scanning) or it was reflected.
 * `decision` is the acceptance that ends (for `ended`: as kept in the job's record when it was sent).
 */
export function expiryStage(
  decisions: readonly Decision[],
  expiryId: string,
  sent: Sent,
): { stage: "due" | "ended"; decision: Decision & { expiresAt: string } } | undefined {
  const due = decisions.find((x) => x.expiryId === expiryId);
  if (due?.expiresAt) return { stage: "due", decision: { ...due, expiresAt: due.expiresAt } };
  if (!sent.decision || sent.reflected || !decisions.some((x) => x.endedExpiryId === expiryId))
    return undefined;
  const accepted = Decision.parse(JSON.parse(sent.decision));
  return accepted.expiresAt
    ? { stage: "ended", decision: { ...accepted, expiresAt: accepted.expiresAt } }
    : undefined;
}

/** One run of an expiry job. */
interface ExpiryRun {
  rt: Runtime;
  d: AcceptanceExpiryJobData;
  key: string;
  log: Logger;
  sent: Sent;
  /** records a step as done in the job's record */
  mark(step: string, value?: string): Promise<unknown>;
}

/**
 * Applies one expiry. It acts only while the finding's decision still carries it ({@link expiryStage}),
 * checked under the pull request's lock (`withPullLock`) before the service write and again before the
 * decision write, the lock held until the pull request has followed; otherwise nothing is done and the
 * reason logged (a renewal or another decision of the finding replaced it, even while this job ran):
 * 1. the finding as the service has it now (`GET …/findings/{findingId}`): in another state than the accepted
 *    one (changed in the service's UI, say), nothing is sent and the expiry ends;
 * 2. `PATCH …/resolution` with `resolutionStatus: NOT_STARTED`, then the note "Risk acceptance by @… expired
 *    on …" (`POST …/notes`: the service ignores a note sent with `NOT_STARTED`, spec §Findings resolution
 *    rule 2); each step once whatever the job's retries (recorded in `once:expiry:<expiryId>`, kept 7 days,
 *    with the accepted decision, so a retry after the decision was recorded still reflects it);
 * 3. the decision recorded (`NOT_STARTED` with `endedExpiryId`: nothing is carried to later pushes), then the
 *    pull request follows ({@link reflectExpiry}) and the expiry is audited.
 * Service and GitHub errors are thrown: BullMQ retries with backoff (the catalogue's `acceptanceExpiry`
 * options, `src/job-catalogue/catalogue.ts`); a busy lock
 * throws `LockBusyError` (the events worker runs the job again shortly, without spending an attempt).
 */
export async function processAcceptanceExpiry(
  rt: Runtime,
  job: Job<AcceptanceExpiryJobData>,
): Promise<ExpiryOutcome> {
  const d = job.data;
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  const log = rt.log.child({ job: job.id, pull: key, installation: d.installationId, expiryId: d.expiryId });
  const sent = await rt.stores.expiries.sentSteps(d.expiryId);
  const mark = (step: string, value = "1") => rt.stores.expiries.markSent(d.expiryId, step, value);
  const run: ExpiryRun = { rt, d, key, log, sent, mark };
  const found = expiryStage(await readDecisions(rt, key, log), d.expiryId, sent);
  if (!found) return replaced(run, "before the finding was read");
  const tenant = await rt.scanner.forAccount(d.accountLogin);
  if (!tenant) throw new Error("acceptance expiry: no scanning-service token for the account (retried)");
  const detail = await tenant.client.getFinding(tenant.projectId, found.decision.findingId);
  return rt.stores.pulls.withPullLock(key, () => applyExpiry(run, tenant, detail));
}

/** {@link processAcceptanceExpiry} under the pull request's lock, from the finding as the service has it. */
async function applyExpiry(
  run: ExpiryRun,
  tenant: ScannerTenant,
  detail: FindingDetail,
): Promise<ExpiryOutcome> {
  const { rt, d, key, log, sent, mark } = run;
  const now = expiryStage(await readDecisions(rt, key, log), d.expiryId, sent);
  if (!now) return replaced(run, "before the service write");
  const { decision } = now;
  if (now.stage === "due") {
    if (sent.resolution === undefined && detail.resolutionStatus !== decision.resolutionStatus) {
      log.info(
        { finding: detail.id, accepted: decision.resolutionStatus, now: detail.resolutionStatus },
        "acceptance expiry: the finding is in another state, nothing changed",
      );
      await endExpiry(rt, d, decision, detail, "skipped");
      return "skipped";
    }
    if (!sent.decision) await mark("decision", JSON.stringify(decision));
    if (!sent.resolution) {
      await tenant.client.setResolution(tenant.projectId, detail.id, { resolutionStatus: "NOT_STARTED" });
      await mark("resolution");
    }
    if (!sent.note) {
      await tenant.client.addNote(
        tenant.projectId,
        detail.id,
        expiredNote(decision.by, decision.expiresAt, decision.resolutionStatus),
      );
      await mark("note");
    }
    log.info(
      { finding: detail.id, expiresAt: decision.expiresAt },
      "acceptance expired: finding not started again",
    );
    // the lock is renewed while held, but a holder stalled past its lifetime loses it: look again
    if (expiryStage(await readDecisions(rt, key, log), d.expiryId, sent)?.stage !== "due")
      return replaced(run, "after the service write (the pull request's lock was lost)", "warn");
  }
  if (!sent.ended) {
    await endExpiry(rt, d, decision, detail, "applied");
    await mark("ended");
  }
  await reflectExpiry(rt, d, decision, tenant, log);
  await mark("reflected");
  return "expired";
}

/**
 * The expiry's decision was replaced: nothing more is done, the reason is logged (`warn` once the service was
 * written: the finding may be left `NOT_STARTED` under a later decision) and its index entry dropped.
 */
async function replaced(
  run: ExpiryRun,
  when: string,
  level: "info" | "warn" = "info",
): Promise<ExpiryOutcome> {
  run.log[level](
    { when },
    "acceptance expiry: nothing done, the finding's decision no longer carries this expiry (a later decision replaced it)",
  );
  await dropExpiryEntry(run.rt, run.d, run.d.expiryId);
  return "cancelled";
}

/**
 * Records the end of an expiry, under the pull request's lock: the decision without its expiry (`NOT_STARTED`
 * with the expiry's note and `endedExpiryId` when it was applied; the accepted decision without `expiresAt`
 * when the finding had moved on), the index entry dropped, the audit entry (`expire`, source `expiry`,
 * `applied` or `skipped`).
 */
async function endExpiry(
  rt: Runtime,
  pull: AcceptanceExpiryJobData,
  decision: Decision & { expiresAt: string },
  detail: Pick<FindingDetail, "resolutionStatus" | "severity">,
  outcome: "applied" | "skipped",
): Promise<void> {
  const { expiresAt, expiryId: _id, ...rest } = decision;
  const next: Decision =
    outcome === "applied"
      ? {
          ...rest,
          severity: detail.severity,
          resolutionStatus: "NOT_STARTED",
          note: expiredNote(decision.by, expiresAt, decision.resolutionStatus),
          at: new Date(rt.now()).toISOString(),
          endedExpiryId: pull.expiryId,
        }
      : rest;
  await writePullDecisions(rt, pullKey(pull.owner, pull.repo, pull.pullNumber), addingDecisions([next]));
  await dropExpiryEntry(rt, pull, pull.expiryId);
  await rt.stores.audit.append({
    ...expiryAudit(rt, pull, decision),
    actor: decision.by,
    ...(decision.approvedBy ? { approver: decision.approvedBy } : {}),
    action: "expire",
    from: outcome === "applied" ? decision.resolutionStatus : detail.resolutionStatus,
    to: outcome === "applied" ? "NOT_STARTED" : detail.resolutionStatus,
    ...(decision.reason ? { reason: decision.reason } : {}),
    expiresAt,
    source: "expiry",
    outcome,
    ...(outcome === "skipped" ? { detail: "the finding was no longer in the accepted state" } : {}),
  });
}

/**
 * The pull request follows an applied expiry: the finding's comment re-rendered (its id from the stored
 * report, else from the pull request's review comments: after a Redis flush), its review thread reopened,
 * its code scanning alert reopened when dismissed (`codeScanning.upload`, or no report to tell), and the check
 * run recomputed while the pull request is open (`recomputeCheck`: it needs the stored report).
 */
async function reflectExpiry(
  rt: Runtime,
  pull: ExpiryPull,
  decision: Decision,
  tenant: ScannerTenant,
  log: Logger,
): Promise<void> {
  const octokit = await rt.octokit(pull.installationId);
  const apply = writesOf(rt, pull.installationId);
  const key = pullKey(pull.owner, pull.repo, pull.pullNumber);
  const report = await rt.stores.reports.get(key);
  const commentId = await findingCommentId(rt, octokit, pull, decision, report);
  const detail = await tenant.client.getFinding(tenant.projectId, decision.findingId);
  await refreshFindingComment(
    octokit,
    apply,
    tenant,
    pull,
    { detail, ...(commentId !== undefined ? { commentId } : {}) },
    () => readDecisions(rt, key, log),
    rt.settings.labelPrefix,
    rt.settings.publicUrl,
    async () => ({ disclosure: report?.config.disclosure ?? "full" }),
  );
  if (commentId !== undefined) await setThreadResolved(octokit, apply, pull, commentId, false, log);
  if (report?.config.codeScanning.upload !== false)
    await syncAlertWithResolution(
      octokit,
      apply,
      pull,
      { ...decision, resolutionStatus: "NOT_STARTED" },
      log,
    );
  if ((await getPull(octokit, pull)).state === "open")
    await recomputeCheck(rt, pull.installationId, tenant, pull, log);
}

/** diffward's review comment of the finding: from the stored report, else read back from the pull request. */
async function findingCommentId(
  rt: Runtime,
  octokit: InstallationOctokit,
  pull: ExpiryPull,
  decision: Decision,
  report: ReportState | undefined,
): Promise<number | undefined> {
  const stored = report?.findings.find((f) => f.id === decision.findingId)?.commentId;
  if (stored !== undefined || report) return stored;
  const posted = postedFindingComments(await listReviewComments(octokit, pull), await rt.botLogin());
  return posted.find((c) => c.findingId === decision.findingId || c.fingerprint === decision.fingerprint)
    ?.commentId;
}
