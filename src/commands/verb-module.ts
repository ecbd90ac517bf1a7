/**
 * The shape every slash-command verb has (`./verbs/*.ts`), and the ports its `read` and `apply` steps
 * reach the world through. A verb module says:
 * - **needs**: whether it acts on one finding, its permission floor, whether it needs the account's
 *   service token and a valid `.github/diffward.yml`. The command job (`src/commands/job/command-job.ts`)
 *   checks these, in that order, before the verb runs;
 * - **parse**: its arguments, from the text after the verb (`parseCommand` finds the verb in the table);
 * - **read** (optional): what its plan depends on (the service, diffward's state, the pull request);
 * - **plan**: pure: what to change and what to answer, testable without network;
 * - **apply**: short: carries the plan out through {@link CommandIO} and the service client, and answers.
 *
 * Modules never import the queue, the handlers or Octokit: GitHub and diffward's state are reached
 * through {@link CommandIO}, which the command job builds.
 */
import type { Logger } from "pino";
import type { z } from "zod";
import type { RepoConfig } from "../config/repo-config.js";
import type { PullHead } from "../github/pulls.js";
import type { ReportFinding } from "../domain/finding-types.js";
import type { Verdict } from "../domain/verdict.js";
import type { ReportState } from "../stores/stored-report.js";
import type { Severity } from "../scanner/catalog.js";
import type { FindingDetail } from "../scanner/schemas.js";
import type { ScannerTenant } from "../tenants/index.js";
import type { Decision } from "../domain/decision.js";
import type { ApprovalRequest, ClaimResult } from "../domain/dismissal-approval.js";
import type { CommandForm } from "../domain/command-form.js";
import type { CodeOwnershipRead } from "../domain/code-owner-approval.js";
import type { ErrorCommand, RefusalCommand, VerbArgs } from "./verb-parts.js";

/** What the command job did; returned as the job's result (visible in BullMQ and in tests). */
export type CommandOutcome =
  | "duplicate"
  | "ignored"
  | "not-onboarded"
  | "installation-removed"
  | "answered"
  | "permission-refused"
  | "changed"
  | "approval-requested"
  | "rescan-enqueued"
  | "gave-up";

/**
 * The permission floor of a verb:
 * - `anyone`: open to everyone who can comment (`help`, `status`);
 * - `command`: `commands.minPermission` of `.github/diffward.yml` (default `write`);
 * - `publish`: `commands.publishPermission` (publishing makes a public artifact).
 */
export type PermissionFloor = "anyone" | "command" | "publish";

/** What a verb needs before it runs; the command job checks each, in this order, and answers when one is missing. */
export interface VerbNeeds {
  permission: PermissionFloor;
  /** the account's service token (else: "no scanning-service token for this account") */
  tenant: boolean;
  /** a valid `.github/diffward.yml` (else: "the config is invalid, fix it first") */
  config: boolean;
  /** `finding`: the command acts on one finding of this pull request (thread or label); else `none` */
  target: "finding" | "none";
}

/** The finding a command acts on: its detail, and diffward's review comment of it on this pull request. */
export interface FindingTarget {
  detail: FindingDetail;
  /** diffward's comment of the finding, when the report posted one inline */
  commentId?: number;
  /** set when the command was written in another finding's thread and named this finding by label or id */
  threadFindingId?: string;
}

/** The pull request a command was written on. */
export interface PullRef {
  owner: string;
  repo: string;
  pullNumber: number;
}

/** A pull request's head as GitHub has it now (for `rescan`): its REST head without the display fields. */
export type PullNow = Omit<PullHead, "number" | "htmlUrl" | "title" | "updatedAt">;

/** A rescan to enqueue: the head to scan and what the command asked for. */
export interface RescanRequest {
  pull: PullNow;
  /** makes the launch new and the job unique per command comment */
  nonce: string;
  requestedBy: string;
  presetRef?: string;
  /** the credit budget asked, in credits */
  creditBudget?: number;
}

