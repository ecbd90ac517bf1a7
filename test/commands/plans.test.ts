/**
 * The verb modules' plans, without network: what each verb would change and answer, given the parsed
 * command, its target and what it read. Also the verb table as the single source of parsing, dispatch
 * and help.
 */
import { identityOf } from "../../src/domain/identity.js";
import { describe, expect, it } from "vitest";
import {
  FINDING_VERBS,
  PULL_REQUEST_VERBS,
  VERB_TABLE,
  chooseFinding,
  moduleFor,
  parseCommand,
  renderHelp,
  type VerbInput,
} from "../../src/commands/index.js";
import { planResolution, type ResolutionCommand } from "../../src/commands/verbs/resolution.js";
import { planResolutionCommand } from "../../src/commands/verbs/resolution.js";
import { planApproval, type ApprovalCommand } from "../../src/commands/verbs/approval.js";
import type { ApprovalRequest } from "../../src/domain/approval.js";
import { planSeverity, type SeverityCommand } from "../../src/commands/verbs/severity.js";
import { planNote, type NoteCommand } from "../../src/commands/verbs/note.js";
import {
  planPublish,
  planPublishScan,
  type PublishCommand,
  type PublishScanCommand,
} from "../../src/commands/verbs/publish.js";
import { ScannerApiError } from "../../src/scanner/errors.js";
import {
  areasRefusal,
  planAreasAdd,
  planAreasRemove,
  type AreasAddCommand,
  type AreasRemoveCommand,
} from "../../src/commands/verbs/areas.js";
import {
  planCancel,
  planRescan,
  type CancelCommand,
  type RescanCommand,
} from "../../src/commands/verbs/scan.js";
import {
  planGuidance,
  planStatus,
  type GuidanceCommand,
  type StatusCommand,
} from "../../src/commands/verbs/info.js";
import { parseRepoConfig, RepoConfig } from "../../src/config/repo-config.js";
import { commandFloor } from "../../src/policy/command-floor.js";
import type { ReportState } from "../../src/report/state.js";
import type { FindingDetail } from "../../src/scanner/schemas.js";

const DETAIL = {
  id: "f_abcdef0101234567",
  displayId: 7,
  title: "SQL injection in user lookup",
  location: "src/db.ts:12",
  severity: "HIGH",
  category: "injection",
  triageStatus: "CONFIRMED",
  confirmationEvidence: "POC",
  resolutionStatus: "NOT_STARTED",
  notesCount: 0,
  description: "d",
  scanId: "scan_1",
  createdAt: "2026-01-01T00:00:00Z",
  notes: [],
} as FindingDetail;
const NOW = Date.parse("2026-03-04T05:06:07Z");
const PULL = { owner: "octo", repo: "app", pullNumber: 9 };

function config(extra: Record<string, unknown> = {}): RepoConfig {
  const r = parseRepoConfig({ repositoryId: "repo_1", ...extra });
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.config;
}

const report = {
  scanId: "scan_done",
  headSha: "1234567abc",
  findings: [],
  config: config(),
} as unknown as ReportState;

function input<C>(cmd: C, over: Partial<VerbInput<C>> = {}): VerbInput<C> {
  return {
    cmd,
    form: "conversation",
    sender: "octo-writer",
    pull: PULL,
    commentId: 4242,
    labelPrefix: "SC",
    now: NOW,
    config: undefined,
    tenant: undefined,
    target: { detail: DETAIL, commentId: 77 },
    settings: { guidanceFile: "SCANNER.md" },
    help: (unknown) => `help${unknown ? ` ${unknown}` : ""}`,
    ...over,
  };
}

function parsed<K extends string>(body: string, kind: K) {
  const cmd = parseCommand(body, "conversation");
  expect(cmd.kind).toBe(kind);
  return cmd as Extract<typeof cmd, { kind: K }>;
}

