/**
 * A default-branch baseline's report, remembered: the open findings' fingerprints kept as the branch's
 * baseline (`baseline-report:<owner>/<repo>`, which pull request and merge group reports compare with), and
 * the baseline followed now marked reported (`bl:<owner>/<repo>^baseline`).
 */
import { fingerprint } from "../domain/identity.js";
import type { ReportFinding } from "../domain/finding-types.js";
import { isRuledOut } from "../domain/verdict.js";
import type { PollJobData } from "../job-catalogue/index.js";
import { baselineKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";

/**
 * Keeps a completed baseline scan as the branch's baseline: its commit, scan and the fingerprints of its
 * findings not ruled out (`isRuledOut`), then marks it reported ({@link markBaselineReported}).
 */
export async function saveBaselineReport(
  rt: Runtime,
  d: PollJobData,
  branch: string,
  findings: readonly ReportFinding[],
): Promise<void> {
  await rt.stores.baselines.setReport(d.owner, d.repo, {
    branch,
    headSha: d.headSha,
    scanId: d.scanId,
    reportedAt: rt.now(),
    openFingerprints: [...new Set(findings.filter((f) => !isRuledOut(f)).map((f) => fingerprint(f)))],
  });
  await markBaselineReported(rt, d);
}

/** Marks the baseline followed now reported (completed or ended), when it is still this scan's. */
export async function markBaselineReported(rt: Runtime, d: PollJobData): Promise<void> {
  const key = baselineKey(d.owner, d.repo);
  const b = await rt.stores.baselines.get(key);
  if (b && b.headSha === d.headSha && (b.scanId === undefined || b.scanId === d.scanId))
    await rt.stores.baselines.set(key, { ...b, scanId: d.scanId, reported: true });
}