/** Where a pull request's scan stands in diffward's state. */
export interface PullScan {
  headSha: string;
  scanId?: string;
  projectId?: string;
  /** the scan's terminal status as diffward read it (spec §Scan status), once it has ended */
  endedStatus?: "COMPLETED" | "FAILED" | "CANCELLED";
}

/**
 * The ports of a verb's `read` and `apply` steps: GitHub, diffward's Redis state and the queue, as the
 * command job provides them. Every method acts on the command's pull request.
 */
export interface CommandIO {
  log: Logger;
  /** posts the answer where the command was written (the thread, or the conversation) */
  answer(body: string): Promise<void>;
  /**
   * Sends one of the command's service writes once, whatever the job's retries: every service write of a
   * verb goes through it. The service records each write it gets (a second `PATCH …/resolution` or
   * `POST …/notes` is a second entry: spec §Findings), and a command job runs again from the top after a
   * busy lock, a 5xx or a 429 on a later step. `step` names the write within the command (`resolution`,
   * `note`, …); a run of the same command comment that finds it recorded skips it and returns the recorded
   * result (JSON: keep it small, never a secret). Recorded once the write succeeded, so a crash between the
   * two can repeat that one write once.
   */
  once<T>(step: string, write: () => Promise<T>): Promise<T>;
  /** the pull request's scan state (`undefined`: never scanned) */
  readPullScan(): Promise<PullScan | undefined>;
  /** the pull request's last report (`undefined`: none yet) */
  readReport(): Promise<ReportState | undefined>;
  /** the pull request's decisions, newest last */
  readDecisions(): Promise<Decision[]>;
  /**
   * Sends the command's service writes of the finding (`write`: each through {@link once}), then stores
   * `decision` (it replaces the decision of the same identity; an acceptance's expiry is scheduled, the
   * earlier one's cancelled), both under the pull request's lock: a job that changes the finding under that
   * lock (an acceptance's expiry) never lands between the two, so the service ends as the decision says.
   * The lock is waited for ~2 s, then `LockBusyError` is thrown before `write` ran: the job runs again
   * shortly, and a write a run already sent is not sent again (`once`).
   */
  decide(decision: Decision, write: () => Promise<void>): Promise<void>;
  /**
   * remembers a severity override for later scans of the pull request (`severity: null` forgets it);
   * `current` is the finding's effective severity before the command
   */
  recordSeverityOverride(entry: SeverityOverrideEntry): Promise<void>;
  /**
   * the commenter's repository role (GitHub "Get repository permissions for a user": `admin`, `maintain`,
   * `write`, `triage`, `read` or `none`), read once per command
   */
  senderPermission(): Promise<string>;
  /**
   * The code owners of `file` in the CODEOWNERS of the pull request's base branch as it is now (read at each
   * call, cached per base commit) and whether `login` is one (a team owner through an `active` membership,
   * cached 60 s). A CODEOWNERS that cannot be used, a file without owners, or team membership the app may not
   * read gives `ownership.fallback` (why the role rule applies alone) instead of throwing.
   */
  codeOwnership(file: string | undefined, login: string): Promise<CodeOwnershipRead>;
  /** the pull request's pending two-person dismissal requests (rules in `domain/dismissal-approval.ts`) */
  approvals: ApprovalPorts;
  /** re-renders diffward's comment of the finding with its current state and decision */
  refreshFindingComment(target: FindingTarget): Promise<ReportFinding | undefined>;
  /** resolves (`true`) or reopens (`false`) the review thread of a comment; never fatal */
  setThreadResolved(commentId: number, resolved: boolean): Promise<void>;
  /**
   * dismisses or reopens the finding's GitHub code scanning alert to match a decision; never fatal (the
   * resolution is set either way)
   */
  syncCodeScanningAlert(decision: Decision): Promise<void>;
  /** re-renders the check run from the service's current findings (`undefined`: no report yet) */
  recomputeCheck(): Promise<Verdict | undefined>;
  /** the pull request as GitHub has it now */
  readPull(): Promise<PullNow>;
  /** enqueues one rescan of the pull request (one per command comment) */
  enqueueRescan(request: RescanRequest): Promise<void>;
  /** records that `login` cancels `scanId` with `/diffward cancel` (its check run then says who did) */
  recordCancel(scanId: string, login: string): Promise<void>;
}

