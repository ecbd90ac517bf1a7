/**
 * GitHub → service: the `code-scanning-alert` job. A person dismissing or reopening
 * one of diffward's code scanning alerts sets the finding's resolution on the service, once.
 */
import { createHash } from "node:crypto";
import type { Job } from "bullmq";
import type { Logger } from "pino";
import { permissionAtLeast, type RepoConfig } from "../config/repo-config.js";
import { isDismissal, needsApproval, requestFor } from "../domain/dismissal-approval.js";
import { inlineCode } from "../render/escape.js";
import { severityName, statusName } from "../render/glossary.js";
import { findingLabel } from "../scanner/labels.js";
import {
  readApprovals,
  storeApprovalRequest,
  writeDecisionWithExpiry,
  waitingForPullLock,
  recomputeCheck,
  readCodeOwnership,
} from "../triage/index.js";
import { identityOf } from "../domain/identity.js";
import { getCodeScanningAlert } from "../github/code-scanning.js";
import type { PullRef } from "../github/octokit-types.js";
import { getPermission } from "../github/issue-comments.js";
import { ScannerApiError } from "../scanner/errors.js";
import type { FindingDetail } from "../scanner/schemas.js";
import { type AuditEntry } from "../stores/audit-log.js";
import { loadRepoConfig } from "../runtime/config-loader.js";
import { pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { applyWrites } from "../runtime/apply-writes.js";
import type { AlertJobData } from "../job-catalogue/index.js";
import type { Decision } from "../domain/decision.js";
import { planAlertEvent, type AlertEventPlan } from "./alert-mapping.js";
import { findingIdFromMessage } from "./sarif-log.js";
import { heldDismissalNote } from "./held-dismissal-note.js";
import { parseMergeGroupRef } from "../domain/merge-queue.js";
import { codeOwnersAudit, type CodeOwnership } from "../domain/code-owner-approval.js";
import { parseLocation } from "../domain/location.js";
import { getPull } from "../github/pulls.js";
import { heldOwnersSentence } from "../render/code-owner-sentences.js";

/** `triage.approval` as configured: who may dismiss alone, and whether code owners approve. */
type Approval = NonNullable<RepoConfig["triage"]["approval"]>;

/** What the job did. */
export type AlertJobOutcome =
  | "ignored"
  | "not-onboarded"
  | "permission-refused"
  | "no-finding"
  | "other-repository"
  | "unchanged"
  | "refused"
  | "approval-requested"
  | "set";

const PULL_REF = /^refs\/pull\/(\d+)\/(?:head|merge)$/;

/**
 * Sets the finding's resolution from a `closed_by_user`/`reopened_by_user` event on a diffward alert:
 * 1. decide with {@link planAlertEvent} (diffward's own changes and other tools' alerts are ignored);
 * 2. the repository must be onboarded and the sender at or above `commands.minPermission` (collaborator
 *    permission API, never the payload);
 * 3. the finding is named by the alert's message (label and id, written by `alertMessage`), read from the
 *    payload or, when the payload has none, from GitHub ("Get a code scanning alert"): no Redis state is
 *    needed, so it works after a flush;
 * 4. the finding's scan must belong to the configured service repository (an alert cannot reach another
 *    repository's finding);
 * 5. once: a finding already at the target resolution is left alone (a redelivery or a second event);
 *    with `triage.approval`, a dismissal that needs a second person is held instead
 *    ({@link holdAlertDismissal}): nothing is set on the service;
 * 6. `PATCH …/resolution` with the mapped status and reason, and a note naming the GitHub login and the
 *    dismissal comment (with the resolution when there is no reason; else, and for `NOT_STARTED`, added
 *    separately: spec resolution rules 1 and 2); when the
 *    alert is on a pull request's ref, the decision is recorded for later pushes and the check recomputed;
 *    there the finding's read, the service write and the decision are one step under the pull request's
 *    lock, as a command's and an acceptance expiry's are.
 * A definite refusal of the service (4xx) is logged and ends the job; 429, 5xx and network errors throw
 * so BullMQ retries. Spends no credits.
 */
export async function processAlertEvent(rt: Runtime, job: Job<AlertJobData>): Promise<AlertJobOutcome> {
  const d = job.data;
  const log = rt.log.child({
    delivery: d.deliveryId,
    repo: `${d.owner}/${d.repo}`,
    alert: d.alertNumber,
    action: d.action,
  });
  const plan = planAlertEvent(d);
  if (plan.kind === "ignore") {
    log.info({ why: plan.why }, "code scanning alert event ignored");
    return "ignored";
  }
  const octokit = await rt.octokit(d.installationId);
  const repo = { owner: d.owner, repo: d.repo };
  const loaded = await loadRepoConfig(octokit, d.owner, d.repo);
  if (loaded.kind !== "ok") {
    log.info({ config: loaded.kind }, "code scanning alert event: repository not onboarded");
    return "not-onboarded";
  }
  const config = loaded.config;
  const floor = config.commands.minPermission;
  const actual = await getPermission(octokit, repo, d.senderLogin);
  if (!permissionAtLeast(actual, floor)) {
    log.info({ actual, floor }, "code scanning alert event refused: sender below the permission floor");
    await auditAlert(rt, job, { d, plan, outcome: "permission-refused" }, undefined, {
      why: `the sender's permission ${actual} is below commands.minPermission (${floor})`,
    });
    return "permission-refused";
  }
  const tenant = await rt.scanner.forAccount(d.accountLogin);
  if (!tenant) {
    log.info("code scanning alert event: no scanner token for the account");
    return "ignored";
  }

  let found: Awaited<ReturnType<typeof readAlertFinding>> | undefined;
  try {
    found = await readAlertFinding(octokit, tenant, d, config, log);
    if (typeof found === "string") return found;
    const resolved = await resolveFromAlert(rt, { d, plan, config, role: actual, ...found }, log, tenant);
    const outcome = typeof resolved === "string" ? resolved : resolved.outcome;
    const held = typeof resolved === "string" ? undefined : resolved.codeOwners;
    await auditAlert(rt, job, { d, plan, outcome, ...(held ? { codeOwners: held } : {}) }, found);
    return outcome;
  } catch (error) {
    if (error instanceof ScannerApiError && !error.retryable) {
      log.warn({ status: error.status, code: error.code }, "service refused the resolution from GitHub");
      const why = `the service refused it (${error.status}${error.code ? ` ${error.code}` : ""})`;
      await auditAlert(
        rt,
        job,
        { d, plan, outcome: "refused" },
        typeof found === "object" ? found : undefined,
        {
          why,
        },
      );
      return "refused";
    }
    throw error;
  }
}

/** The audit outcome of each job outcome that decided something (the others record nothing). */
const ALERT_AUDIT_OUTCOMES: Partial<Record<AlertJobOutcome, AuditEntry["outcome"]>> = {
  set: "applied",
  "approval-requested": "held",
  unchanged: "skipped",
  refused: "refused",
  "permission-refused": "refused",
};

/**
 * Appends the audit entry of a dismissal or reopening on GitHub once its outcome is known
 * (`src/stores/audit-log.ts`, source `code-scanning`): the sender as actor, the finding's resolution before
 * and the mapped one, GitHub's dismissal comment as the reason, and the pull request when the alert is on one.
 * A finding already at the resolution is recorded on the job's first attempt only (a retry finds the
 * resolution it set itself). Never throws.
 */
async function auditAlert(
  rt: Runtime,
  job: Job,
  e: {
    d: AlertJobData;
    plan: Extract<AlertEventPlan, { kind: "set" }>;
    outcome: AlertJobOutcome;
    /** a held dismissal's code owners, as its approval request keeps them */
    codeOwners?: CodeOwnership;
  },
  found: { detail: FindingDetail; ref: string | null } | undefined,
  refusal?: { why: string },
): Promise<void> {
  const { d, plan } = e;
  const outcome = ALERT_AUDIT_OUTCOMES[e.outcome];
  if (!outcome || (outcome === "skipped" && job.attemptsMade > 0)) return;
  const to = plan.target.resolutionStatus;
  const ref = found?.ref ?? d.ref;
  const pullNumber =
    (ref ? PULL_REF.exec(ref)?.[1] : undefined) ?? (ref ? parseMergeGroupRef(ref)?.pullNumber : undefined);
  const reason = [plan.target.reason, d.dismissedComment].filter(Boolean).join(": ");
  await rt.stores.audit.append({
    installationId: d.installationId,
    repository: `${d.owner}/${d.repo}`,
    ...(pullNumber ? { pullNumber: Number(pullNumber) } : {}),
    ...(found
      ? {
          findingId: found.detail.id,
          findingLabel: findingLabel(found.detail.id, rt.settings.labelPrefix),
          from: found.detail.resolutionStatus,
        }
      : {}),
    actor: d.senderLogin,
    action: outcome === "held" ? "approval-request" : to === "NOT_STARTED" ? "reopen" : "resolve",
    to,
    ...(reason ? { reason } : {}),
    source: "code-scanning",
    outcome,
    detail: `code scanning alert #${d.alertNumber}${refusal ? `: ${refusal.why}` : ""}`,
    ...codeOwnersAudit(e.codeOwners),
  });
}

/**
 * The finding an alert names (in the event's message, else in the alert read from GitHub) as the service has
 * it, and the alert's ref. A finding the service does not know ends the job (`no-finding`), as does one of
 * another service repository than the config's.
 * @throws ScannerApiError when the service refuses the scan's read, or any error worth a retry.
 */
async function readAlertFinding(
  octokit: Awaited<ReturnType<Runtime["octokit"]>>,
  tenant: NonNullable<Awaited<ReturnType<Runtime["scanner"]["forAccount"]>>>,
  d: AlertJobData,
  config: RepoConfig,
  log: Logger,
): Promise<{ detail: FindingDetail; ref: string | null } | "no-finding" | "other-repository"> {
  let text = d.messageText;
  let ref = d.ref;
  if (!findingIdFromMessage(text)) {
    const alert = await getCodeScanningAlert(octokit, { owner: d.owner, repo: d.repo }, d.alertNumber);
    text = alert?.messageText ?? "";
    ref = alert?.ref ?? ref;
  }
  const named = findingIdFromMessage(text);
  if (!named) {
    log.warn("code scanning alert names no diffward finding: ignored");
    return "no-finding";
  }
  let detail: FindingDetail;
  try {
    detail = await tenant.client.getFinding(tenant.projectId, "id" in named ? named.id : named.label);
  } catch (error) {
    if (error instanceof ScannerApiError && !error.retryable) {
      log.warn({ status: error.status, code: error.code }, "finding of the alert not found on the service");
      return "no-finding";
    }
    throw error;
  }
  const { scan } = await tenant.client.getScan(tenant.projectId, detail.scanId);
  if (scan.repositoryId !== config.repositoryId) {
    log.warn(
      { finding: detail.id, repositoryId: scan.repositoryId },
      "alert names a finding of another service repository: ignored",
    );
    return "other-repository";
  }
  return { detail, ref };
}

/**
 * Steps 5 and 6 for the finding the alert names: a dismissal `triage.approval` holds is held
 * ({@link holdAlertDismissal}); a finding already at the resolution only keeps its pull request following
 * it; otherwise the resolution and the note are set on the service and the pull request follows. On a pull
 * request's ref this runs under the pull request's lock (`waitingForPullLock`), from the finding read again
 * under it, and the check run is recomputed after.
 * @throws LockBusyError when the lock stayed busy (the events worker runs the job again shortly).
 */
async function resolveFromAlert(
  rt: Runtime,
  a: {
    d: AlertJobData;
    plan: Extract<AlertEventPlan, { kind: "set" }>;
    config: RepoConfig;
    /** the sender's repository permission */
    role: string;
    detail: FindingDetail;
    ref: string | null;
  },
  log: Logger,
  tenant: NonNullable<Awaited<ReturnType<Runtime["scanner"]["forAccount"]>>>,
): Promise<AlertJobOutcome | { outcome: "approval-requested"; codeOwners?: CodeOwnership }> {
  const { d, detail, ref } = a;
  const target = a.plan.target;
  // Two-person dismissals: a dismissal on GitHub by a user below `approvers` is held too.
  const approval = a.config.triage.approval;
  if (
    approval &&
    detail.resolutionStatus !== target.resolutionStatus &&
    needsApproval(approval, { status: target.resolutionStatus, severity: detail.severity, role: a.role })
  ) {
    const codeOwners = await holdAlertDismissal(
      rt,
      d,
      ref,
      detail,
      target,
      a.plan.note,
      approval,
      log,
      tenant,
    );
    return { outcome: "approval-requested", ...(codeOwners ? { codeOwners } : {}) };
  }
  const pull = pullOfRef(d, ref);
  if (!pull) return setFromAlert(a, log, tenant, detail);
  // On a pull request's ref the service write and the decision go under the pull request's lock, as a
  // command's and an acceptance expiry's do, with the finding read again under it: an expiry's or a
  // command's write on the same finding lands wholly before or after this one, never between.
  const outcome = await waitingForPullLock(rt, pullKey(pull.owner, pull.repo, pull.pullNumber), async () => {
    const now = await tenant.client.getFinding(tenant.projectId, detail.id);
    const set = await setFromAlert(a, log, tenant, now);
    // also when unchanged (a retry after the resolution was set, a second delivery): the pull request follows it
    await writeDecisionWithExpiry(
      rt,
      { ...pull, installationId: d.installationId, accountLogin: d.accountLogin },
      alertDecision(rt, d, now, target),
      "code-scanning",
      log,
    );
    return set;
  });
  await recomputeCheck(rt, d.installationId, tenant, pull, log);
  return outcome;
}

/**
 * Sets the finding's resolution and the note on the service from the alert's event, unless `detail` (the
 * finding as last read) is already at it (`unchanged`). Spec rule 1: a note wins over a reason, so a reason
 * goes alone and the note follows it; rule 2: NOT_STARTED ignores notes, so its note is added separately too.
 */
async function setFromAlert(
  a: { plan: Extract<AlertEventPlan, { kind: "set" }> },
  log: Logger,
  tenant: NonNullable<Awaited<ReturnType<Runtime["scanner"]["forAccount"]>>>,
  detail: FindingDetail,
): Promise<"set" | "unchanged"> {
  const target = a.plan.target;
  if (detail.resolutionStatus === target.resolutionStatus) {
    log.info({ finding: detail.id, status: target.resolutionStatus }, "finding already at that resolution");
    return "unchanged";
  }
  const noteWithResolution = target.resolutionStatus !== "NOT_STARTED" && !target.reason;
  await tenant.client.setResolution(tenant.projectId, detail.id, {
    resolutionStatus: target.resolutionStatus,
    ...(target.reason ? { reason: target.reason } : {}),
    ...(noteWithResolution ? { note: { content: a.plan.note } } : {}),
  });
  if (!noteWithResolution) await tenant.client.addNote(tenant.projectId, detail.id, a.plan.note);
  log.info(
    { finding: detail.id, from: detail.resolutionStatus, to: target.resolutionStatus },
    "finding resolution set from GitHub code scanning",
  );
  return "set";
}

/** The pull request an alert's ref (`refs/pull/<n>/head` or `/merge`) belongs to, or `undefined`. */
function pullOfRef(d: AlertJobData, ref: string | null): PullRef | undefined {
  const m = ref ? PULL_REF.exec(ref) : null;
  return m ? { owner: d.owner, repo: d.repo, pullNumber: Number(m[1]) } : undefined;
}

/**
 * The pull request's decision of a resolution set in GitHub's UI, so later pushes carry it; it replaces the
 * pull request's earlier decision of the finding and cancels its expiry (`writeDecisionWithExpiry`).
 */
function alertDecision(
  rt: Runtime,
  d: AlertJobData,
  detail: FindingDetail,
  target: { resolutionStatus: string; reason?: string },
): Decision {
  return {
    findingId: detail.id,
    ...identityOf(detail),
    severity: detail.severity,
    resolutionStatus: target.resolutionStatus as FindingDetail["resolutionStatus"],
    ...(target.reason ? { reason: target.reason } : {}),
    note: `set in GitHub code scanning (alert ${d.alertNumber})`,
    by: d.senderLogin,
    at: new Date(rt.now()).toISOString(),
  };
}

/**
 * A dismissal on GitHub that `triage.approval` holds (GitHub's delegated alert
 * dismissal works the same way: the alert stays open until a reviewer approves): the alert is reopened
 * ("Update a code scanning alert", `state: open`; its webhook echo has diffward's bot as sender and is
 * ignored) so GitHub shows what the service has, and when the alert is on a pull request's ref an
 * approval request is stored for that pull request and announced in its conversation (once per
 * requester and status, so a redelivery posts nothing more). With `triage.approval.codeowners`, the request
 * keeps the rule and the code owners of the finding's file read now from the base branch's CODEOWNERS, as a
 * `/fp` held in the pull request does ({@link heldCodeOwners}), and the message names them. `/approve` then
 * sets the resolution and
 * dismisses the alert again (`syncAlertWithResolution`). On any other ref (a merge group's branch) no
 * request can be held: {@link traceHeldDismissal} says so. Never sets a resolution on the service.
 * @returns the code owners the approval request keeps (none without `triage.approval.codeowners` or off a
 * pull request's ref), for the audit entry.
 */
async function holdAlertDismissal(
  rt: Runtime,
  d: AlertJobData,
  ref: string | null,
  detail: FindingDetail,
  target: { resolutionStatus: string; reason?: string },
  note: string,
  approval: Approval,
  log: Logger,
  tenant: NonNullable<Awaited<ReturnType<Runtime["scanner"]["forAccount"]>>>,
): Promise<CodeOwnership | undefined> {
  const { approvers } = approval;
  const repo = { owner: d.owner, repo: d.repo };
  await applyWrites(rt, d.installationId, [
    {
      kind: "update-code-scanning-alert",
      repo,
      alertNumber: d.alertNumber,
      change: { state: "open" },
      purpose: "answer",
    },
  ]);
  log.info(
    { finding: detail.id, status: target.resolutionStatus, severity: detail.severity },
    "dismissal on GitHub held for approval: alert reopened",
  );
  if (!isDismissal(target.resolutionStatus)) return undefined;
  const m = ref ? PULL_REF.exec(ref) : null;
  if (!m)
    return traceHeldDismissal(
      rt,
      { d, ref, detail, status: target.resolutionStatus, note, approval },
      log,
      tenant,
    );
  const pull = { ...repo, pullNumber: Number(m[1]) };
  const key = pullKey(d.owner, d.repo, pull.pullNumber);
  const identity = { id: detail.id, ...identityOf(detail) };
  const existing = requestFor(await readApprovals(rt, key, log), identity);
  if (
    existing &&
    existing.requestedBy.toLowerCase() === d.senderLogin.toLowerCase() &&
    existing.resolutionStatus === target.resolutionStatus
  )
    return existing.codeOwners;
  const codeOwners = approval.codeowners ? await pullCodeOwners(rt, d, pull, detail, log) : undefined;
  await storeApprovalRequest(rt, key, {
    findingId: detail.id,
    ...identityOf(detail),
    severity: detail.severity,
    resolutionStatus: target.resolutionStatus,
    ...(target.reason
      ? { reasonCode: target.reason, note: `Reason: \`${target.reason}\`. ${note}` }
      : { note }),
    requestedBy: d.senderLogin,
    requestedAt: new Date(rt.now()).toISOString(),
    approvers,
    ...(approval.codeowners ? { codeowners: true } : {}),
    ...(codeOwners ? { codeOwners } : {}),
  });
  const label = findingLabel(detail.id, rt.settings.labelPrefix);
  const text = heldForApprovalText(d, label, detail, target.resolutionStatus, approvers);
  const owners = heldOwnersSentence(codeOwners, approval.notify === true);
  await postInConversation(rt, d, pull, text + owners);
  return codeOwners;
}

/**
 * The code owners of the finding's file in the CODEOWNERS of branch `baseRef` as it is now (a pull request's
 * base branch, a merge group's; `readCodeOwnership`, the reader a held `/fp` uses; rules in
 * `src/domain/code-owner-approval.ts`), or why the role rule applies alone (`fallback`). The requester's own
 * ownership is not asked for.
 * @throws what Octokit throws for a GitHub failure worth a retry (the job retries).
 */
async function heldCodeOwners(
  rt: Runtime,
  d: AlertJobData,
  baseRef: string,
  detail: FindingDetail,
  log: Logger,
): Promise<CodeOwnership> {
  const octokit = await rt.octokit(d.installationId);
  const at = { owner: d.owner, repo: d.repo, baseRef, installationId: d.installationId };
  const file = parseLocation(detail.location)?.path;
  return (await readCodeOwnership(octokit, at, file, d.senderLogin, log)).ownership;
}

/** {@link heldCodeOwners} under the pull request's base branch, read now (GitHub "Get a pull request"). */
async function pullCodeOwners(
  rt: Runtime,
  d: AlertJobData,
  pull: PullRef,
  detail: FindingDetail,
  log: Logger,
): Promise<CodeOwnership> {
  const { baseRef } = await getPull(await rt.octokit(d.installationId), pull);
  return heldCodeOwners(rt, d, baseRef, detail, log);
}

/** Posts `body` in the pull request's conversation: one planned comment, applied through the write path. */
async function postInConversation(rt: Runtime, d: AlertJobData, pull: PullRef, body: string): Promise<void> {
  await applyWrites(rt, d.installationId, [{ kind: "create-issue-comment", pull, body, purpose: "answer" }]);
}

/** The pull request comment that says a dismissal on GitHub waits for a second person's approval. Pure. */
function heldForApprovalText(
  d: Pick<AlertJobData, "senderLogin" | "alertNumber">,
  label: string,
  detail: Pick<FindingDetail, "severity">,
  status: string,
  approvers: string,
): string {
  return (
    `${inlineCode(`@${d.senderLogin}`)} dismissed code scanning alert #${d.alertNumber} (${inlineCode(label)}, ` +
    `**${severityName(detail.severity)}**) as **${statusName(status)}**. With \`triage.approval\`, ` +
    `that needs a second person: **approval requested** from a different user with the ${inlineCode(approvers)} role ` +
    `or above, who writes \`/diffward approve ${label}\` (or \`/diffward reject ${label}\`). The alert was reopened ` +
    "and nothing was changed on the scanning service until then."
  );
}

/** The prefix of a branch's ref. */
const HEADS = "refs/heads/";

/**
 * The trace of a dismissal held on a ref that is no pull request's (a merge group's branch), where no approval
 * request can be held and GitHub gives an alert no comment thread: a note on the finding on the service
 * ({@link heldDismissalNote}: who dismissed what, why it was not applied, how to dismiss it), not added again
 * while it is the finding's latest note; the same text in the conversation of the pull request a merge
 * group's ref names, once per event (a one-time claim per alert and text, held by the delivery, so a retry of
 * the job posts it when it failed and a second delivery does not); and a warning in the log. A definite
 * refusal of the comment (4xx: the pull request gone) is logged, and the note stays the record; service errors
 * and GitHub's 429, 5xx and network errors are thrown (the job retries).
 */
async function traceHeldDismissal(
  rt: Runtime,
  held: {
    d: AlertJobData;
    ref: string | null;
    detail: FindingDetail;
    status: string;
    note: string;
    approval: Approval;
  },
  log: Logger,
  tenant: NonNullable<Awaited<ReturnType<Runtime["scanner"]["forAccount"]>>>,
): Promise<CodeOwnership | undefined> {
  const { d, ref, detail, approval } = held;
  const group = ref ? parseMergeGroupRef(ref) : undefined;
  const pullNumber = group?.pullNumber;
  // an approval requested in the pull request the ref names is decided under the CODEOWNERS of its base
  const branch = group?.baseBranch ?? (ref?.startsWith(HEADS) ? ref.slice(HEADS.length) : undefined);
  const codeOwners =
    approval.codeowners && branch ? await heldCodeOwners(rt, d, branch, detail, log) : undefined;
  const content = heldDismissalNote({
    dismissed: held.note,
    alertNumber: d.alertNumber,
    ref,
    label: findingLabel(detail.id, rt.settings.labelPrefix),
    severity: detail.severity,
    status: held.status,
    approvers: approval.approvers,
    ...(pullNumber ? { pullNumber } : {}),
    ...(codeOwners ? { owners: heldOwnersSentence(codeOwners, false).trim() } : {}),
  });
  const latest = detail.notes.reduce<(typeof detail.notes)[number] | undefined>(
    (a, b) => (a && a.createdAt > b.createdAt ? a : b),
    undefined,
  )?.body;
  if (latest?.trim() !== content.trim()) await tenant.client.addNote(tenant.projectId, detail.id, content);
  log.warn(
    { finding: detail.id, status: held.status, severity: detail.severity, ref, by: d.senderLogin },
    "dismissal on GitHub held for approval on a ref without a pull request: alert reopened, note left on the finding",
  );
  if (!pullNumber) return codeOwners;
  const text = createHash("sha256").update(content).digest("hex").slice(0, 16);
  if (
    !(await rt.stores.pulls.claimOnce(
      "held-alert",
      `${d.owner}/${d.repo}/${d.alertNumber}/${text}`,
      d.deliveryId,
    ))
  )
    return codeOwners;
  try {
    await postInConversation(rt, d, { owner: d.owner, repo: d.repo, pullNumber }, content);
  } catch (error) {
    // GitHub's definite refusals (the pull request gone, no access) end here; 429, 5xx and network errors retry
    const status = (error as { status?: number }).status;
    if (status === undefined || status === 429 || status >= 500) throw error;
    log.warn(
      { pull: pullNumber, err: error },
      "held dismissal not announced on the merge group's pull request",
    );
  }
  return codeOwners;
}