describe("acceptances with an expiry", () => {
  const wontfix = (body: string) =>
    parsed(`/diffward wontfix SC-01234567 ${body}`, "resolution") as ResolutionCommand;

  it("the expiry rides in the decision, the note's parseable line and the answer", () => {
    const plan = planResolutionCommand(input(wontfix("risk_accepted until 2026-04-01")), {});
    expect(plan.kind).toBe("set");
    if (plan.kind !== "set") return;
    expect(plan.set.resolution).toEqual({ resolutionStatus: "WONT_FIX", reason: "risk_accepted" });
    expect(plan.set.note).toContain("Accepted until 2026-04-01T23:59:59.999Z by @octo-writer (diffward).");
    expect(plan.set.decision.expiresAt).toBe("2026-04-01T23:59:59.999Z");
    expect(plan.set.summary).toContain("Accepted until **2026-04-01** by `@octo-writer`");
    const noted = planResolutionCommand(input(wontfix("vendor patch pending for 10d")), {});
    if (noted.kind !== "set") throw new Error(noted.kind);
    expect(noted.set.resolution.note?.content).toContain(
      "vendor patch pending\n\nAccepted until 2026-03-14T05:06:07.000Z",
    );
  });

  it("a past date and one beyond maxAcceptanceDays are refused with the rule; nothing is planned", () => {
    const past = planResolutionCommand(input(wontfix("risk_accepted until 2026-03-03")), {});
    expect(past).toMatchObject({ kind: "refuse" });
    if (past.kind === "refuse") expect(past.answer).toContain("in the past");
    const far = planResolutionCommand(
      input(wontfix("for 31d"), { config: config({ triage: { maxAcceptanceDays: 30 } }) }),
      {},
    );
    expect(far).toMatchObject({ kind: "refuse" });
    if (far.kind === "refuse")
      expect(far.answer).toContain("more than 30 days ahead (`triage.maxAcceptanceDays`)");
  });

  it("requireExpiry refuses an acceptance without one, and only for the listed statuses", () => {
    const strict = config({ triage: { requireExpiry: ["WONT_FIX"] } });
    const plain = planResolutionCommand(input(wontfix("risk_accepted"), { config: strict }), {});
    expect(plain).toMatchObject({ kind: "refuse" });
    if (plain.kind === "refuse") expect(plain.answer).toContain("`triage.requireExpiry`");
    const mitigate = parsed("/diffward mitigate SC-01234567 monitored", "resolution") as ResolutionCommand;
    expect(planResolutionCommand(input(mitigate, { config: strict }), {}).kind).toBe("set");
    expect(planResolutionCommand(input(wontfix("risk_accepted for 5d"), { config: strict }), {}).kind).toBe(
      "set",
    );
  });

  it("a held acceptance keeps its expiry, and the approval carries it to the decision and the note", () => {
    const on = config({ triage: { approval: { minSeverity: "high", approvers: "maintain" } } });
    const held = planResolutionCommand(input(wontfix("risk_accepted until 2026-04-01"), { config: on }), {
      role: "write",
    });
    if (held.kind !== "hold") throw new Error(held.kind);
    expect(held.hold.request.expiresAt).toBe("2026-04-01T23:59:59.999Z");
    expect(held.hold.answer).toContain("until **2026-04-01**");
    const approve = parsed("/diffward approve SC-01234567", "approval") as ApprovalCommand;
    const plan = planApproval(input(approve, { sender: "octo-maint", config: on }), {
      role: "maintain",
      request: held.hold.request,
    });
    if (plan.kind !== "approve") throw new Error(plan.kind);
    expect(plan.decision.expiresAt).toBe("2026-04-01T23:59:59.999Z");
    expect(plan.note).toContain("Accepted until 2026-04-01T23:59:59.999Z by @octo-writer (diffward).");
    expect(plan.summary).toContain("Accepted until **2026-04-01**");
    const late = planApproval(
      input(approve, { sender: "octo-maint", config: on, now: Date.parse("2026-04-02T00:00:00Z") }),
      { role: "maintain", request: held.hold.request },
    );
    expect(late.kind).toBe("drop");
  });
});

