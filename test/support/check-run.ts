/** Rendering a completed scan's check run in tests, with the settings most tests share. */
import type { ReportFinding } from "../../src/domain/finding-types.js";
import type { CheckRunOutput } from "../../src/github/check-runs.js";
import { renderCheckRunOutput } from "../../src/render/check-run.js";

/**
 * The check run output of a completed scan `scanId` with `disclosure: full`, `failOn: high`, label prefix
 * `SC` and a review comment on every finding.
 */
export function fullCheckRun(findings: readonly ReportFinding[], scanId = "scan_1"): CheckRunOutput {
  return renderCheckRunOutput({
    scan: { id: scanId, status: "COMPLETED" },
    findings: [...findings],
    failOn: "high",
    disclosure: "full",
    labelPrefix: "SC",
    inlineIds: findings.map((f) => f.id),
  });
}
