/**
 * The `command` job (issue 4): one slash command from a pull request, read, checked, applied through the
 * scanning service, answered where it was written, and reflected on the finding's comment, its review
 * thread and the check run. Steps: claim the comment (runs once) → parse → (reply) the parent must be
 * diffward's finding comment → 👀 → config → help/status (open to all) → permission floor → service call
 * → decision stored → comment edited → thread resolved/reopened → check recomputed → answer.
 */
import { DelayedError, type Job } from "bullmq";
import { renderAreasAnswer, renderCreditsAnswer } from "../../render/spend-answers.js";
import { repositoryMonthSpend } from "../../policy/credits.js";
import type { Logger } from "pino";
import { parseCommand, renderHelp, type ParsedCommand } from "../../commands/index.js";
import type { ResolutionCommand } from "../../commands/parse.js";
import { permissionAtLeast, type RepoConfig } from "../../config/repo-config.js";
import { fingerprint } from "../../domain/identity.js";
import type { ReportFinding } from "../../domain/types.js";
import { decideConclusion, OPEN_RESOLUTIONS } from "../../domain/verdict.js";
import { addReaction, createIssueComment, getPermission } from "../../github/comments.js";
import { getPull } from "../../github/pulls.js";
import { getReviewComment, replyToReviewComment, updateReviewComment } from "../../github/reviews.js";
import { findReviewThread, setReviewThreadResolved } from "../../github/threads.js";
import type { InstallationOctokit } from "../../github/types.js";
import { inlineCode } from "../../render/escape.js";
import { parseFindingMarker, renderFindingComment } from "../../render/inline-comment.js";
import { ScannerApiError, ScannerError } from "../../scanner/errors.js";
import { findingLabel, findingRefParam, refMatchesId, type FindingRef } from "../../scanner/labels.js";
import type { FindingDetail } from "../../scanner/schemas.js";
import type { ScannerTenant } from "../../tenants/index.js";
import { loadRepoConfig } from "../config-loader.js";
import { EVENT_JOB_OPTIONS } from "../../handlers/deps.js";
import type { ReportState } from "./report.js";
import type { PullRequestJobData } from "./types.js";
import { JOB, jobId, pullKey } from "../names.js";
import type { Runtime } from "../runtime.js";
import type { PullState } from "../state.js";
import {
  attributed,
  conflictAnswer,
  permissionRefusal,
  publishedAnswer,
  rateLimitedAnswer,
  serviceRefusal,
  unavailableAnswer,
  who,
} from "../../render/command-answers.js";
import { recomputeCheck } from "../../triage/check.js";
import { readDecisions, recordDecisions } from "../../triage/decisions.js";
import { CommandJobData, type Decision } from "../../triage/types.js";

/** What the command job did; returned as the job's result (visible in BullMQ and in tests). */
export type CommandOutcome =
  | "invalid-job"
  | "duplicate"
  | "ignored"
  | "not-onboarded"
  | "answered"
  | "permission-refused"
  | "changed"
  | "rescan-enqueued"
  | "gave-up";

/** How many times a 429 from the service may postpone one command before diffward gives up and says so. */
export const MAX_RATE_LIMITED_WAITS = 5;
/** How long a comment stays claimed by its first job (redelivery, edited copies), in seconds (7 days). */
export const COMMAND_CLAIM_TTL_SECONDS = 7 * 24 * 3600;

/** Thrown inside the job to stop with an answer already posted. */
class Answered extends Error {
  constructor(readonly outcome: CommandOutcome) {
    super(outcome);
  }
}

interface Ctx {
  rt: Runtime;
  job: Job;
  token: string | undefined;
  d: CommandJobData;
  log: Logger;
  octokit: InstallationOctokit;
  pull: { owner: string; repo: string; pullNumber: number };
  key: string;
  prefix: string;
  answer(body: string): Promise<void>;
}

/**
 * Runs one slash command (job `command`). Returns what it did; throws only to retry (GitHub or service
 * 5xx, network) or to wait (`DelayedError` after a 429 with `Retry-After`). Service refusals, permission
 * refusals and bad arguments are answered in the thread, never thrown.
 */
