/**
 * GitHub code scanning, one room: the SARIF log built from a report (`./sarif-log.ts`), its upload
 * (`./sarif-upload.ts`), the mapping between alerts and findings (`./alert-mapping.ts`) and the sync of triage
 * both ways (`./alert-sync.ts`), and the `code-scanning-alert` job (`./alert-job.ts`). README "GitHub code
 * scanning". Other folders use it through this file only.
 */
export { TOOL_NAME } from "./sarif-log.js";
export { applyCodeScanningUpload, planCodeScanningUpload } from "./sarif-upload.js";
export { syncAlertWithResolution } from "./alert-sync.js";
export { processAlertEvent } from "./alert-job.js";
