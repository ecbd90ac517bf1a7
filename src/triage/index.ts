/**
 * The public face of `src/triage/`: finding decisions (stored per pull request, carried to later scans),
 * the check recompute after a decision, and a decision's reflection on GitHub (comment, review thread).
 */
export * from "./types.js";
export * from "./decisions.js";
export * from "./check.js";
export * from "./reflect.js";