describe("resolution plan", () => {
  it("a lone reason code is the reason; one signed note; the thread is resolved; the decision is remembered", () => {
    const cmd = parsed("/diffward wontfix SC-01234567 risk_accepted", "resolution") as ResolutionCommand;
    const plan = planResolution(input(cmd));
    expect(plan.resolution).toEqual({ resolutionStatus: "WONT_FIX", reason: "risk_accepted" });
    expect(plan.note).toBe(
      "Resolution set to Won't fix (reason `risk_accepted`).\n\n— GitHub user @octo-writer via diffward (octo/app#9)",
    );
    expect(plan.thread).toBe("resolve");
    expect(plan.decision).toEqual({
      findingId: DETAIL.id,
      ...identityOf(DETAIL),
      severity: "HIGH",
      resolutionStatus: "WONT_FIX",
      reason: "risk_accepted",
      by: "octo-writer",
      at: "2026-03-04T05:06:07.000Z",
    });
    expect(plan.summary).toBe(
      "`SC-01234567` is now **Won't fix** with reason `risk_accepted`, set for `@octo-writer`.",
    );
  });

  it("text goes with the resolution as a signed note, and no separate note is added", () => {
    const cmd = parsed("/diffward fp SC-01234567 the input is a constant", "resolution") as ResolutionCommand;
    const plan = planResolution(input(cmd));
    expect(plan.resolution).toEqual({
      resolutionStatus: "FALSE_POSITIVE",
      note: { content: "the input is a constant\n\n— GitHub user @octo-writer via diffward (octo/app#9)" },
    });
    expect(plan.note).toBeUndefined();
    expect(plan.decision.note).toBe("the input is a constant");
  });

  it("/reopen reopens the thread and sends its text as a separate note (the service ignores it, rule 2)", () => {
    const cmd = parsed("/diffward reopen SC-01234567 not fixed after all", "resolution") as ResolutionCommand;
    const plan = planResolution(input(cmd));
    expect(plan.resolution).toEqual({ resolutionStatus: "NOT_STARTED" });
    expect(plan.note).toContain("not fixed after all");
    expect(plan.thread).toBe("reopen");
    expect(plan.summary).toContain("Your text was added as a note");
  });

  it("the code scanning alert follows only when codeScanning.upload is on", () => {
    const cmd = parsed("/diffward fp SC-01234567", "resolution") as ResolutionCommand;
    expect(planResolution(input(cmd)).alert).toBe(false);
    const on = RepoConfig.parse({ repositoryId: "r", codeScanning: { upload: true } });
    expect(planResolution(input(cmd, { config: on })).alert).toBe(true);
  });

  it("/in-progress leaves the thread as it is", () => {
    const cmd = parsed("/diffward in-progress SC-01234567", "resolution") as ResolutionCommand;
    expect(planResolution(input(cmd)).thread).toBe("leave");
  });
});

