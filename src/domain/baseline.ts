/**
 * A pull request's findings against the last completed baseline of its base branch (pure): which open
 * findings were already open there (the same fingerprint, src/domain/identity.ts: the identity GitHub code
 * scanning matches alerts by) and which are new.
 */
import { z } from "zod";
import { fingerprint } from "./identity.js";
import type { ReportFinding } from "./finding-types.js";
import { isRuledOut } from "./verdict.js";

/** What started a baseline: a push to the default branch, or its `baseline.schedule`. */
export const BaselineTrigger = z.enum(["push", "schedule"]);
export type BaselineTrigger = z.infer<typeof BaselineTrigger>;

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
  /**
   * ids of the pull request's findings (any status, so a finding reopened later still reads right) whose
   * fingerprint is open on the baseline: what `failOn: {only: new}` leaves out (src/domain/verdict.ts)
   */
  preexistingIds: string[];
}

/**
 * Compares the pull request's findings with the open fingerprints of the base branch's baseline: the
 * counts are of open findings (ruled out ones are left out, as everywhere), the ids of every finding.
 */
export function compareWithBaseline(
  findings: readonly ReportFinding[],
  baseline: { branch: string; headSha: string; openFingerprints: readonly string[] },
): BaselineComparison {
  const known = new Set(baseline.openFingerprints);
  const preexistingIds = findings.filter((f) => known.has(fingerprint(f))).map((f) => f.id);
  return {
    branch: baseline.branch,
    headSha: baseline.headSha,
    ...recount(findings, preexistingIds),
    preexistingIds,
  };
}

/**
 * The counts of a comparison for the findings as they are now (a recompute after a triage command): open
 * findings among `preexistingIds`, and the other open ones.
 */
export function recount(
  findings: readonly Pick<ReportFinding, "id" | "triageStatus" | "resolutionStatus">[],
  preexistingIds: readonly string[],
): { preexisting: number; fresh: number } {
  const ids = new Set(preexistingIds);
  const open = findings.filter((f) => !isRuledOut(f));
  const preexisting = open.filter((f) => ids.has(f.id)).length;
  return { preexisting, fresh: open.length - preexisting };
}
