/**
 * The public face of `src/policy/`: what diffward decides before it spends or acts: the spend and safety
 * gates (drafts, forks, paths, authors, guidance edits), the launch preflight (preset, budget, audit areas,
 * monthly cap), credits read from the usage ledger, and the token's health.
 */
export * from "./gates.js";
export * from "./preflight.js";
export * from "./credits.js";
export * from "./token-health.js";
export * from "./command-floor.js";
export * from "./credit-cap.js";
