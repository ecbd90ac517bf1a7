/**
 * The resolution verbs (`/resolve`, `/mitigate`, `/wontfix`, `/false-positive`, `/duplicate`,
 * `/in-progress`, `/reopen`): set a finding's `resolutionStatus` in the service (spec §Findings, `PATCH
 * …/findings/{findingId}/resolution`), remember the decision for later scans of the pull request, reflect
 * it on the finding's comment, review thread and (with `codeScanning.upload`) code scanning alert, and
 * recompute the check run.
 */
import { z } from "zod";
import { identityOf } from "../../domain/identity.js";
import { OPEN_RESOLUTIONS, type Verdict } from "../../domain/verdict.js";
import { attributed, who } from "../../render/command-answers.js";
import { inlineCode } from "../../render/escape.js";
import { checkStateLine, severityName, statusName } from "../../render/glossary.js";
import { checkReason, RESOLUTION_STATUSES } from "../../scanner/catalog.js";
import type { ResolutionStatus } from "../../scanner/catalog.js";
import { findingLabel } from "../../scanner/labels.js";
import type { Decision } from "../../domain/decision.js";
import { capped, commandError, finding, needsPermission, noteText, type VerbArgs } from "../verb-parts.js";
import type { RefusalCommand, ErrorCommand } from "../verb-parts.js";
import {
  answerOnly,
  appliedOr,
  defineVerb,
  expiryOf,
  targetOf,
  VERB_NEEDS,
  writeFindingOnce,
} from "../verb-module.js";
import type { CommandAudit, CommandIO, CommandOutcome, VerbInput } from "../verb-module.js";
import { isDismissal, needsApproval, type ApprovalRequest } from "../../domain/dismissal-approval.js";
import { codeOwnersAudit, type CodeOwnership } from "../../domain/code-owner-approval.js";
import { parseLocation } from "../../domain/location.js";
import { heldOwnersSentence } from "../../render/code-owner-sentences.js";
import {
  acceptanceLine,
  DEFAULT_ACCEPTANCE_RULES,
  ExpirySpec,
  expiryText,
  isAcceptance,
  resolveExpiry,
  splitExpiryClause,
} from "../../domain/acceptance.js";

/**
 * Resolution verbs and the `resolutionStatus` each sets (spec §Finding `resolutionStatus`). `/reopen` sets
 * `NOT_STARTED`. A new resolution verb is a key here plus a row in `VERB_TABLE`.
 */
export const RESOLUTION_VERBS = {
  resolve: "RESOLVED",
  mitigate: "MITIGATED",
  wontfix: "WONT_FIX",
  "false-positive": "FALSE_POSITIVE",
  duplicate: "DUPLICATE",
  "in-progress": "IN_PROGRESS",
  reopen: "NOT_STARTED",
} as const satisfies Record<string, ResolutionStatus>;
export type ResolutionVerb = keyof typeof RESOLUTION_VERBS;

/** True for the verbs that set a resolution status. */
export function isResolutionVerb(verb: string): verb is ResolutionVerb {
  return Object.prototype.hasOwnProperty.call(RESOLUTION_VERBS, verb);
}

const Status = z.enum(RESOLUTION_STATUSES);

/**
 * `PATCH …/findings/{findingId}/resolution` with `resolutionStatus: status` and at most one of `reason`
 * or `note.content` (rule 1); `extraNote` is posted separately with `POST …/notes` (rule 2: the service
 * ignores note and reason for `NOT_STARTED`/`IN_PROGRESS`). `reasonCode` is for display only: the code
 * the note states when the user gave a code and text.
 */
export const ResolutionCommand = z.object({
  kind: z.literal("resolution"),
  verb: z.enum(Object.keys(RESOLUTION_VERBS) as [ResolutionVerb, ...ResolutionVerb[]]),
  ...needsPermission,
  ...finding,
  status: Status,
  reason: z.string().optional(),
  note: noteText.optional(),
  extraNote: noteText.optional(),
  reasonCode: z.string().optional(),
  /** `/wontfix`, `/mitigate`: the expiry clause (`until <date>`, `for <N>d`), checked against the clock by the plan */
  expiry: ExpirySpec.optional(),
});
export type ResolutionCommand = z.infer<typeof ResolutionCommand>;

