/**
 * The baseline room: a default branch's baseline scan (`baseline:` in `.github/diffward.yml`), from its start
 * (a push or the schedule) through its launch to its report and the branch's baseline kept, and its end when a
 * newer push supersedes it. Other rooms and the entry reach it through this file only.
 */
export { defaultBranchHead, processBaseline, stopBaseline, syncBaselineSchedule } from "./baseline-job.js";
export type { BaselineOutcome } from "./baseline-job.js";
export { reportBaselineScan } from "./baseline-report.js";
export { markBaselineReported } from "./baseline-writes.js";