/**
 * The store of two-person dismissal requests of the command's pull request (`src/triage/approvals.ts`),
 * each change atomic under the pull request's lock. A finding is named by id, else fingerprint.
 */
export interface ApprovalPorts {
  /** every pending request, newest last */
  list(): Promise<ApprovalRequest[]>;
  /** stores a request, replacing an earlier one of the same finding; returns the one replaced, if any */
  store(request: ApprovalRequest): Promise<ApprovalRequest | undefined>;
  /** claims the finding's request for this command comment (two approvals never both apply one request) */
  claim(finding: FindingIdentity): Promise<ClaimResult>;
  /** releases this command comment's claim (the approval failed before it was applied) */
  release(finding: FindingIdentity): Promise<void>;
  /** removes the finding's request; returns it, or `undefined` when there was none */
  drop(finding: FindingIdentity): Promise<ApprovalRequest | undefined>;
}

/** A finding's identity across pushes: its id, else its fingerprint (`src/domain/identity.ts`). */
export interface FindingIdentity {
  id: string;
  fingerprint: string;
}

/** A severity override to remember (see `recordSeverityOverride` in `src/triage/decisions.ts`). */
export interface SeverityOverrideEntry {
  findingId: string;
  fingerprint: string;
  /** line-independent shape key (src/domain/identity.ts `shapeKey`) */
  shape?: string;
  current: Severity;
  severity: Severity | null;
  by: string;
  /** ISO 8601 date-time */
  at: string;
}

/** Everything a verb's steps know about the command. */
export interface VerbInput<C> {
  cmd: C;
  form: CommandForm;
  /** the GitHub login diffward acts for */
  sender: string;
  pull: PullRef;
  /** the command comment's id (makes a rescan unique per comment) */
  commentId: number;
  labelPrefix: string;
  /** ms since epoch */
  now: number;
  /** the repository's config; present when `needs.config` (else when valid) */
  config: RepoConfig | undefined;
  /** the account's service access; present when `needs.tenant` */
  tenant: ScannerTenant | undefined;
  /** the finding acted on; present when `needs.target` is `finding` */
  target: FindingTarget | undefined;
  /** the service's public site (`SCANNER_PUBLIC_URL`) and the committed guidance file's path */
  settings: { publicUrl?: string; guidanceFile: string };
  /** the help text for this form (from the verb table), with the unrecognised word first when given */
  help(unknown?: string): string;
}

/**
 * One verb or verb family. `C` is the parsed command, `F` what `read` gathers, `P` the plan.
 * Register it with one row per verb in `VERB_TABLE` (`src/commands/table.ts`).
 */
export interface VerbModule<C extends { kind: string }, F = undefined, P = unknown> {
  /** the `kind` of the commands this module parses and runs */
  kind: C["kind"];
  /** the parsed command's schema: `ParsedCommand` is the union of every module's */
  schema: z.ZodType<C>;
  needs: VerbNeeds;
  /** parses the arguments after the verb; total (bad arguments are an error command, never a throw) */
  parse(args: VerbArgs): C | ErrorCommand | RefusalCommand;
  /** "could not <what>": the action named in failure answers */
  describe(cmd: C): string;
  /** reads what the plan needs; absent when the input is enough */
  read?(io: CommandIO, input: VerbInput<C>): Promise<F>;
  /** pure: what to change and what to answer */
  plan(input: VerbInput<C>, facts: F): P;
  /** carries the plan out and answers; throws service and GitHub errors for the job to sort */
  apply(io: CommandIO, plan: P, input: VerbInput<C>): Promise<CommandOutcome>;
  /** triage verbs only: what the audit trail records of the command ({@link VerbAuditing}) */
  audit?: VerbAuditing<C, P>;
}

/**
 * What the audit trail records of a triage command (`AuditEntry` of `src/stores/audit-log.ts`, less what the
 * command job knows: time, installation, repository, pull request, finding, source). `actor` defaults to the
 * commenter; the job adds a refusal's answer (why nothing was changed) as the entry's `detail`.
 */
