/**
 * The public face of `src/report/`: what a report posts (the plan: which findings inline, which comments
 * to update), the stored report, its extras (guidance, credits, warnings), and the pull request's current
 * verdict shared by the report, the triage recompute and settlement.
 */
export * from "./state.js";
export * from "./plan.js";
export * from "./findings.js";
export * from "./extras.js";
export * from "./verdict.js";
export * from "./details.js";
