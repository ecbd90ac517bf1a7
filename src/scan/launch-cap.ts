import type { Job } from "bullmq";
import type { Runtime } from "../runtime/runtime.js";
import type { LaunchJobData } from "../job-catalogue/index.js";

/** The cap ledger's name of a launch job's reservation: one per launch job (a retry is the same job). */
export function capHoldId(job: Pick<Job<LaunchJobData>, "id" | "data">): string {
  return `${job.data.launchKey}@${job.id ?? ""}`;
}

/**
 * Binds a launch job's `creditCap.monthly` reservation, if it made one, to the scan it became: the scan counts
 * `credits` (its budget, in credits; the reserved amount when `undefined`) until it settles
 * (`src/stores/cap-ledger.ts`).
 */
export async function bindCap(
  rt: Runtime,
  job: Pick<Job<LaunchJobData>, "id" | "data">,
  scanId: string,
  credits: number | undefined,
): Promise<void> {
  const hold = job.data.capHold;
  if (hold) await rt.stores.capLedger.bind(hold.key, capHoldId(job), scanId, credits);
}

/**
 * Gives back a launch job's `creditCap.monthly` reservation, if it made one: only once nothing was launched
 * (a definite refusal, a launch no longer wanted before its POST, or one the service's scan list shows never
 * reached it), never while a launch of unknown outcome may have created a scan.
 */
export async function releaseCap(rt: Runtime, job: Pick<Job<LaunchJobData>, "id" | "data">): Promise<void> {
  const hold = job.data.capHold;
  if (hold) await rt.stores.capLedger.release(hold.key, capHoldId(job));
}