export interface CommandAudit {
  action: "resolve" | "reopen" | "severity" | "note" | "approval-request" | "approve" | "reject";
  outcome: "applied" | "refused" | "held" | "skipped";
  /** who asked for the decision: for an approval or rejection, who asked for the dismissal */
  actor?: string;
  /** the second person who approved or rejected a held dismissal */
  approver?: string;
  /** the state before (a resolution status, or a severity for `severity`) */
  from?: string;
  /** the state asked for */
  to?: string;
  /** the reason code or the user's text */
  reason?: string;
  /** ISO 8601 date-time an acceptance ends */
  expiresAt?: string;
  /** the code owners of the finding's file consulted for a two-person dismissal (`triage.approval.codeowners`) */
  codeOwners?: string[];
  /** why the role rule applied alone, when the code owners did not limit who approves */
  codeOwnersNote?: string;
}

/** How a triage verb is audited: its action (also for a refusal before any plan) and the entry of its plan. */
export interface VerbAuditing<C, P> {
  /** the action of a verb of the module, from the canonical verb alone (a command that did not parse has no more) */
  action(verb: string): CommandAudit["action"];
  /** pure: the entry of a planned command once `apply` (or the job's failure handling) returned `outcome` */
  entry(plan: P, input: VerbInput<C>, outcome: CommandOutcome): CommandAudit;
}

/** `applied` for a command that changed something, else `refused` (nothing was changed: the answer says why). */
export function appliedOr(outcome: CommandOutcome): "applied" | "refused" {
  return outcome === "changed" ? "applied" : "refused";
}

/** The ISO 8601 end of an acceptance a command or request carries (`expiresAt`), when it has one. */
export function expiryOf(x: object): { expiresAt?: string } {
  const v = (x as { expiresAt?: unknown }).expiresAt;
  return typeof v === "string" ? { expiresAt: v } : {};
}

/** A verb module of any command type (what the table holds). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyVerbModule = VerbModule<any, any, any>;

/** The command type a module runs. */
export type CommandOf<M> = M extends VerbModule<infer C, infer _F, infer _P> ? C : never;

/** A verb's command schema: a zod object whose `kind` is one literal (the module's {@link VerbModule.kind}). */
export type VerbSchema<C extends { kind: string }> = z.ZodType<C> & {
  shape: { kind: { value: C["kind"] } };
};

/** What a verb module says beyond its schema and needs: its steps (`describe` defaults to "run `<verb>`"). */
export type VerbSteps<C extends { kind: string }, F, P> = Omit<
  VerbModule<C, F, P>,
  "kind" | "schema" | "needs" | "describe" | "audit"
> &
  Partial<Pick<VerbModule<C, F, P>, "describe">> & { audit?: VerbAuditing<C, NoInfer<P>> };

/**
 * Declares a verb module: its command schema (the module's `kind` is the schema's `kind` literal), what it
 * needs ({@link VERB_NEEDS}) and its steps, with the types inferred. A module without `describe` is named
 * "run `<verb>`" in failure answers.
 */
export function defineVerb<C extends { kind: string; verb: string }, F = undefined, P = unknown>(
  schema: VerbSchema<C>,
  needs: VerbNeeds,
  steps: VerbSteps<NoInfer<C>, F, P>,
): VerbModule<C, F, P> {
  return {
    kind: schema.shape.kind.value,
    schema,
    needs,
    describe: (cmd) => `run \`${cmd.verb}\``,
    ...steps,
  };
}

/**
 * What each kind of verb needs ({@link VerbNeeds}), by what it acts on:
 * - `open`: anyone may ask, about diffward's own state (`help`, `status`);
 * - `account`: the command floor and the account's service token (`credits`, `cancel`);
 * - `repository`: also a valid `.github/diffward.yml` (the service repository and its settings: `guidance`,
 *   `areas`, `rescan`);
 * - `finding`: one finding of the pull request, with the token (`note`, `severity`, the resolution verbs);
 * - `approval`: a finding and the config's `triage.approval` (`approve`, `reject`);
 * - `publishFinding`, `publishScan`: the publish floor (`commands.publishPermission`) and the token.
 */
