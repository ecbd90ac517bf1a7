import type { ApprovalRequest } from "../../src/domain/dismissal-approval.js";
import { identityOf } from "../../src/domain/identity.js";
import type { ReportFinding } from "../../src/domain/finding-types.js";
import type { Decision } from "../../src/domain/decision.js";

/** A finding with sensible defaults; override what the test is about. */
export function finding(over: Partial<ReportFinding> = {}): ReportFinding {
  return {
    id: "fnd_0000000000aaaa1111",
    displayId: 1,
    title: "SQL injection in getUser",
    location: "src/db/users.ts:42",
    severity: "HIGH",
    category: "injection",
    triageStatus: "CONFIRMED",
    confirmationEvidence: "POC",
    resolutionStatus: "NOT_STARTED",
    notesCount: 0,
    ...over,
  };
}

/**
 * The `n`-th of a list of distinct findings: id `fnd_` and `n` in 20 digits, title `Finding n`, at
 * `src/fn.ts:n`; open, HIGH, injection, CONFIRMED. Unlike {@link finding} it sets no optional field
 * (display id, evidence, notes count), so what a test renders holds only what it asked for.
 */
export function nthFinding(n: number, over: Partial<ReportFinding> = {}): ReportFinding {
  return {
    id: `fnd_${String(n).padStart(20, "0")}`,
    title: `Finding ${n}`,
    location: `src/f${n}.ts:${n}`,
    severity: "HIGH",
    category: "injection",
    triageStatus: "CONFIRMED",
    resolutionStatus: "NOT_STARTED",
    ...over,
  };
}

/**
 * A held two-person dismissal of `f`: `/fp … not_reachable` of a HIGH finding by `octo-writer`, approvers
 * `maintain`, requested at `requestedAt` (ISO 8601).
 */
export function approvalRequest(
  f: Pick<ReportFinding, "id" | "title" | "location" | "category">,
  requestedAt: string,
): ApprovalRequest {
  return {
    findingId: f.id,
    ...identityOf(f),
    severity: "HIGH",
    resolutionStatus: "FALSE_POSITIVE",
    reason: "not_reachable",
    requestedBy: "octo-writer",
    requestedAt,
    approvers: "maintain",
  };
}

/**
 * A stored acceptance that expires: `WONT_FIX` of finding `f_1` (HIGH) by `alice` on 2026-03-04, until
 * 2026-04-01 end of day (UTC); override what the test is about.
 */
export function acceptance(over: Partial<Decision> = {}): Decision {
  return {
    findingId: "f_1",
    fingerprint: "a".repeat(64),
    severity: "HIGH",
    resolutionStatus: "WONT_FIX",
    by: "alice",
    at: "2026-03-04T05:06:07.000Z",
    expiresAt: "2026-04-01T23:59:59.999Z",
    ...over,
  };
}
