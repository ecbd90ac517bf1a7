/**
 * The public face of `src/queue/`: the BullMQ runtime (Redis connection, queues and workers, which run
 * every job of `./jobs/`), diffward's Redis state, job names and ids, and per-installation fairness.
 */
export * from "./connection.js";
export * from "./names.js";
export * from "./runtime.js";
export * from "./state.js";
export * from "./workers.js";
export * from "./fairness.js";
export * from "./write-lane.js";
