/**
 * The `command` job: one slash command from a pull request, as a thin pipeline over the verb
 * table (`src/commands/`):
 *
 * 1. **claim** the comment (runs once, whatever the redeliveries);
 * 2. **parse** it (`parseCommand`: the table says which words are verbs; the verb's module reads its
 *    arguments); a reply must be in diffward's own finding thread;
 * 3. **authorize**: the verb's permission floor (`needs.permission`), then its token and config needs;
 * 4. **target**: the finding it acts on (`resolveTarget`), for finding verbs;
 * 5. **verb**: the module's `read` → pure `plan` → `apply` through {@link CommandIO};
 * 6. **answer** where the command was written (the verb answers; failures are answered here).
 *
 * The ports (`command-ports.ts`) wire GitHub, Redis and the queue; this file runs the pipeline and decides
 * nothing a verb decides.
 */
import { DelayedError, type Job } from "bullmq";
import {
  moduleFor,
  namedElsewhereNotice,
  parseCommand,
  renderHelp,
  resolveTarget,
  verbRow,
  type CommandAudit,
  type CommandIO,
  type CommandOutcome,
  type FindingTarget,
  type ParsedCommand,
  type PermissionFloor,
  type VerbInput,
} from "../index.js";
import { permissionAtLeast, type RepoConfig } from "../../config/repo-config.js";
import { getReviewComment } from "../../github/reviews.js";
import { commandFloor } from "../../policy/command-floor.js";
import {
  permissionRefusal,
  publishOffAnswer,
  rateLimitedAnswer,
  serviceRefusal,
  unavailableAnswer,
} from "../../render/command-answers.js";
import { postedFindingComments } from "../../report/decide/posted.js";
import { ScannerApiError, ScannerError } from "../../scanner/errors.js";
import type { ScannerTenant } from "../../tenants/index.js";
import { loadRepoConfig } from "../../runtime/config-loader.js";
import { findingLabel } from "../../scanner/labels.js";
import type { Runtime } from "../../runtime/runtime.js";
import { writesOf } from "../../runtime/apply-writes.js";
import { pullJobLog } from "../../job-kit/target.js";
import type { CommandJobData } from "../../job-catalogue/index.js";
import { commandIO, senderPermission, type CommandContext } from "./command-ports.js";

export type { CommandOutcome } from "../index.js";

/** How many times a 429 from the service may postpone one command before diffward gives up and says so. */
export const MAX_RATE_LIMITED_WAITS = 5;

/**
 * Runs one slash command (job `command`). Returns what it did; throws only to retry (GitHub or service
 * 5xx, network) or to wait (`DelayedError` after a 429 with `Retry-After`). Service refusals, permission
 * refusals and bad arguments are answered in the thread, never thrown.
 */