export const VERB_NEEDS = {
  open: needs("anyone", { tenant: false, config: false }),
  account: needs("command", { tenant: true, config: false }),
  repository: needs("command", { tenant: true, config: true }),
  finding: needs("command", { tenant: true, config: false, target: "finding" }),
  approval: needs("command", { tenant: true, config: true, target: "finding" }),
  publishFinding: needs("publish", { tenant: true, config: false, target: "finding" }),
  publishScan: needs("publish", { tenant: true, config: false }),
} as const satisfies Record<string, VerbNeeds>;

function needs(
  permission: PermissionFloor,
  what: Pick<VerbNeeds, "tenant" | "config"> & Partial<Pick<VerbNeeds, "target">>,
): VerbNeeds {
  return { permission, tenant: what.tenant, config: what.config, target: what.target ?? "none" };
}

/**
 * The auditing of a verb with one action whose entry is `applied` or `refused` by its outcome
 * ({@link appliedOr}), with the fields `fields` takes from the command (the state asked for, the user's text).
 */
export function auditAs<C, P>(
  action: CommandAudit["action"],
  fields: (input: VerbInput<C>) => Omit<CommandAudit, "action" | "outcome">,
): VerbAuditing<C, P> {
  return {
    action: () => action,
    entry: (_plan, input, outcome) => ({ action, outcome: appliedOr(outcome), ...fields(input) }),
  };
}

/** An answer-only plan: post `answer`, change nothing. */
export interface AnswerPlan {
  answer: string;
}

/** Where the pull request's scan stands and its last report: what `status` and `cancel` plan from. */
export interface ScanAndReport {
  scan: PullScan | undefined;
  report: ReportState | undefined;
}

/** The `read` of a verb that plans from {@link ScanAndReport}: both read through the ports at once. */
export async function readScanAndReport(io: CommandIO): Promise<ScanAndReport> {
  const [scan, report] = await Promise.all([io.readPullScan(), io.readReport()]);
  return { scan, report };
}

/** The `apply` of an answer-only plan. */
export async function answerOnly(io: CommandIO, plan: AnswerPlan): Promise<CommandOutcome> {
  await io.answer(plan.answer);
  return "answered";
}

/** The tenant of a verb whose `needs.tenant` is true (the job checked it); a missing one is a bug. */
export function tenantOf(input: VerbInput<unknown>): ScannerTenant {
  if (!input.tenant) throw new Error("verb needs the account's service token: the pipeline did not give one");
  return input.tenant;
}

/**
 * Sends one write to the finding in the scanning service once whatever the job's retries
 * ({@link CommandIO.once}, its step named after it): a note (spec §Findings, `POST …/notes`), a severity
 * override (`PATCH …/severity`) or a resolution (`PATCH …/resolution`), with the verb's tenant.
 */
export async function writeFindingOnce(
  io: CommandIO,
  input: VerbInput<unknown>,
  findingId: string,
  write:
    | { step: "note"; note: string }
    | { step: "severity"; severity: Parameters<ScannerTenant["client"]["setSeverity"]>[2] }
    | { step: "resolution"; resolution: Parameters<ScannerTenant["client"]["setResolution"]>[2] },
): Promise<void> {
  const { client, projectId } = tenantOf(input);
  await io.once(write.step, async () => {
    if (write.step === "note") await client.addNote(projectId, findingId, write.note);
    else if (write.step === "severity") await client.setSeverity(projectId, findingId, write.severity);
    else await client.setResolution(projectId, findingId, write.resolution);
  });
}

/** The target of a verb whose `needs.target` is `finding` (the job resolved it); a missing one is a bug. */
export function targetOf(input: VerbInput<unknown>): FindingTarget {
  if (!input.target) throw new Error("verb needs a finding: the pipeline did not resolve one");
  return input.target;
}

/** The config of a verb whose `needs.config` is true (the job checked it); a missing one is a bug. */
export function configOf(input: VerbInput<unknown>): RepoConfig {
  if (!input.config) throw new Error("verb needs a valid config: the pipeline did not give one");
  return input.config;
}