describe("two-person dismissal plans (triage.approval)", () => {
  const approvalOn = () => config({ triage: { approval: { minSeverity: "high", approvers: "maintain" } } });
  const request: ApprovalRequest = {
    findingId: DETAIL.id,
    ...identityOf(DETAIL),
    severity: "HIGH",
    resolutionStatus: "FALSE_POSITIVE",
    reason: "not_reachable",
    requestedBy: "octo-writer",
    requestedAt: "2026-03-04T05:00:00.000Z",
    approvers: "maintain",
  };

  it("a writer's dismissal of a HIGH finding is held: nothing to send, the answer names the role", () => {
    const cmd = parsed("/diffward fp SC-01234567 not_reachable", "resolution") as ResolutionCommand;
    const plan = planResolutionCommand(input(cmd, { config: approvalOn() }), { role: "write" });
    expect(plan.kind).toBe("hold");
    if (plan.kind !== "hold") return;
    expect(plan.hold.request).toMatchObject({
      findingId: DETAIL.id,
      resolutionStatus: "FALSE_POSITIVE",
      reason: "not_reachable",
      requestedBy: "octo-writer",
      approvers: "maintain",
      severity: "HIGH",
    });
    expect(plan.hold.answer).toContain("**Approval requested**");
    expect(plan.hold.answer).toContain("`maintain` role or above");
    expect(plan.hold.answer).not.toContain("is now");
  });

  it("sent at once: approval off, an approver, an open state, or a severity below minSeverity", () => {
    const fp = parsed("/diffward fp SC-01234567", "resolution") as ResolutionCommand;
    expect(planResolutionCommand(input(fp), { role: "write" }).kind).toBe("set");
    expect(planResolutionCommand(input(fp, { config: approvalOn() }), { role: "maintain" }).kind).toBe("set");
    for (const verb of ["in-progress", "reopen"]) {
      const open = parsed(`/diffward ${verb} SC-01234567`, "resolution") as ResolutionCommand;
      expect(planResolutionCommand(input(open, { config: approvalOn() }), { role: "write" }).kind).toBe(
        "set",
      );
    }
    // /resolve stops the finding from blocking as surely as /fp: a writer's is held
    const resolve = parsed("/diffward resolve SC-01234567", "resolution") as ResolutionCommand;
    expect(planResolutionCommand(input(resolve, { config: approvalOn() }), { role: "write" }).kind).toBe(
      "hold",
    );
    const low = { ...DETAIL, severity: "MEDIUM" } as FindingDetail;
    expect(
      planResolutionCommand(input(fp, { config: approvalOn(), target: { detail: low } }), { role: "write" })
        .kind,
    ).toBe("set");
  });

  it("/approve by a maintainer: one resolution with the requested reason, a note naming both people", () => {
    const cmd = parsed("/diffward approve SC-01234567", "approval") as ApprovalCommand;
    const plan = planApproval(input(cmd, { sender: "octo-maint", config: approvalOn() }), {
      role: "maintain",
      request,
    });
    expect(plan.kind).toBe("approve");
    if (plan.kind !== "approve") return;
    expect(plan.resolution).toEqual({ resolutionStatus: "FALSE_POSITIVE", reason: "not_reachable" });
    expect(plan.note).toBe(
      "False positive (reason `not_reachable`): dismissal requested by GitHub user @octo-writer and approved by GitHub user @octo-maint via diffward (octo/app#9).",
    );
    expect(plan.decision).toMatchObject({
      by: "octo-writer",
      approvedBy: "octo-maint",
      reason: "not_reachable",
    });
  });

  it("/approve refusals: the requester, a role below approvers, no request; a severity raise drops it", () => {
    const cmd = parsed("/diffward approve SC-01234567", "approval") as ApprovalCommand;
    const self = planApproval(input(cmd, { config: approvalOn() }), { role: "admin", request });
    expect(self).toMatchObject({ kind: "answer", answer: expect.stringContaining("cannot approve it too") });
    const low = planApproval(input(cmd, { sender: "x", config: approvalOn() }), { role: "write", request });
    expect(low).toMatchObject({
      kind: "answer",
      answer: expect.stringContaining("needs the `maintain` role"),
    });
    const none = planApproval(input(cmd, { sender: "x" }), { role: "admin" });
    expect(none).toMatchObject({ kind: "answer", answer: expect.stringContaining("nothing to approve") });
    const raised = { ...DETAIL, severity: "CRITICAL" } as FindingDetail;
    const rose = planApproval(input(cmd, { sender: "x", target: { detail: raised } }), {
      role: "admin",
      request,
    });
    expect(rose).toMatchObject({ kind: "drop", answer: expect.stringContaining("no longer holds") });
  });

  it("/reject: the requester or an approver drops the request; another writer is refused", () => {
    const cmd = parsed("/diffward reject SC-01234567", "approval") as ApprovalCommand;
    expect(planApproval(input(cmd), { role: "write", request }).kind).toBe("drop");
    expect(planApproval(input(cmd, { sender: "m" }), { role: "maintain", request }).kind).toBe("drop");
    expect(planApproval(input(cmd, { sender: "w2" }), { role: "write", request })).toMatchObject({
      kind: "answer",
      answer: expect.stringContaining("who asked"),
    });
  });
});

describe("severity, note and publish plans", () => {
  it("severity: the level, a signed note naming the change, the answer", () => {
    const cmd = parsed("/diffward severity SC-01234567 low", "severity") as SeverityCommand;
    const plan = planSeverity(input(cmd));
    expect(plan).toEqual({
      findingId: DETAIL.id,
      severity: "LOW",
      remember: {
        findingId: DETAIL.id,
        ...identityOf(DETAIL),
        current: DETAIL.severity,
        severity: "LOW",
        by: "octo-writer",
        at: expect.any(String),
      },
      note: "Severity of `SC-01234567` set to Low.\n\n— GitHub user @octo-writer via diffward (octo/app#9)",
      summary: "Severity of `SC-01234567` set to **Low**.",
    });
    const reset = planSeverity(
      input(parsed("/diffward severity SC-01234567 reset", "severity") as SeverityCommand),
    );
    expect(reset.severity).toBeNull();
    expect(reset.summary).toBe("Severity override of `SC-01234567` cleared.");
  });

  it("note: signed content and the answer", () => {
    const plan = planNote(input(parsed("/diffward note SC-01234567 see #12", "note") as NoteCommand));
    expect(plan.note).toBe("see #12\n\n— GitHub user @octo-writer via diffward (octo/app#9)");
    expect(plan.answer).toContain("Added your note to `SC-01234567`");
  });

  it("publish: the target finding, without a password", () => {
    const plan = planPublish(input(parsed("/diffward publish SC-01234567", "publish") as PublishCommand));
    expect(plan).toEqual({ findingId: DETAIL.id, label: "SC-01234567", withPassword: false });
  });
});

