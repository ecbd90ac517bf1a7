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
