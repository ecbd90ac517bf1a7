/**
 * The pull-request scan, one room: the `pull-request` job and its decision, the launch (which the merge
 * group's and the baseline's jobs use too), the poll, the settlement of a scan's spend, the stop and the
 * cancel of a scan. Other rooms use it through this file only.
 */
export { cancelFollowedScan } from "./cancel-scan.js";
export { planLaunched } from "./decide-launch.js";
export { enqueueLaunch } from "./enqueue-launch.js";
export { enqueueSettle, recordScanSpend } from "./settle.js";
export { findLaunchedScan, stopLaunch } from "./unknown-launch.js";