export async function processCommand(rt: Runtime, job: Job, token?: string): Promise<CommandOutcome> {
  const parsedData = CommandJobData.safeParse(job.data);
  if (!parsedData.success) {
    rt.log.warn(
      { job: job.id, problems: parsedData.error.issues.length },
      "command job data invalid: dropped",
    );
    return "invalid-job";
  }
  const d = parsedData.data;
  const key = pullKey(d.owner, d.repo, d.pullNumber);
  const log = rt.log.child({
    delivery: d.deliveryId,
    pull: key,
    installation: d.installationId,
    comment: d.commentId,
    job: job.id,
  });
  if (!(await claimComment(rt, d, String(job.id)))) {
    log.info("command comment already handled by another job: ignored");
    return "duplicate";
  }
  const prefix = rt.settings.labelPrefix;
  const cmd = parseCommand(d.body, d.form, { labelPrefix: prefix });
  if (cmd.kind === "ignore") return "ignored";

  const octokit = await rt.octokit(d.installationId);
  const pull = { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber };
  let markerId: string | undefined;
  if (d.form === "reply") {
    // Only replies to diffward's own finding comments are commands (the marker is first, the author a bot).
    const parent = d.inReplyToId ? await getReviewComment(octokit, pull, d.inReplyToId) : undefined;
    markerId =
      parent && parent.userType === "Bot" && parent.inReplyToId === undefined
        ? parseFindingMarker(parent.body)?.id
        : undefined;
    if (!markerId) {
      log.info("reply is not in a diffward finding thread: ignored");
      return "ignored";
    }
  }
  const loaded = await loadRepoConfig(octokit, d.owner, d.repo);
  if (loaded.kind === "absent") {
    log.info("repository not onboarded: command ignored");
    return "not-onboarded";
  }
  const config = loaded.kind === "ok" ? loaded.config : undefined;
  await addReaction(octokit, pull, d.form === "reply" ? "review" : "issue", d.commentId, "eyes").catch(
    (error: Error) => log.warn({ err: error.message }, "could not react to the command"),
  );
  const answer = async (body: string) => {
    if (d.form === "reply") await replyToReviewComment(octokit, pull, d.inReplyToId!, body);
    else await createIssueComment(octokit, pull, body);
  };
  const c: Ctx = { rt, job, token, d, log, octokit, pull, key, prefix, answer };

  try {
    return await run(c, cmd, config, markerId);
  } catch (error) {
    if (error instanceof Answered) return error.outcome;
    return handleFailure(c, cmd, error);
  }
}

async function run(
  c: Ctx,
  cmd: ParsedCommand,
  config: RepoConfig | undefined,
  markerId: string | undefined,
): Promise<CommandOutcome> {
  const { d } = c;
  if (cmd.kind === "help") {
    await c.answer(
      renderHelp(d.form, { labelPrefix: c.prefix, ...(cmd.unknown ? { unknown: cmd.unknown } : {}) }),
    );
    return "answered";
  }
  if (cmd.kind === "status") {
    await c.answer(await statusAnswer(c));
    return "answered";
  }
  if (cmd.kind === "ignore") return "ignored";

  // Everything else changes something or reads the account: check the commenter's permission first.
  const floor = config?.commands.minPermission ?? "write";
  const actual = await getPermission(c.octokit, c.pull, d.senderLogin);
  if (!permissionAtLeast(actual, floor)) {
    c.log.info({ actual, floor }, "command refused: permission below the floor");
    await c.answer(permissionRefusal(d.senderLogin, actual, floor));
    return "permission-refused";
  }
  if (cmd.kind === "error" || cmd.kind === "refusal") {
    await c.answer(cmd.message);
    return "answered";
  }
  const tenant = await c.rt.scanner.forAccount(d.accountLogin);
  if (!tenant) {
    await c.answer(
      "diffward has no scanning-service token for this account, so nothing was changed. Ask an administrator to configure one.",
    );
    return "answered";
  }

  switch (cmd.kind) {
    case "resolution":
    case "severity":
    case "note":
    case "publish":
      return findingCommand(c, tenant, cmd, markerId);
    case "rescan":
      return rescan(c, cmd, config);
    case "cancel":
      return cancel(c, tenant);
    case "credits": {
      const [balance, summary, monthSpend] = await Promise.all([
        tenant.client.getBalance(tenant.projectId),
        tenant.client.getSummary(tenant.projectId, { months: 6 }).catch(() => undefined),
        config
          ? repositoryMonthSpend(tenant, config.repositoryId, c.rt.now()).catch(() => undefined)
          : undefined,
      ]);
      await c.answer(
        renderCreditsAnswer({
          balance,
          ...(summary ? { summary } : {}),
          ...(monthSpend !== undefined ? { repositoryMonthSpend: monthSpend } : {}),
          ...(config ? { config } : {}),
          now: c.rt.now(),
        }),
      );
      return "answered";
    }
    case "guidance": {
      if (!config) return configNeeded(c);
      const g = await tenant.client.getGuidance(tenant.projectId, config.repositoryId);
      const size = g.content?.length ?? 0;
      await c.answer(
        size > 0
          ? `**Guidance**: the repository's stored guidance has ${size} characters (the committed \`${c.rt.settings.guidanceFile}\` applies as well).`
          : `**Guidance**: no stored guidance for this repository (the committed \`${c.rt.settings.guidanceFile}\` applies when present).`,
      );
      return "answered";
    }
    case "areas": {
      if (!config) return configNeeded(c);
      const list = await tenant.client.listAuditAreas(tenant.projectId, config.repositoryId);
      await c.answer(renderAreasAnswer(list, config.auditAreas ?? []));
      return "answered";
    }
  }
}