describe("rescan and cancel plans", () => {
  const open = {
    state: "open",
    draft: false,
    headSha: "abcdef1234567",
    headRef: "f",
    baseRef: "main",
    authorLogin: "a",
  };

  it("a closed pull request is not scanned again", () => {
    const cmd = parsed("/diffward rescan", "rescan") as RescanCommand;
    const plan = planRescan(input(cmd, { config: config() }), { ...open, state: "closed" });
    expect(plan.enqueue).toBeUndefined();
    expect(plan.answer).toBe("This pull request is closed, so diffward does not scan it again.");
  });

  it("an open one: one rescan keyed by the command comment, with the preset and budget asked", () => {
    const cmd = parsed("/diffward rescan preset=deep budget=40", "rescan") as RescanCommand;
    const plan = planRescan(input(cmd, { config: config() }), open);
    expect(plan.enqueue).toEqual({
      pull: open,
      nonce: "cmd-4242",
      requestedBy: "octo-writer",
      presetRef: "deep",
      creditBudget: 40,
    });
    expect(plan.answer).toContain("up to **40 credits** will be reserved at launch");
    expect(plan.answer).toContain("with preset `deep`");
  });

  it("without budget= the repository's creditBudget is what is reserved", () => {
    const cmd = parsed("/diffward rescan", "rescan") as RescanCommand;
    const plan = planRescan(input(cmd, { config: config({ creditBudget: 25 }) }), open);
    expect(plan.enqueue?.creditBudget).toBe(25); // sent with the request, so a preset= override runs with it
    expect(plan.answer).toContain("up to **25 credits**");
  });

  it("a budget= above the repository's creditBudget is refused with a clear answer; at or below it passes", () => {
    const over = parsed("/diffward rescan preset=deep budget=26", "rescan") as RescanCommand;
    const refused = planRescan(input(over, { config: config({ creditBudget: 25 }) }), open);
    expect(refused.enqueue).toBeUndefined();
    expect(refused.answer).toContain("`budget=26` is above this repository's `creditBudget` of 25 credits");
    expect(refused.answer).toContain("nothing was launched");
    const within = parsed("/diffward rescan budget=25", "rescan") as RescanCommand;
    expect(
      planRescan(input(within, { config: config({ creditBudget: 25 }) }), open).enqueue?.creditBudget,
    ).toBe(25);
  });

  it("cancel: nothing running, or the running scan already reported, answers only", () => {
    const cmd = parsed("/diffward cancel", "cancel") as CancelCommand;
    expect(planCancel(input(cmd), { scan: undefined, report: undefined })).toEqual({
      answer: "No scan of this pull request is running, so there is nothing to cancel.",
    });
    expect(
      planCancel(input(cmd), { scan: { headSha: "x", scanId: "scan_done", projectId: "p" }, report }),
    ).toHaveProperty("answer");
    expect(
      planCancel(input(cmd), { scan: { headSha: "x", scanId: "scan_2", projectId: "p" }, report }),
    ).toEqual({
      cancel: { projectId: "p", scanId: "scan_2" },
      by: "octo-writer",
    });
  });

  it("cancel: a scan diffward read as ended (its report still to come) is not cancelled", () => {
    const cmd = parsed("/diffward cancel", "cancel") as CancelCommand;
    for (const endedStatus of ["COMPLETED", "FAILED", "CANCELLED"] as const) {
      const scan = { headSha: "x", scanId: "scan_2", projectId: "p", endedStatus };
      expect(planCancel(input(cmd), { scan, report })).toEqual({
        answer: "Scan `scan_2` has already finished, so there is nothing to cancel.",
      });
    }
  });
});

