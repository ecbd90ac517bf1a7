import type { JobsOptions } from "bullmq";
import type { Logger } from "pino";
import type { Runtime } from "../queue/runtime.js";

/** What handlers need: only the queues (and a logger). */
export interface HandlerDeps {
  queues: Runtime["queues"];
  /** Redis for the per-installation fairness counters (`src/queue/fairness.ts`); without it jobs are plain FIFO */
  redis?: Runtime["redis"];
  log?: Logger;
}

/** Options of jobs enqueued by handlers: retried with backoff (lock contention, GitHub 5xx). */
export const EVENT_JOB_OPTIONS: JobsOptions = {
  attempts: 10,
  backoff: { type: "exponential", delay: 500, jitter: 0.5 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};
