/**
 * GitHub code scanning (issue 14): findings uploaded as SARIF after each report, and triage kept in step
 * both ways (alert dismissals set the finding's resolution; triage commands dismiss or reopen the alert).
 */
import type { ExtraProcessors } from "../queue/workers.js";
import { CODE_SCANNING_ALERT_JOB, processAlertEvent } from "./alert-job.js";

export * from "./sarif.js";
export * from "./mapping.js";
export * from "./upload.js";
export * from "./sync.js";
export {
  AlertJobData,
  CODE_SCANNING_ALERT_JOB,
  processAlertEvent,
  type AlertJobOutcome,
} from "./alert-job.js";

/** The job kinds code scanning adds to the workers (`boot`): the `code-scanning-alert` job. */
export const CODE_SCANNING_PROCESSORS: ExtraProcessors = {
  [CODE_SCANNING_ALERT_JOB]: (rt, job) => processAlertEvent(rt, job),
};