describe("read-only plans", () => {
  it("status: never scanned; a scan in progress; the last report's verdict", () => {
    const cmd = parsed("/diffward status", "status") as StatusCommand;
    expect(planStatus(input(cmd), { scan: undefined, report: undefined }).answer).toBe(
      "diffward has not scanned this pull request yet.",
    );
    const answer = planStatus(input(cmd), { scan: { headSha: "abcdef99", scanId: "scan_2" }, report }).answer;
    expect(answer).toContain("- head: `abcdef9`");
    expect(answer).toContain("- scan `scan_2` is in progress");
    expect(answer).toContain(
      "- last report: scan `scan_done` of `1234567`, 0 findings: 0 open (0 blocking), 0 ruled out: **passing**",
    );
  });

  it("guidance: the layers that apply, the stored size and latest revision, the committed file", () => {
    const cmd = parsed("/diffward guidance", "guidance") as GuidanceCommand;
    const stored = planGuidance(input(cmd), {
      repositoryId: "repo_1",
      storedChars: 1234,
      revision: { revisionId: "rev_abc", updatedAt: "2026-03-01T10:00:00Z" },
      file: { path: "SCANNER.md", present: true, sizeChars: 56 },
      headSha: "1234567abcdef",
    }).answer;
    expect(stored).toContain(
      "1. **Committed file** `SCANNER.md`: **applies**: present at `1234567`, 56 characters",
    );
    expect(stored).toContain(
      "2. **Stored guidance** of repository `repo_1`: **applies**: 1,234 characters, latest revision `rev_abc` (2026-03-01)",
    );
    expect(stored).toContain("3. **Per-scan guidance**: none");
    const none = planGuidance(input(cmd), { repositoryId: "repo_1", storedChars: 0, revision: {} }).answer;
    expect(none).toContain("none stored, so this layer adds nothing");
    expect(none).toContain("no scan of this pull request has been reported yet");
  });
});

describe("publish scan and audit area plans", () => {
  const tenant = (scopes: string[]) =>
    ({ projectId: "prj_1", token: { scopes }, client: {} }) as unknown as VerbInput<unknown>["tenant"];

  it("publish scan: the last reported scan, never with a password; nothing without a report", () => {
    const cmd = parsed("/diffward publish scan", "publish-scan") as PublishScanCommand;
    expect(planPublishScan(input(cmd), { scanId: "scan_9", headSha: "abcdef1234" })).toEqual({
      kind: "publish",
      scanId: "scan_9",
      headSha: "abcdef1234",
      withPassword: false,
    });
    expect(planPublishScan(input(cmd), undefined)).toMatchObject({ kind: "answer" });
    // "publish" followed by a finding label is still the finding verb
    expect(parseCommand("/diffward publish SC-01234567", "conversation").kind).toBe("publish");
  });

  it("areas add: name before the colon, description after; refused without guidance:write", () => {
    const cmd = parsed("/diffward areas add Billing: invoices, refunds", "areas-add") as AreasAddCommand;
    expect(cmd).toMatchObject({ name: "Billing", description: "invoices, refunds" });
    const on = { config: config(), tenant: tenant(["read", "guidance:write"]) };
    expect(planAreasAdd(input(cmd, on))).toEqual({
      kind: "add",
      repositoryId: "repo_1",
      name: "Billing",
      description: "invoices, refunds",
    });
    const off = planAreasAdd(input(cmd, { config: config(), tenant: tenant(["read"]) }));
    expect(off).toMatchObject({ kind: "answer", answer: expect.stringContaining("`guidance:write` scope") });
    expect(parseCommand("/diffward areas add Billing", "conversation")).toMatchObject({
      kind: "error",
      code: "missing_argument",
    });
  });

  it("areas writes: a 403 names the missing scope, a discovered area's 409 is explained, a 5xx is left to the job", () => {
    const err = (status: number, code: string) =>
      new ScannerApiError({ status, code: code as never, message: "m", endpoint: "DELETE /x" });
    const remove = { kind: "remove", repositoryId: "repo_1", key: "legacy-admin" } as const;
    expect(areasRefusal(err(403, "forbidden"), remove)).toContain("does not have the `guidance:write` scope");
    expect(areasRefusal(err(409, "conflict"), remove)).toContain("was **discovered**");
    expect(areasRefusal(err(404, "not_found"), remove)).toContain("has no audit area `legacy-admin`");
    expect(areasRefusal(err(503, "internal"), remove)).toBeUndefined();
    expect(areasRefusal(new Error("network"), remove)).toBeUndefined();
  });

  it("areas remove: one key; refused without guidance:write", () => {
    const cmd = parsed("/diffward areas remove billing", "areas-remove") as AreasRemoveCommand;
    expect(planAreasRemove(input(cmd, { config: config(), tenant: tenant(["guidance:write"]) }))).toEqual({
      kind: "remove",
      repositoryId: "repo_1",
      key: "billing",
    });
    expect(planAreasRemove(input(cmd, { config: config(), tenant: tenant([]) }))).toMatchObject({
      kind: "answer",
    });
    expect(parseCommand("/diffward areas remove a b", "conversation").kind).toBe("error");
  });
});

