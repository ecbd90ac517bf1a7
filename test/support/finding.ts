import type { ReportFinding } from "../../src/domain/types.js";

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
