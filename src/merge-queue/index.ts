/**
 * The merge-queue room: a merge group's check run (scan, reuse or skip) and its end when the group is destroyed.
 * Other rooms and the entry reach it through this file only.
 */
export { processMergeGroup, processMergeGroupDestroyed, stopGroupScan } from "./merge-group-job.js";
export type { MergeGroupOutcome, GroupDestroyedOutcome } from "./merge-group-job.js";
