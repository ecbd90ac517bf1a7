/**
 * The public face of `src/ops/`: running diffward: service reachability for `/healthz`, Prometheus metrics,
 * the reconciliation of in-flight scans at start, and Octokit's logging and retry defaults.
 */
export * from "./health.js";
export * from "./metrics.js";
export * from "./octokit.js";
export * from "./reconcile.js";
