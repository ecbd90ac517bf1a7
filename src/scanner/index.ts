export * from "./catalog.js";
export * from "./labels.js";
export * from "./errors.js";
export * from "./schemas.js";
// The zod schemas share their names with catalog.ts types (same types); the schema exports win.
export { ResolutionStatus, ScanStatus, Severity, TriageStatus } from "./schemas.js";
export * from "./inputs.js";
export {
  normalizeAuditArea,
  normalizeAuditAreaList,
  normalizeCreatedAuditArea,
  normalizeGuidance,
  normalizeRepositories,
  guidanceRevision,
  type GuidanceRevision,
  type Normalized,
} from "./envelopes.js";
export { ScannerClient } from "./client.js";
export {
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  DEFAULT_MAX_ITEMS,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
  type ResponseInfo,
  type ScannerClientOptions,
} from "./transport.js";
export { type GetScanResult } from "./scan-endpoints.js";
export {
  checkBaseUrl,
  resolveScannerBaseUrl,
  SCANNER_ENVS,
  type ScannerEnv,
  type ScannerEnvVars,
} from "./config.js";