async function configNeeded(c: Ctx): Promise<CommandOutcome> {
  await c.answer(
    "`.github/diffward.yml` is invalid, so diffward cannot tell which repository of the service this is. Fix it first.",
  );
  return "answered";
}

/** The target of a finding command: its detail and diffward's comment for it on this pull request. */
interface Target {
  detail: FindingDetail;
  commentId?: number;
}

async function resolveTarget(
  c: Ctx,
  tenant: ScannerTenant,
  ref: FindingRef | undefined,
  markerId: string | undefined,
): Promise<Target> {
  const report = await c.rt.state.getJson<ReportState>("report", c.key);
  if (markerId) {
    const detail = await tenant.client.getFinding(tenant.projectId, markerId);
    return { detail, commentId: c.d.inReplyToId! };
  }
  if (!ref) {
    await c.answer("Name the finding: `/diffward <verb> <label or id>`.");
    throw new Answered("answered");
  }
  const typed = findingRefParam(ref, c.prefix);
  let detail: FindingDetail;
  try {
    detail = await tenant.client.getFinding(tenant.projectId, typed);
  } catch (error) {
    if (error instanceof ScannerApiError && error.code === "conflict") {
      const candidates = (report?.findings ?? []).filter((f) => refMatchesId(ref, f.id));
      await c.answer(conflictAnswer(typed, candidates, c.prefix));
      throw new Answered("answered");
    }
    throw error;
  }
  // Only findings of this pull request: a label must not reach another repository's finding.
  const decisions = await readDecisions(c.rt, c.key, c.log);
  const known =
    report?.findings.find((f) => f.id === detail.id) ?? decisions.find((x) => x.findingId === detail.id);
  if (!known) {
    await c.answer(
      `${inlineCode(typed)} is not a finding diffward reported on this pull request, so nothing was changed.`,
    );
    throw new Answered("answered");
  }
  const commentId = report?.findings.find((f) => f.id === detail.id)?.commentId;
  return { detail, ...(commentId !== undefined ? { commentId } : {}) };
}