/**
 * Resolution text: a lone reason code of the status's catalog → `reason`; a code of another status's catalog
 * (alone, or written with `_` and followed by text) → refusal (spec §Findings, resolution rule 4); a valid
 * code followed by text → `note` "Reason: `code`. text" and `reasonCode`; any other text → `note`.
 * `NOT_STARTED`/`IN_PROGRESS` never carry `reason` or `note` (rule 2): their text is `extraNote`.
 * `/wontfix` and `/mitigate` first take an expiry clause off the end of the command line (`until <date>`,
 * `for <N>d`: `splitExpiryClause`, src/domain/acceptance.ts) into `expiry`; an unreadable one is an
 * `invalid_expiry` error stating the syntax. The clock and the repository's limits are the plan's to check.
 */
export function parseResolution(a: VerbArgs): ResolutionCommand | RefusalCommand | ErrorCommand {
  if (!isAcceptance(RESOLUTION_VERBS[a.verb as ResolutionVerb])) return parseResolutionText(a);
  const clause = splitExpiryClause(a.args);
  if (clause.kind === "none") return parseResolutionText(a);
  if (clause.kind === "invalid")
    return commandError(a.verb, "invalid_expiry", `${clause.message} Nothing was changed.`);
  const cmd = parseResolutionText({ ...a, args: clause.text });
  return cmd.kind === "resolution" ? { ...cmd, expiry: clause.spec } : cmd;
}

/**
 * The resolution text without an expiry clause (see {@link parseResolution}): the reason-versus-note rule.
 */