describe("target choice", () => {
  it("inside a finding thread the thread's finding; in the conversation the named one; else none", () => {
    expect(chooseFinding({ threadFindingId: "f_a", threadCommentId: 5 })).toEqual({
      kind: "thread",
      findingId: "f_a",
      commentId: 5,
    });
    const ref = { kind: "label", short: "01234567", prefix: "SC" } as const;
    expect(chooseFinding({ ref })).toEqual({ kind: "ref", ref });
    expect(chooseFinding({})).toEqual({ kind: "missing" });
  });

  it("a label or id named inside another finding's thread wins over the thread (issue 10, item 3)", () => {
    const ref = { kind: "label", short: "89abcdef", prefix: "SC" } as const;
    expect(chooseFinding({ threadFindingId: "f_a", threadCommentId: 5, ref })).toEqual({ kind: "ref", ref });
  });
});

describe("who may run a command (policy/command-floor.ts)", () => {
  it("changing commands follow commands.minPermission", () => {
    expect(commandFloor("command", undefined, true)).toEqual({
      kind: "floor",
      floor: "write",
      setting: "commands.minPermission",
    });
    expect(commandFloor("command", config({ commands: { minPermission: "triage" } }), false)).toMatchObject({
      floor: "triage",
    });
  });

  it("publishing: admin by default on private repositories, off on public ones unless set, never below minPermission", () => {
    expect(commandFloor("publish", config(), true)).toEqual({
      kind: "floor",
      floor: "admin",
      setting: "commands.publishPermission",
    });
    expect(commandFloor("publish", config(), false)).toEqual({
      kind: "off",
      reason: "publish-off-on-public-repository",
    });
    expect(commandFloor("publish", undefined, false)).toMatchObject({ kind: "off" });
    expect(commandFloor("publish", config({ commands: { publishPermission: "write" } }), false)).toEqual({
      kind: "floor",
      floor: "write",
      setting: "commands.publishPermission",
    });
    expect(
      commandFloor(
        "publish",
        config({ commands: { minPermission: "maintain", publishPermission: "write" } }),
        true,
      ),
    ).toEqual({ kind: "floor", floor: "maintain", setting: "commands.minPermission" });
  });
});

describe("the verb table drives parsing, dispatch and help", () => {
  it("every row parses in the conversation form to a command its module runs", () => {
    for (const row of VERB_TABLE) {
      const ref = row.scope === "finding" ? " SC-01234567" : "";
      const arg =
        row.verb === "severity"
          ? " low"
          : row.verb === "note"
            ? " text"
            : row.verb === "areas add"
              ? " Billing: invoices and refunds"
              : row.verb === "areas remove"
                ? " billing"
                : "";
      const cmd = parseCommand(`/diffward ${row.verb}${ref}${arg}`, "conversation");
      expect(cmd.kind, row.verb).toBe(row.module.kind);
      expect(moduleFor(cmd.kind)).toBe(row.module);
    }
  });

  it("help lists every verb of the table in table order, pull-request verbs in the conversation only", () => {
    const conversation = renderHelp("conversation");
    const positions = VERB_TABLE.map((r) => conversation.indexOf(`- \`/diffward ${r.verb}`));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const reply = renderHelp("reply");
    for (const v of FINDING_VERBS) expect(reply).toContain(`- \`/${v}`);
    for (const v of PULL_REQUEST_VERBS) expect(reply).not.toContain(`- \`/${v}`);
  });

  it("each module states its needs: finding verbs need a target and the service; help and status are open", () => {
    for (const row of VERB_TABLE) {
      const needs = row.module.needs;
      expect(needs.target === "finding", row.verb).toBe(row.scope === "finding");
      if (row.verb === "help" || row.verb === "status") expect(needs.permission).toBe("anyone");
      else if (row.verb === "publish" || row.verb === "publish scan")
        expect(needs.permission).toBe("publish");
      else expect(needs.permission, row.verb).toBe("command");
    }
  });
});
