/**
 * The `CommandIO` ports of one slash command (`src/commands/verb-module.ts`), on its pull request: the verbs
 * reach GitHub, diffward's Redis records, the service (through the account's tenant) and the queue only
 * through them. The command job (`command-job.ts`) builds them once the verb's needs are met; each port is a
 * closure over the {@link CommandContext} (the runtime, the job's data, the installation's client and write path).
 */
import type { Job } from "bullmq";
import type { Logger } from "pino";
import type { CommandIO, FindingTarget, RescanRequest, VerbInput } from "../index.js";
import { getPermission } from "../../github/issue-comments.js";
import { getPull } from "../../github/pulls.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import type { ApplyWrites } from "../../github/writes.js";
import type { ScannerTenant } from "../../tenants/index.js";
import {
  recomputeCheck,
  readDecisions,
  recordSeverityOverride,
  waitingForPullLock,
  writeDecisionWithExpiry,
  refreshFindingComment,
  setThreadResolved,
  readCodeOwnership,
  claimApprovalRequest,
  dropApprovalRequest,
  readApprovals,
  releaseApprovalClaim,
  requestFor,
  storeApprovalRequest,
} from "../../triage/index.js";
import { fingerprint } from "../../domain/identity.js";
import { syncAlertWithResolution } from "../../code-scanning/index.js";
import { jobId } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { repoOf } from "../../job-kit/types.js";
import { addJob, type CommandJobData, type PullRequestJobData } from "../../job-catalogue/index.js";

/** The pull request, the comment and the clients one command runs with (built by the command job). */
export interface CommandContext {
  rt: Runtime;
  job: Job;
  token: string | undefined;
  d: CommandJobData;
  log: Logger;
  octokit: InstallationOctokit;
  /** the installation's write path: every GitHub write of the command goes through it */
  apply: ApplyWrites;
  pull: { owner: string; repo: string; pullNumber: number };
  key: string;
  answer(body: string): Promise<void>;
  /** the commenter's repository permission, once read */
  permission?: Promise<string>;
  /** the last answer posted (a refusal's audit entry keeps it) */
  answered?: string;
  /** the finding acted on, once resolved */
  target?: FindingTarget;
  /** the verb's plan and input, once planned (its audit entry is made from them) */
  planned?: { plan: unknown; input: VerbInput<unknown> };
}

/** The commenter's repository permission, read from GitHub once per command. */
export function senderPermission(c: CommandContext): Promise<string> {
  c.permission ??= getPermission(c.octokit, c.pull, c.d.senderLogin);
  return c.permission;
}

/** The ports of the verbs, on this pull request. */
export function commandIO(c: CommandContext, tenant: ScannerTenant | undefined): CommandIO {
  const { rt } = c;
  const decisions = () => readDecisions(rt, c.key, c.log);
  return {
    log: c.log,
    answer: c.answer,
    once: (step, write) => sendOnce(c, step, write),
    readPullScan: async () => {
      const pr = await rt.stores.pulls.getPull(c.key);
      const ended = pr?.scanId ? (await rt.stores.scans.getScanEnd(pr.scanId)).status : undefined;
      return pr && { ...pr, ...(ended ? { endedStatus: ended } : {}) };
    },
    readReport: () => rt.stores.reports.get(c.key),
    readDecisions: decisions,
    senderPermission: () => senderPermission(c),
    codeOwnership: async (file, login) => {
      const { baseRef } = await getPull(c.octokit, c.pull);
      const at = { owner: c.pull.owner, repo: c.pull.repo, baseRef, installationId: c.d.installationId };
      return readCodeOwnership(c.octokit, at, file, login, c.log);
    },
    approvals: {
      list: () => readApprovals(rt, c.key, c.log),
      store: (request) => storeApprovalRequest(rt, c.key, request),
      claim: (finding) =>
        claimApprovalRequest(rt, c.key, finding, { commentId: c.d.commentId, by: c.d.senderLogin }),
      release: (finding) => releaseApprovalClaim(rt, c.key, finding, c.d.commentId),
      drop: (finding) => dropApprovalRequest(rt, c.key, finding),
    },
    decide: (decision, write) =>
      waitingForPullLock(rt, c.key, async () => {
        await write();
        await writeDecisionWithExpiry(
          rt,
          { ...c.pull, installationId: c.d.installationId, accountLogin: c.d.accountLogin },
          decision,
          decision.approvedBy ? "approval" : "command",
          c.log,
        );
      }),
    recordSeverityOverride: (entry) => recordSeverityOverride(rt, c.key, entry),
    refreshFindingComment: (target) =>
      refreshFindingComment(
        c.octokit,
        c.apply,
        tenant!,
        c.pull,
        target,
        decisions,
        rt.settings.labelPrefix,
        rt.settings.publicUrl,
        async (detail) => {
          const report = await rt.stores.reports.get(c.key);
          const pending = requestFor(await readApprovals(rt, c.key, c.log), {
            id: detail.id,
            fingerprint: fingerprint(detail),
          });
          return { disclosure: report?.config.disclosure ?? "full", ...(pending ? { pending } : {}) };
        },
      ),
    setThreadResolved: (commentId, resolved) =>
      setThreadResolved(c.octokit, c.apply, c.pull, commentId, resolved, c.log),
    syncCodeScanningAlert: async (decision) => {
      await syncAlertWithResolution(c.octokit, c.apply, c.pull, decision, c.log);
    },
    recomputeCheck: () => recomputeCheck(rt, c.d.installationId, tenant!, c.pull, c.log),
    readPull: () => getPull(c.octokit, c.pull),
    enqueueRescan: (request) => enqueueRescan(c, request),
    recordCancel: (scanId, login) => rt.stores.scans.recordScanCancelledBy(scanId, login),
  };
}

/** One `rerequest` job per command comment: a retried or redelivered command never launches a second scan. */
async function enqueueRescan(c: CommandContext, r: RescanRequest): Promise<void> {
  const { d } = c;
  const data: PullRequestJobData = {
    deliveryId: d.deliveryId,
    action: "rescan",
    ...repoOf(d),
    pullNumber: d.pullNumber,
    headSha: r.pull.headSha,
    headRef: r.pull.headRef,
    baseRef: r.pull.baseRef,
    draft: r.pull.draft,
    updatedAt: new Date(c.rt.now()).toISOString(),
    authorLogin: r.pull.authorLogin,
    title: "",
    ...(r.pull.headRepoFullName ? { headRepoFullName: r.pull.headRepoFullName } : {}),
    explicit: {
      nonce: r.nonce,
      requestedBy: r.requestedBy,
      ...(r.presetRef ? { presetRef: r.presetRef } : {}),
      ...(r.creditBudget !== undefined ? { creditBudget: r.creditBudget } : {}),
    },
  };
  await addJob(c.rt, "rerequest", data, {
    jobId: jobId("rescan", d.owner, d.repo, d.pullNumber, d.commentId),
  });
}

/**
 * One service write of a command, once per command comment (`CommandIO.once`): the result of a write already
 * sent is read back from the comment's sent writes (`src/stores/command-claims.ts`) instead of sending it again.
 */
async function sendOnce<T>(c: CommandContext, step: string, write: () => Promise<T>): Promise<T> {
  const sent = await c.rt.stores.commands.sent(c.d, step);
  if (sent) {
    c.log.info({ step }, "command retried: service write already sent, not sent again");
    return sent.v as T;
  }
  const result = await write();
  await c.rt.stores.commands.recordSent(c.d, step, result);
  return result;
}