async function findingCommand(
  c: Ctx,
  tenant: ScannerTenant,
  cmd: Extract<ParsedCommand, { kind: "resolution" | "severity" | "note" | "publish" }>,
  markerId: string | undefined,
): Promise<CommandOutcome> {
  const { d } = c;
  const target = await resolveTarget(c, tenant, cmd.ref, markerId);
  const id = target.detail.id;
  const label = findingLabel(id, c.prefix);
  const pid = tenant.projectId;
  const by = d.senderLogin;

  if (cmd.kind === "publish") {
    const art = await tenant.client.publishFinding(pid, id, { withPassword: false });
    c.log.info({ finding: id, publicId: art.publicId }, "finding published");
    await c.answer(publishedAnswer(label, art.publicId, c.rt.settings.publicUrl));
    return "changed";
  }
  if (cmd.kind === "note") {
    await tenant.client.addNote(pid, id, attributed(cmd.content, by, c.pull));
    await refreshComment(c, tenant, target);
    await c.answer(`Added your note to ${inlineCode(label)} in the scanning service (signed as ${who(by)}).`);
    return "changed";
  }

  let summary: string;
  if (cmd.kind === "severity") {
    await tenant.client.setSeverity(pid, id, cmd.severity);
    const what = cmd.severity
      ? `Severity of ${inlineCode(label)} set to **${cmd.severity}**`
      : `Severity override of ${inlineCode(label)} cleared`;
    await tenant.client.addNote(
      pid,
      id,
      attributed(cmd.extraNote ?? `${what.replace(/\*\*/g, "")}.`, by, c.pull),
    );
    summary = `${what}.`;
  } else {
    summary = await applyResolution(c, tenant, cmd, target.detail);
  }
  const fresh = await refreshComment(c, tenant, target);
  if (cmd.kind === "resolution") await syncThread(c, target, cmd.status);
  const verdict = await recomputeCheck(c.rt, c.octokit, tenant, c.pull, c.log);
  const check = verdict ? ` The check is now **${verdict.conclusion}** (${verdict.blocking} blocking).` : "";
  c.log.info({ finding: id, kind: cmd.kind, severity: fresh?.severity }, "finding triaged");
  await c.answer(`${summary}${check}`);
  return "changed";
}

/**
 * `PATCH …/resolution` by the reason-versus-note rule of the parser: a lone code is `reason`, any text is
 * `note.content` (signed); `NOT_STARTED`/`IN_PROGRESS` ignore both (rule 2), so their text goes as a note.
 * Every command leaves exactly one signed note (with the resolution, or separately).
 */
async function applyResolution(
  c: Ctx,
  tenant: ScannerTenant,
  cmd: ResolutionCommand,
  detail: FindingDetail,
): Promise<string> {
  const { d } = c;
  const by = d.senderLogin;
  const pid = tenant.projectId;
  const open = OPEN_RESOLUTIONS.includes(cmd.status);
  const note = !open && cmd.note ? attributed(cmd.note, by, c.pull) : undefined;
  await tenant.client.setResolution(pid, detail.id, {
    resolutionStatus: cmd.status,
    ...(cmd.reason && !note ? { reason: cmd.reason } : {}),
    ...(note ? { note: { content: note } } : {}),
  });
  if (!note) {
    const reason = cmd.reason ? ` (reason \`${cmd.reason}\`)` : "";
    await tenant.client.addNote(
      pid,
      detail.id,
      attributed(cmd.extraNote ?? `Resolution set to ${cmd.status}${reason}.`, by, c.pull),
    );
  }
  const reason = cmd.reason ?? cmd.reasonCode;
  const text = cmd.note ?? cmd.extraNote;
  const decision: Decision = {
    findingId: detail.id,
    fingerprint: fingerprint(detail),
    severity: detail.severity,
    resolutionStatus: cmd.status,
    ...(reason ? { reason } : {}),
    ...(text ? { note: text } : {}),
    by,
    at: new Date(c.rt.now()).toISOString(),
  };
  await recordDecisions(c.rt, c.key, [decision]);
  const how = cmd.reason ? ` with reason ${inlineCode(cmd.reason)}` : cmd.note ? " with your note" : "";
  const extra = cmd.extraNote
    ? " Your text was added as a note (the service ignores notes for this state)."
    : "";
  return `${inlineCode(findingLabel(detail.id, c.prefix))} is now **${cmd.status}**${how}, set for ${who(by)}.${extra}`;
}

/** Re-renders diffward's comment of the finding with its current state and the stored decision. */
async function refreshComment(
  c: Ctx,
  tenant: ScannerTenant,
  target: Target,
): Promise<ReportFinding | undefined> {
  const detail = await tenant.client.getFinding(tenant.projectId, target.detail.id);
  const f: ReportFinding = {
    id: detail.id,
    displayId: detail.displayId,
    title: detail.title,
    location: detail.location,
    severity: detail.severity,
    category: detail.category,
    triageStatus: detail.triageStatus,
    confirmationEvidence: detail.confirmationEvidence ?? null,
    resolutionStatus: detail.resolutionStatus,
    notesCount: detail.notesCount,
    description: detail.description,
    recommendedFix: detail.recommendedFix ?? null,
    pocReport: detail.pocReport ?? null,
  };
  if (target.commentId === undefined) return f;
  const decision = (await readDecisions(c.rt, c.key, c.log)).find((x) => x.findingId === detail.id);
  const body = renderFindingComment(f, {
    labelPrefix: c.prefix,
    ...(decision
      ? {
          decision: {
            resolutionStatus: decision.resolutionStatus,
            ...(decision.reason ? { reason: decision.reason } : {}),
            ...(decision.note ? { note: decision.note } : {}),
            by: decision.by,
            at: decision.at,
          },
        }
      : {}),
  });
  const existing = await getReviewComment(c.octokit, c.pull, target.commentId);
  if (existing && existing.body !== body)
    await updateReviewComment(c.octokit, c.pull, target.commentId, body);
  return f;
}