function parseResolutionText(a: VerbArgs): ResolutionCommand | RefusalCommand | ErrorCommand {
  const verb = a.verb as ResolutionVerb;
  const status: ResolutionStatus = RESOLUTION_VERBS[verb];
  const text = [a.args.trim(), a.rest.trim()].filter(Boolean).join("\n");
  const base: ResolutionCommand = {
    kind: "resolution",
    verb,
    requiresPermission: true,
    ...(a.ref ? { ref: a.ref } : {}),
    status,
  };
  if (!text) return base;
  const tooLong = capped(verb, text);
  if (status === "NOT_STARTED" || status === "IN_PROGRESS") return tooLong ?? { ...base, extraNote: text };

  const word = /^\S+/.exec(text)![0];
  const after = text.slice(word.length).trim();
  const code = normalizeCode(word);
  const check = code ? checkReason(status, code) : undefined;
  if (code && check?.ok) {
    if (!after) return { ...base, reason: code };
    const note = `Reason: \`${code}\`. ${after}`;
    return capped(verb, note) ?? { ...base, note, reasonCode: code };
  }
  if (code && check && !check.ok && check.belongsTo && (!after || word.includes("_"))) {
    return {
      kind: "refusal",
      verb,
      requiresPermission: true,
      ...(a.ref ? { ref: a.ref } : {}),
      status,
      reasonCode: code,
      belongsTo: check.belongsTo,
      validCodes: [...check.validCodes],
      message:
        `\`${code}\` is a reason for ${statusName(check.belongsTo)}, not for ${statusName(status)}; nothing was changed. ` +
        `Reasons for ${statusName(status)}: ${check.validCodes.map((c) => `\`${c}\``).join(", ")}.`,
    };
  }
  return tooLong ?? { ...base, note: text };
}

/** Lower-cases a typed code, strips backticks and trailing punctuation, maps `-` to `_`. */
function normalizeCode(word: string): string | undefined {
  const w = word
    .replace(/^`+|`+$/g, "")
    .replace(/[.,;:!]+$/, "")
    .replace(/^`+|`+$/g, "")
    .toLowerCase()
    .replace(/-/g, "_");
  return /^[a-z_]+$/.test(w) ? w : undefined;
}

/** What a resolution command changes, in order, and what it answers. */
export interface ResolutionPlan {
  findingId: string;
  /** the body of `PATCH …/resolution` */
  resolution: { resolutionStatus: ResolutionStatus; reason?: string; note?: { content: string } };
  /** a separate signed note (`POST …/notes`) when the resolution carries none */
  note?: string;
  /** the decision remembered for later scans of the pull request */
  decision: Decision;
  /** what happens to the finding's review thread: closing states resolve it, `/reopen` reopens it */
  thread: "resolve" | "reopen" | "leave";
  /**
   * `codeScanning.upload` is on: the finding's code scanning alert follows the decision (a closing state
   * dismisses it, `/reopen` reopens it; `src/code-scanning/alert-sync.ts`)
   */
  alert: boolean;
  /** the answer before the check's new conclusion is appended */
  summary: string;
}

/**
 * Plans a resolution by the reason-versus-note rule of the parser: a lone code is `reason`, any text is
 * `note.content` (signed); `NOT_STARTED`/`IN_PROGRESS` ignore both (rule 2), so their text goes as a note.
 * Every command leaves exactly one signed note (with the resolution, or separately). Pure.
 */
export function planResolution(input: VerbInput<ResolutionCommand>, expiresAt?: string): ResolutionPlan {
  const { cmd, sender: by, pull } = input;
  const detail = targetOf(input).detail;
  const open = OPEN_RESOLUTIONS.includes(cmd.status);
  // the expiry rides in the note in a parseable line, so it can be rebuilt from the service
  const line = expiresAt ? `\n\n${acceptanceLine(expiresAt, by)}` : "";
  const signed = !open && cmd.note ? attributed(`${cmd.note}${line}`, by, pull) : undefined;
  const reasonWord = cmd.reason ? ` (reason \`${cmd.reason}\`)` : "";
  const reason = cmd.reason ?? cmd.reasonCode;
  const text = cmd.note ?? cmd.extraNote;
  const how = cmd.reason ? ` with reason ${inlineCode(cmd.reason)}` : cmd.note ? " with your note" : "";
  const extra = cmd.extraNote
    ? " Your text was added as a note (the service ignores notes for this state)."
    : "";
  return {
    findingId: detail.id,
    resolution: {
      resolutionStatus: cmd.status,
      ...(cmd.reason && !signed ? { reason: cmd.reason } : {}),
      ...(signed ? { note: { content: signed } } : {}),
    },
    ...(signed
      ? {}
      : {
          note: attributed(
            cmd.extraNote ?? `Resolution set to ${statusName(cmd.status)}${reasonWord}.${line}`,
            by,
            pull,
          ),
        }),
    decision: {
      findingId: detail.id,
      ...identityOf(detail),
      severity: detail.severity,
      resolutionStatus: cmd.status,
      ...(reason ? { reason } : {}),
      ...(text ? { note: text } : {}),
      by,
      at: new Date(input.now).toISOString(),
      ...(expiresAt ? { expiresAt } : {}),
    },
    thread: cmd.status === "IN_PROGRESS" ? "leave" : cmd.status === "NOT_STARTED" ? "reopen" : "resolve",
    alert: input.config?.codeScanning.upload === true,
    summary:
      `${inlineCode(findingLabel(detail.id, input.labelPrefix))} is now **${statusName(cmd.status)}**${how}, ` +
      `set for ${who(by)}.${extra}${expiresAt ? ` ${untilSentence(expiresAt, by)}` : ""}`,
  };
}

/** "Accepted until **2027-03-31** by `@alice`: …" (the reply's and the approval's sentence). Pure. */
export function untilSentence(expiresAt: string, by: string): string {
  return (
    `Accepted until **${expiryText(expiresAt)}** by ${who(by)}: then diffward sets it back to ` +
    `${statusName("NOT_STARTED")} and the check counts it again, unless the decision changes before.`
  );
}

/** What the resolution verbs read before planning: the commenter's role when a dismissal may need approval. */
export interface ResolutionFacts {
  /** the commenter's repository role; read only when `triage.approval` could hold the command */
  role?: string;
  /** with `triage.approval.codeowners`, the code owners of the finding's file, read when the command is held */
  codeOwners?: CodeOwnership;
}

/**
 * A resolution command's plan: `set` sends it to the service now; `hold` keeps a dismissal that needs a
 * second person as an approval request (`triage.approval`) and sends NOTHING to the service.
 */
export type ResolutionVerbPlan =
  | { kind: "set"; set: ResolutionPlan }
  | { kind: "hold"; hold: HoldPlan }
  /** an expiry refused by the rules (past, too far, missing under `triage.requireExpiry`): nothing is changed */
  | { kind: "refuse"; answer: string };

/** A dismissal held for approval: the request to store and the answer. */
export interface HoldPlan {
  request: ApprovalRequest;
  answer: string;
}

/**
 * Whether a resolution command is sent now or held for approval (pure; rules: `needsApproval` in
 * `src/domain/dismissal-approval.ts`): held when `triage.approval` is set, the status is a dismissal (any that stops
 * the finding from blocking: `RESOLVED`, `MITIGATED`, `WONT_FIX`, `FALSE_POSITIVE`, `DUPLICATE`), the
 * finding's effective severity is at or above `minSeverity` and the commenter's role is below `approvers`.
 */
export function planResolutionCommand(
  input: VerbInput<ResolutionCommand>,
  facts: ResolutionFacts | undefined,
): ResolutionVerbPlan {
  const approval = input.config?.triage.approval;
  const detail = targetOf(input).detail;
  const { cmd } = input;
  const expiry = resolveExpiry(
    cmd.status,
    cmd.expiry,
    input.now,
    input.config?.triage ?? DEFAULT_ACCEPTANCE_RULES,
  );
  if (!expiry.ok)
    return {
      kind: "refuse",
      answer: `${inlineCode(findingLabel(detail.id, input.labelPrefix))} was not changed: ${expiry.why}.`,
    };
  const expiresAt = expiry.expiresAt;
  if (
    approval &&
    facts?.role !== undefined &&
    isDismissal(cmd.status) &&
    needsApproval(approval, { status: cmd.status, severity: detail.severity, role: facts.role })
  ) {
    const request: ApprovalRequest = {
      findingId: detail.id,
      ...identityOf(detail),
      severity: detail.severity,
      resolutionStatus: cmd.status,
      ...(cmd.reason ? { reason: cmd.reason } : {}),
      ...(cmd.note ? { note: cmd.note } : {}),
      ...(cmd.reasonCode ? { reasonCode: cmd.reasonCode } : {}),
      requestedBy: input.sender,
      requestedAt: new Date(input.now).toISOString(),
      approvers: approval.approvers,
      ...(approval.codeowners ? { codeowners: true } : {}),
      ...(approval.codeowners && facts.codeOwners ? { codeOwners: facts.codeOwners } : {}),
      ...(expiresAt ? { expiresAt } : {}),
    };
    return { kind: "hold", hold: { request, answer: heldAnswer(input, request, facts.role) } };
  }
  return { kind: "set", set: planResolution(input, expiresAt) };
}

function heldAnswer(input: VerbInput<ResolutionCommand>, r: ApprovalRequest, role: string): string {
  const label = inlineCode(findingLabel(r.findingId, input.labelPrefix));
  const reason =
    ((r.reason ?? r.reasonCode) ? ` (reason ${inlineCode((r.reason ?? r.reasonCode)!)})` : "") +
    (r.expiresAt ? ` until **${expiryText(r.expiresAt)}**` : "");
  const approve =
    input.form === "reply"
      ? `\`/approve\` in this thread (or \`/diffward approve ${findingLabel(r.findingId, input.labelPrefix)}\`)`
      : `\`/diffward approve ${findingLabel(r.findingId, input.labelPrefix)}\` (or \`/approve\` in the finding's thread)`;
  return (
    `Dismissing ${label} as **${statusName(r.resolutionStatus)}**${reason} needs a second person: ` +
    `${severityName(r.severity)} findings need approval from a user with the ${inlineCode(r.approvers)} role ` +
    `or above (\`triage.approval\` in \`.github/diffward.yml\`; ${who(input.sender)} has ${inlineCode(role)}). ` +
    `**Approval requested** from a different user with the ${inlineCode(r.approvers)} role or above: they reply ${approve}; ` +
    `\`/reject\` drops the request.${heldOwnersSentence(r.codeOwners, input.config?.triage.approval?.notify === true)} ` +
    `Nothing was changed on the scanning service and the check stays as it is.`
  );
}

/** The resolution verbs: one module for the family (each verb is a row of the table). */
export const resolutionVerb = defineVerb(ResolutionCommand, VERB_NEEDS.finding, {
  parse: parseResolution,
  describe: (cmd) => `set the resolution to ${statusName(cmd.status)}`,
  async read(io, input) {
    // The role is asked only when it can matter (a dismissal at or above minSeverity, approval on):
    // needsApproval checks all three, and with the lowest role it says whether any role could be held.
    const mayHold = needsApproval(input.config?.triage.approval, {
      status: input.cmd.status,
      severity: targetOf(input).detail.severity,
      role: "none",
    });
    if (!mayHold) return {};
    const role = await io.senderPermission();
    const held = needsApproval(input.config?.triage.approval, {
      status: input.cmd.status,
      severity: targetOf(input).detail.severity,
      role,
    });
    if (!held || !input.config?.triage.approval?.codeowners) return { role };
    const file = parseLocation(targetOf(input).detail.location)?.path;
    return { role, codeOwners: (await io.codeOwnership(file, input.sender)).ownership };
  },
  plan: planResolutionCommand,
  async apply(io, plan, input) {
    if (plan.kind === "refuse") return answerOnly(io, plan);
    if (plan.kind === "hold") return applyHold(io, plan.hold, input);
    return applySet(io, plan.set, input);
  },
  audit: { action: (verb) => (verb === "reopen" ? "reopen" : "resolve"), entry: auditResolution },
});

/**
 * The audit entry of a resolution command (pure): a dismissal held for a second person is an
 * `approval-request` (`held`), any other a `resolve` (`reopen` for `NOT_STARTED`) from the finding's
 * resolution to the command's, with the reason code or the user's text and the acceptance's end; an expiry
 * the rules refuse is a refused `resolve`.
 */
export function auditResolution(
  plan: ResolutionVerbPlan,
  input: VerbInput<ResolutionCommand>,
  outcome: CommandOutcome,
): CommandAudit {
  const from = targetOf(input).detail.resolutionStatus;
  if (plan.kind === "hold") {
    return {
      action: "approval-request",
      outcome: outcome === "approval-requested" ? "held" : "refused",
      from,
      ...requestedChange(plan.hold.request),
      ...codeOwnersAudit(plan.hold.request.codeOwners),
    };
  }
  const { cmd } = input;
  const reason = cmd.note ?? cmd.reason ?? cmd.extraNote;
  return {
    action: cmd.status === "NOT_STARTED" ? "reopen" : "resolve",
    outcome: plan.kind === "refuse" ? "refused" : appliedOr(outcome),
    from,
    to: cmd.status,
    ...(reason ? { reason } : {}),
    ...(plan.kind === "set" ? expiryOf(plan.set.decision) : {}),
  };
}

/**
 * What a two-person dismissal request asks for, as the audit trail records it: the status, the reason (the
 * requester's note, else the reason text, else the reason code) and the acceptance's end.
 */
export function requestedChange(r: ApprovalRequest): Pick<CommandAudit, "to" | "reason" | "expiresAt"> {
  const reason = r.note ?? r.reason ?? r.reasonCode;
  return { to: r.resolutionStatus, ...(reason ? { reason } : {}), ...expiryOf(r) };
}

/**
 * Stores the request, shows it on the finding's comment and answers (saying which pending request of the
 * finding it replaced, if any); the service is not called.
 */
async function applyHold(
  io: CommandIO,
  plan: HoldPlan,
  input: VerbInput<ResolutionCommand>,
): Promise<CommandOutcome> {
  const replaced = await io.approvals.store(plan.request);
  await io.refreshFindingComment(targetOf(input));
  io.log.info(
    {
      finding: plan.request.findingId,
      status: plan.request.resolutionStatus,
      severity: plan.request.severity,
    },
    "dismissal held for approval",
  );
  await io.answer(`${plan.answer}${pendingSentence("replaced", replaced)}`);
  return "approval-requested";
}

/**
 * What became of the finding's pending approval request, for the answer (pure): `replaced` by a new
 * request, or `settled` by a resolution set directly (the request is dropped). "" when there was none:
 * a pending request never goes unannounced.
 */
export function pendingSentence(what: "replaced" | "settled", r: ApprovalRequest | undefined): string {
  if (!r) return "";
  const asked = `the ${statusName(r.resolutionStatus)} dismissal ${who(r.requestedBy)} asked for`;
  return what === "replaced"
    ? ` It replaces ${asked}, which was awaiting approval.`
    : ` This settles ${asked}: that request is dropped.`;
}

/** Sets the resolution on the service and reflects it (comment, thread, alert, check). */
async function applySet(
  io: CommandIO,
  plan: ResolutionPlan,
  input: VerbInput<ResolutionCommand>,
): Promise<CommandOutcome> {
  const target = targetOf(input);
  // the service write and the decision under the pull request's lock: an expiry never lands between them
  await io.decide(plan.decision, async () => {
    await writeFindingOnce(io, input, plan.findingId, { step: "resolution", resolution: plan.resolution });
    if (plan.note) await writeFindingOnce(io, input, plan.findingId, { step: "note", note: plan.note });
  });
  // A closing resolution set by someone allowed to settles any pending request of the finding; the
  // answer names the request it dropped.
  const settled = OPEN_RESOLUTIONS.includes(plan.resolution.resolutionStatus)
    ? undefined
    : await io.approvals.drop({ id: plan.findingId, fingerprint: plan.decision.fingerprint });
  const fresh = await io.refreshFindingComment(target);
  if (plan.thread !== "leave" && target.commentId !== undefined)
    await io.setThreadResolved(target.commentId, plan.thread === "resolve");
  if (plan.alert) await io.syncCodeScanningAlert(plan.decision);
  const verdict = await io.recomputeCheck();
  io.log.info({ finding: plan.findingId, kind: "resolution", severity: fresh?.severity }, "finding triaged");
  await io.answer(`${plan.summary}${pendingSentence("settled", settled)}${checkSentence(verdict)}`);
  return "changed";
}

/**
 * " The `diffward` check is now **passing**: 3 findings: 2 open (0 blocking), 1 ruled out." after a change
 * (the glossary's {@link checkStateLine}: the same tally as the check run); "" without a report.
 */
export function checkSentence(verdict: Verdict | undefined): string {
  return verdict ? ` ${checkStateLine(verdict)}` : "";
}
