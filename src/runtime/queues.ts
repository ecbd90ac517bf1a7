import type { ConnectionOptions } from "bullmq";
import { DEFAULT_QUEUE_PREFIX } from "./connection.js";
import { InstallationQueue } from "./installation-jobs.js";
import { QUEUE_NAMES } from "./names.js";
import { queueTelemetry } from "./trace-context.js";
import type { Runtime } from "./runtime.js";

/** Connection and key prefix of diffward's queues; the prefix defaults to {@link DEFAULT_QUEUE_PREFIX}. */
export interface QueueOptions {
  connection: ConnectionOptions;
  /** BullMQ key prefix; tests use their own. A cluster needs a hash tag in it (`{name}`). */
  prefix?: string;
}

/**
 * Opens the four queues ({@link QUEUE_NAMES}), each recording the jobs it adds by installation
 * ({@link InstallationQueue}), so the organization's page counts one installation's jobs.
 */
export function createQueues(opts: QueueOptions): Runtime["queues"] {
  // with tracing on, each added job carries its producer's trace context (src/runtime/trace-context.ts)
  const common = {
    connection: opts.connection,
    prefix: opts.prefix ?? DEFAULT_QUEUE_PREFIX,
    ...queueTelemetry(),
  };
  return {
    events: new InstallationQueue(QUEUE_NAMES.events, common),
    launch: new InstallationQueue(QUEUE_NAMES.launch, common),
    scans: new InstallationQueue(QUEUE_NAMES.scans, common),
    reports: new InstallationQueue(QUEUE_NAMES.reports, common),
  };
}