export async function processCommand(
  rt: Runtime,
  job: Job<CommandJobData>,
  token?: string,
): Promise<CommandOutcome> {
  const d = job.data;
  const { key, log } = pullJobLog(rt, d, { comment: d.commentId, job: job.id });
  // 1. claim
  if (!(await rt.stores.commands.claim(d, String(job.id)))) {
    log.info("command comment already handled by another job: ignored");
    return "duplicate";
  }
  // 2. parse
  const cmd = parseCommand(d.body, d.form, { labelPrefix: rt.settings.labelPrefix });
  if (cmd.kind === "ignore") return "ignored";
  // The App was uninstalled after the comment was delivered: GitHub refuses the removed installation's token,
  // so nothing can be read or answered.
  if (await rt.stores.pulls.isInstallationRemoved(d.installationId)) {
    log.info("installation removed since the command was written: not answered");
    return "installation-removed";
  }

  const octokit = await rt.octokit(d.installationId);
  const pull = { owner: d.owner, repo: d.repo, pullNumber: d.pullNumber };
  let threadFindingId: string | undefined;
  if (d.form === "reply") {
    // Only replies to diffward's own finding comments are commands: the marker is first and the author is
    // diffward's bot login, not any bot or user who copied a marker.
    const parent = d.inReplyToId ? await getReviewComment(octokit, pull, d.inReplyToId) : undefined;
    threadFindingId = parent ? postedFindingComments([parent], await rt.botLogin())[0]?.findingId : undefined;
    if (!threadFindingId) {
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
  const apply = writesOf(rt, d.installationId);
  const on = d.form === "reply" ? "review" : "issue";
  await apply([
    { kind: "add-reaction", repo: pull, on, commentId: d.commentId, content: "eyes", purpose: "answer" },
  ]).catch((error: Error) => log.warn({ err: error }, "could not react to the command"));
  const answer = async (body: string) => {
    c.answered = body;
    await apply([
      d.form === "reply"
        ? { kind: "reply-to-review-comment", pull, commentId: d.inReplyToId!, body, purpose: "answer" }
        : { kind: "create-issue-comment", pull, body, purpose: "answer" },
    ]);
  };
  const c: CommandContext = { rt, job, token, d, log, octokit, apply, pull, key, answer };

  let outcome: CommandOutcome;
  try {
    outcome = await run(c, cmd, config, threadFindingId);
  } catch (error) {
    outcome = await handleFailure(c, cmd, error);
  }
  await auditCommand(c, cmd, outcome, threadFindingId);
  return outcome;
}

/**
 * Appends the command's audit entry (`src/stores/audit-log.ts`) once its outcome is known, for the triage
 * verbs (a module with `audit`): applied, held, or refused (a permission below the floor, a command that did
 * not parse, no such finding, a service refusal, the service unavailable), a refusal with the answer that
 * explained it as `detail`. The finding is the command's target, or, when it was refused before one was
 * found (it did not parse), the finding of the review thread it was written in. A job that throws to retry
 * or wait records nothing: its last run does. Never throws.
 */
async function auditCommand(
  c: CommandContext,
  cmd: Exclude<ParsedCommand, { kind: "ignore" }>,
  outcome: CommandOutcome,
  threadFindingId: string | undefined,
): Promise<void> {
  const verb = "verb" in cmd ? cmd.verb : "";
  const auditing = verbRow(verb)?.module.audit;
  if (!auditing) return;
  const e: CommandAudit = c.planned
    ? auditing.entry(c.planned.plan, c.planned.input, outcome)
    : { action: auditing.action(verb), outcome: "refused" };
  const finding = c.target?.detail.id ?? threadFindingId;
  await c.rt.stores.audit.append({
    installationId: c.d.installationId,
    repository: `${c.d.owner}/${c.d.repo}`,
    pullNumber: c.d.pullNumber,
    ...(finding
      ? { findingId: finding, findingLabel: findingLabel(finding, c.rt.settings.labelPrefix) }
      : {}),
    actor: c.d.senderLogin,
    source: "command",
    ...e,
    ...(e.outcome === "refused" && c.answered ? { detail: c.answered } : {}),
  });
}

/** Steps 3 to 6: authorize, target, verb. */
async function run(
  c: CommandContext,
  cmd: Exclude<ParsedCommand, { kind: "ignore" }>,
  config: RepoConfig | undefined,
  threadFindingId: string | undefined,
): Promise<CommandOutcome> {
  const { d } = c;
  const parseFailed = cmd.kind === "error" || cmd.kind === "refusal";
  const module = parseFailed ? undefined : moduleFor(cmd.kind);
  const needs = module?.needs;

  // 3. authorize: the permission floor, then the token and the config the verb needs.
  const floor: PermissionFloor = needs?.permission ?? "command";
  if (floor !== "anyone") {
    const refused = await authorize(c, config, floor);
    if (refused) return refused;
  }
  if (parseFailed) {
    await c.answer(cmd.message);
    return "answered";
  }
  let tenant: ScannerTenant | undefined;
  if (needs!.tenant) {
    tenant = await c.rt.scanner.forAccount(d.accountLogin);
    if (!tenant) {
      await c.answer(
        "diffward has no scanning-service token for this account, so nothing was changed. Ask an administrator to configure one.",
      );
      return "answered";
    }
  }
  if (needs!.config && !config) {
    await c.answer(
      "`.github/diffward.yml` is invalid, so diffward cannot tell which repository of the service this is. Fix it first.",
    );
    return "answered";
  }
  const io = commandIO(c, tenant);

  // 4. target
  let target: FindingTarget | undefined;
  if (needs!.target === "finding") {
    const found = await findTarget(c, io, tenant!, cmd, threadFindingId);
    if (!found) return "answered";
    target = c.target = found;
  }

  // 5. verb: read → plan → apply (the verb answers).
  const input: VerbInput<typeof cmd> = {
    cmd,
    form: d.form,
    sender: d.senderLogin,
    pull: c.pull,
    commentId: d.commentId,
    labelPrefix: c.rt.settings.labelPrefix,
    now: c.rt.now(),
    config,
    tenant,
    target,
    settings: {
      ...(c.rt.settings.publicUrl ? { publicUrl: c.rt.settings.publicUrl } : {}),
      guidanceFile: c.rt.settings.guidanceFile,
    },
    help: (unknown) =>
      renderHelp(d.form, {
        labelPrefix: c.rt.settings.labelPrefix,
        ...(unknown !== undefined ? { unknown } : {}),
      }),
  };
  const facts = module!.read ? await module!.read(io, input) : undefined;
  const plan: unknown = module!.plan(input, facts);
  c.planned = { plan, input };
  return module!.apply(io, plan, input);
}

/**
 * Step 4: the finding a verb acts on, named by its label or by the thread the command replies in. When the
 * label names another finding than the thread's, the label wins and the answer says so first.
 * @returns the target, or `undefined` when no finding was found (the answer says why).
 */
async function findTarget(
  c: CommandContext,
  io: CommandIO,
  tenant: ScannerTenant,
  cmd: Exclude<ParsedCommand, { kind: "ignore" }>,
  threadFindingId: string | undefined,
): Promise<FindingTarget | undefined> {
  const found = await resolveTarget(
    io,
    tenant,
    {
      ...(threadFindingId !== undefined ? { threadFindingId, threadCommentId: c.d.inReplyToId! } : {}),
      ...("ref" in cmd && cmd.ref ? { ref: cmd.ref } : {}),
    },
    c.rt.settings.labelPrefix,
  );
  if ("answer" in found) {
    await c.answer(found.answer);
    return undefined;
  }
  const target = found.target;
  if (target.threadFindingId !== undefined) {
    const notice = namedElsewhereNotice(target.detail.id, target.threadFindingId, c.rt.settings.labelPrefix);
    const answer = io.answer;
    io.answer = (body) => answer(`${notice}\n\n${body}`);
  }
  return target;
}

/**
 * The commenter's repository permission against the verb's floor (`policy/command-floor.ts`):
 * `commands.minPermission` (default `write`), or for publishing `commands.publishPermission` (default
 * `admin`; off on public repositories unless set).
 */
async function authorize(
  c: CommandContext,
  config: RepoConfig | undefined,
  permission: "command" | "publish",
): Promise<CommandOutcome | undefined> {
  const rule = commandFloor(permission, config, c.d.repoPrivate);
  if (rule.kind === "off") {
    c.log.info({ reason: rule.reason }, "command refused: publishing is off");
    await c.answer(publishOffAnswer());
    return "permission-refused";
  }
  const actual = await senderPermission(c);
  if (permissionAtLeast(actual, rule.floor)) return undefined;
  c.log.info({ actual, floor: rule.floor }, "command refused: permission below the floor");
  await c.answer(permissionRefusal(c.d.senderLogin, actual, rule.floor, rule.setting));
  return "permission-refused";
}

/** Service and GitHub failures: wait on 429, retry 5xx/network, answer definite refusals. */
async function handleFailure(c: CommandContext, cmd: ParsedCommand, error: unknown): Promise<CommandOutcome> {
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
      c.log.warn({ err: error }, "service unavailable: command given up");
      await c.answer(unavailableAnswer(what));
      return "gave-up";
    }
    throw error; // BullMQ retries with exponential backoff
  }
  throw error;
}

/** The action named in failure answers ("could not <what>"), from the verb's module. */
function describe(cmd: ParsedCommand): string {
  if (cmd.kind === "ignore" || cmd.kind === "error" || cmd.kind === "refusal")
    return `run \`${"verb" in cmd ? cmd.verb : "the command"}\``;
  return moduleFor(cmd.kind).describe(cmd);
}