/** Resolves the finding's review thread on a closing decision, reopens it on `/reopen`; never fatal. */
async function syncThread(c: Ctx, target: Target, status: string): Promise<void> {
  if (target.commentId === undefined || status === "IN_PROGRESS") return;
  const resolved = status !== "NOT_STARTED";
  try {
    const thread = await findReviewThread(c.octokit, c.pull, target.commentId);
    if (!thread) {
      c.log.warn({ commentId: target.commentId }, "review thread not found");
      return;
    }
    if (thread.isResolved !== resolved) await setReviewThreadResolved(c.octokit, thread.id, resolved);
  } catch (error) {
    c.log.warn({ err: (error as Error).message, resolved }, "could not change the review thread: ignored");
  }
}

async function rescan(
  c: Ctx,
  cmd: Extract<ParsedCommand, { kind: "rescan" }>,
  config: RepoConfig | undefined,
): Promise<CommandOutcome> {
  if (!config) return configNeeded(c);
  const { d } = c;
  const pr = await getPull(c.octokit, c.pull);
  if (pr.state !== "open") {
    await c.answer("This pull request is closed, so diffward does not scan it again.");
    return "answered";
  }
  const data: PullRequestJobData = {
    deliveryId: d.deliveryId,
    action: "rescan",
    installationId: d.installationId,
    accountLogin: d.accountLogin,
    owner: d.owner,
    repo: d.repo,
    repoPrivate: d.repoPrivate,
    defaultBranch: d.defaultBranch,
    pullNumber: d.pullNumber,
    headSha: pr.headSha,
    headRef: pr.headRef,
    baseRef: pr.baseRef,
    draft: pr.draft,
    updatedAt: new Date(c.rt.now()).toISOString(),
    authorLogin: pr.authorLogin,
    title: "",
    ...(pr.headRepoFullName ? { headRepoFullName: pr.headRepoFullName } : {}),
    explicit: {
      nonce: `cmd-${d.commentId}`,
      requestedBy: d.senderLogin,
      ...(cmd.preset ? { presetRef: cmd.preset } : {}),
      ...(cmd.budget !== undefined ? { creditBudget: cmd.budget } : {}),
    },
  };
  // One job per command comment: a retried or redelivered command never launches a second scan.
  await c.rt.queues.events.add(JOB.rerequest, data, {
    ...EVENT_JOB_OPTIONS,
    jobId: jobId("rescan", d.owner, d.repo, d.pullNumber, d.commentId),
  });
  const budget = cmd.budget ?? config.creditBudget;
  const credits =
    budget !== undefined
      ? `up to **${budget} credits** will be reserved at launch`
      : "the service picks the recommended budget; the check run shows the credits reserved";
  await c.answer(
    `Rescan of ${inlineCode(pr.headSha.slice(0, 7))} requested for ${who(d.senderLogin)}` +
      `${cmd.preset ? ` with preset ${inlineCode(cmd.preset)}` : ""}: ${credits}.`,
  );
  return "rescan-enqueued";
}

