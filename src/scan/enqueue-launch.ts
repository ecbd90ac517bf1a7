import { addJob, type LaunchJobData } from "../job-catalogue/index.js";
import type { Runtime } from "../runtime/runtime.js";

/**
 * Enqueues a planned launch on `checkRunId` (job `launch`, queue `diffward-launch`, fair per installation):
 * `jobId` is the launch key's, so a second add of the same launch is ignored (BullMQ "Job Ids"), and
 * `delayMs` is the debounce window (none for an explicit request).
 */
export async function enqueueLaunch(
  rt: Runtime,
  launch: { data: Omit<LaunchJobData, "checkRunId">; jobId: string; delayMs?: number },
  checkRunId: number,
): Promise<void> {
  await addJob(
    rt,
    "launch",
    { ...launch.data, checkRunId },
    { jobId: launch.jobId, delay: launch.delayMs ?? 0, fair: true },
  );
}
