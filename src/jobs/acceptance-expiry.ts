/**
 * The `acceptance-expiry` job: at the moment an acceptance (`/wontfix … until …`, `/mitigate … for <N>d`)
 * ends, the finding is set back to `NOT_STARTED` on the service, once, and the pull request follows: the
 * finding's comment, its review thread (reopened), its code scanning alert (reopened when dismissed) and,
 * while the pull request is open, its check run (a blocking finding blocks again). Scheduled by
 * `src/triage/expiry.ts`; rules in `src/domain/acceptance.ts`.
 */
import type { Job } from "bullmq";
import type { Logger } from "pino";
import { expiredNote } from "../domain/acceptance.js";
import { syncAlertWithResolution } from "../codescanning/sync.js";
import { getPull } from "../github/pulls.js";
import { listReviewComments } from "../github/reviews.js";
import type { InstallationOctokit } from "../github/types.js";
import { postedFindingComments } from "../report/posted.js";
import { REPORT_KIND, type ReportState } from "../report/state.js";
import { appendAudit } from "../runtime/audit-log.js";
import { pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import type { FindingDetail } from "../scanner/schemas.js";
import type { ScannerTenant } from "../tenants/index.js";
import { recomputeCheck } from "../triage/check.js";
import { readDecisions, recordDecisions } from "../triage/decisions.js";
import { AcceptanceExpiryJobData, dropExpiryEntry, expiryAudit, type ExpiryPull } from "../triage/expiry.js";
import { refreshFindingComment, setThreadResolved } from "../triage/reflect.js";
import { Decision } from "../triage/types.js";

/** What the job did: `expired` (set back to `NOT_STARTED`), `cancelled` (the decision changed), `skipped` (the finding is in another state). */
export type ExpiryOutcome = "expired" | "cancelled" | "skipped";

/** How long the record of an expiry's sent service writes is kept, in seconds (7 days, like a command's). */
const SENT_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Applies one expiry:
 * 1. the decision carrying the job's `expiryId` (the pull request's decisions): gone means a later decision
 *    of the finding replaced it, and the expiry was cancelled: nothing is done;
 * 2. the finding as the service has it now (`GET …/findings/{findingId}`): in another state than the accepted
 *    one (changed in the service's UI, say), nothing is sent and the expiry ends;
 * 3. `PATCH …/resolution` with `resolutionStatus: NOT_STARTED`, then the note "Risk acceptance by @… expired
 *    on …" (`POST …/notes`: the service ignores a note sent with `NOT_STARTED`, spec §Findings resolution
 *    rule 2); each step once whatever the job's retries (recorded in `once:expiry:<expiryId>`, kept 7 days,
 *    with the accepted decision, so a retry after the decision was replaced still reflects it);
 * 4. the decision recorded (`NOT_STARTED`: nothing is carried to later pushes), then the pull request follows
 *    ({@link reflectExpiry}) and the expiry is audited.
 * Service and GitHub errors are thrown: BullMQ retries with backoff (`EVENT_JOB_OPTIONS`).
 */
export async function processAcceptanceExpiry(rt: Runtime, job: Job): Promise<ExpiryOutcome> {
  const d = AcceptanceExpiryJobData.parse(job.data);
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  const log = rt.log.child({ job: job.id, pull: key, installation: d.installationId });
  const sentKey = `${rt.state.prefix}:once:expiry:${d.expiryId}`;
  const sent = await rt.redis.hgetall(sentKey);
  // a retry after the decision was recorded finds the accepted decision in the job's record
  const found =
    (await readDecisions(rt, key, log)).find((x) => x.expiryId === d.expiryId) ??
    (sent.decision && !sent.reflected ? Decision.parse(JSON.parse(sent.decision)) : undefined);
  if (!found?.expiresAt) {
    log.info("acceptance expiry: the decision changed meanwhile, nothing to do");
    await dropExpiryEntry(rt, d, d.expiryId);
    return "cancelled";
  }
  const decision = { ...found, expiresAt: found.expiresAt };
  const tenant = await rt.scanner.forAccount(d.accountLogin);
  if (!tenant) throw new Error("acceptance expiry: no scanning-service token for the account (retried)");
  const detail = await tenant.client.getFinding(tenant.projectId, decision.findingId);
  if (sent.resolution === undefined && detail.resolutionStatus !== decision.resolutionStatus) {
    log.info(
      { finding: detail.id, accepted: decision.resolutionStatus, now: detail.resolutionStatus },
      "acceptance expiry: the finding is in another state, nothing changed",
    );
    await endExpiry(rt, d, decision, detail, "skipped");
    return "skipped";
  }
  const mark = (step: string, value = "1") =>
    rt.redis.multi().hset(sentKey, step, value).expire(sentKey, SENT_TTL_SECONDS).exec();
  if (!sent.decision) await mark("decision", JSON.stringify(decision));
  const note = expiredNote(decision.by, decision.expiresAt, decision.resolutionStatus);
  if (!sent.resolution) {
    await tenant.client.setResolution(tenant.projectId, detail.id, { resolutionStatus: "NOT_STARTED" });
    await mark("resolution");
  }
  if (!sent.note) {
    await tenant.client.addNote(tenant.projectId, detail.id, note);
    await mark("note");
  }
  log.info(
    { finding: detail.id, expiresAt: decision.expiresAt },
    "acceptance expired: finding not started again",
  );
  if (!sent.ended) {
    await endExpiry(rt, d, decision, detail, "applied");
    await mark("ended");
  }
  await reflectExpiry(rt, d, decision, tenant, log);
  await mark("reflected");
  return "expired";
}

/**
 * Records the end of an expiry: the decision without its expiry (`NOT_STARTED` with the expiry's note when
 * it was applied; the accepted decision without `expiresAt` when the finding had moved on), the index entry
 * dropped, the audit entry (`expire`, source `expiry`, `applied` or `skipped`).
 */
async function endExpiry(
  rt: Runtime,
  pull: ExpiryPull,
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
        }
      : rest;
  await recordDecisions(rt, pullKey(pull.owner, pull.repo, pull.pullNumber), [next]);
  await dropExpiryEntry(rt, pull, decision.expiryId!);
  await appendAudit(rt, {
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
  const key = pullKey(pull.owner, pull.repo, pull.pullNumber);
  const report = await rt.state.getJson<ReportState>(REPORT_KIND, key);
  const commentId = await findingCommentId(rt, octokit, pull, decision, report);
  const detail = await tenant.client.getFinding(tenant.projectId, decision.findingId);
  await refreshFindingComment(
    octokit,
    tenant,
    pull,
    { detail, ...(commentId !== undefined ? { commentId } : {}) },
    () => readDecisions(rt, key, log),
    rt.settings.labelPrefix,
    rt.settings.publicUrl,
    async () => ({ disclosure: report?.config.disclosure ?? "full" }),
  );
  if (commentId !== undefined) await setThreadResolved(octokit, pull, commentId, false, log);
  if (report?.config.codeScanning.upload !== false)
    await syncAlertWithResolution(octokit, pull, { ...decision, resolutionStatus: "NOT_STARTED" }, log);
  if ((await getPull(octokit, pull)).state === "open") await recomputeCheck(rt, octokit, tenant, pull, log);
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