async function cancel(c: Ctx, tenant: ScannerTenant): Promise<CommandOutcome> {
  const pullState = await c.rt.state.getPull(c.key);
  const report = await c.rt.state.getJson<ReportState>("report", c.key);
  if (!pullState?.scanId || !pullState.projectId || report?.scanId === pullState.scanId) {
    await c.answer("No scan of this pull request is running, so there is nothing to cancel.");
    return "answered";
  }
  try {
    const res = await tenant.client.cancelScan(pullState.projectId, pullState.scanId);
    await c.answer(
      `Cancelled scan ${inlineCode(res.scanId)} for ${who(c.d.senderLogin)} (${res.cancelledJobs} running job(s) stopped); unused credits return to the balance.`,
    );
    return "changed";
  } catch (error) {
    if (error instanceof ScannerApiError && error.status === 400) {
      await c.answer(
        `Scan ${inlineCode(pullState.scanId)} has already finished, so there is nothing to cancel.`,
      );
      return "answered";
    }
    throw error;
  }
}

async function statusAnswer(c: Ctx): Promise<string> {
  const pullState: PullState | undefined = await c.rt.state.getPull(c.key);
  const report = await c.rt.state.getJson<ReportState>("report", c.key);
  if (!pullState && !report) return "diffward has not scanned this pull request yet.";
  const lines = ["**diffward status**", ""];
  if (pullState) lines.push(`- head: ${inlineCode(pullState.headSha.slice(0, 7))}`);
  if (pullState?.scanId && pullState.scanId !== report?.scanId)
    lines.push(`- scan ${inlineCode(pullState.scanId)} is in progress`);
  if (report) {
    const v = decideConclusion(
      report.findings.map((f) => ({
        severity: f.severity as ReportFinding["severity"],
        triageStatus: f.triageStatus,
        resolutionStatus: f.resolutionStatus,
      })),
      report.config.failOn,
    );
    lines.push(
      `- last report: scan ${inlineCode(report.scanId)} of ${inlineCode(report.headSha.slice(0, 7))}, ` +
        `${report.findings.length} finding(s), ${v.open} open, ${v.blocking} blocking: **${v.conclusion}**`,
    );
  }
  return lines.join("\n");
}

/** Service and GitHub failures: wait on 429, retry 5xx/network, answer definite refusals. */
async function handleFailure(c: Ctx, cmd: ParsedCommand, error: unknown): Promise<CommandOutcome> {
  const what = describe(cmd);
  if (error instanceof ScannerApiError && error.status === 429) {
    const waits = (c.d.rateLimited ?? 0) + 1;
    if (waits <= MAX_RATE_LIMITED_WAITS) {
      const ms = Math.max(1, error.retryAfterSeconds ?? 5) * 1000 + c.rt.settings.pollMarginMs;
      c.log.info({ waits, ms }, "service rate limited the command: waiting");
      await c.job.updateData({ ...c.d, rateLimited: waits });
      await c.job.moveToDelayed(c.rt.now() + ms, c.token);
      throw new DelayedError();
    }
    await c.answer(rateLimitedAnswer(what));
    return "gave-up";
  }
  if (error instanceof ScannerApiError && !error.retryable) {
    c.log.info({ status: error.status, code: error.code }, "service refused the command");
    await c.answer(serviceRefusal(error, what));
    return "answered";
  }
  if (error instanceof ScannerError && error.retryable) {
    const attempts = c.job.opts.attempts ?? 1;
    if (c.job.attemptsMade + 1 >= attempts) {
      c.log.warn({ err: error.message }, "service unavailable: command given up");
      await c.answer(unavailableAnswer(what));
      return "gave-up";
    }
    throw error; // BullMQ retries with exponential backoff
  }
  throw error;
}

function describe(cmd: ParsedCommand): string {
  switch (cmd.kind) {
    case "resolution":
      return `set the resolution to ${cmd.status}`;
    case "severity":
      return "change the severity";
    case "note":
      return "add the note";
    case "publish":
      return "publish the finding";
    case "cancel":
      return "cancel the scan";
    default:
      return `run \`${"verb" in cmd ? cmd.verb : "the command"}\``;
  }
}

/**
 * Claims a command comment for one job (Redis `SET NX`): a redelivered webhook or a second delivery of
 * the same comment runs nothing; a retry of the same job (same id) passes.
 */
async function claimComment(rt: Runtime, d: CommandJobData, id: string): Promise<boolean> {
  const k = `${rt.state.prefix}:cmd:${d.owner}/${d.repo}:${d.form}:${d.commentId}`;
  const ok = await rt.redis.set(k, id, "EX", COMMAND_CLAIM_TTL_SECONDS, "NX");
  if (ok === "OK") return true;
  return (await rt.redis.get(k)) === id;
}
