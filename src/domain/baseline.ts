/**
 * A pull request's findings against the last completed baseline of its base branch (pure): which open
 * findings were already open there (the same fingerprint, src/domain/identity.ts: the identity GitHub code
 * scanning matches alerts by) and which are new.
 */
import { fingerprint } from "./identity.js";
import type { ReportFinding } from "./types.js";
import { isRuledOut } from "./verdict.js";

/** What the check run says about the base branch's baseline. */
export interface BaselineComparison {
  /** the base branch */
  branch: string;
  /** the baseline's commit */
  headSha: string;
  /** open findings of the pull request already open on the base branch */
  preexisting: number;
  /** open findings of the pull request the baseline does not have */
  fresh: number;
}

/**
 * Compares the pull request's open findings (ruled out ones are left out, as everywhere) with the open
 * fingerprints of the base branch's baseline.
 */
export function compareWithBaseline(
  findings: readonly ReportFinding[],
  baseline: { branch: string; headSha: string; openFingerprints: readonly string[] },
): BaselineComparison {
  const known = new Set(baseline.openFingerprints);
  const open = findings.filter((f) => !isRuledOut(f));
  const preexisting = open.filter((f) => known.has(fingerprint(f))).length;
  return {
    branch: baseline.branch,
    headSha: baseline.headSha,
    preexisting,
    fresh: open.length - preexisting,
  };
}
