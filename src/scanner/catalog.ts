/**
 * The scanning service's closed sets: statuses, severities and the resolution catalog (which reason codes
 * each resolution status accepts: spec §Findings, `PATCH …/resolution`, its rules and reason-code table).
 */

/** Resolution states a caller may set (spec §Finding `resolutionStatus`). */
export const RESOLUTION_STATUSES = [
  "NOT_STARTED",
  "IN_PROGRESS",
  "RESOLVED",
  "MITIGATED",
  "WONT_FIX",
  "FALSE_POSITIVE",
  "DUPLICATE",
] as const;
export type ResolutionStatus = (typeof RESOLUTION_STATUSES)[number];

/** The service's own verdicts, read-only for callers (spec §Finding `triageStatus`). */
export const TRIAGE_STATUSES = [
  "PENDING",
  "NEW",
  "DUPLICATE",
  "RECURRING",
  "CONFIRMED",
  "FALSE_POSITIVE",
  "INCONCLUSIVE",
] as const;
export type TriageStatus = (typeof TRIAGE_STATUSES)[number];

/** Severity levels, most severe first (spec §Finding (list item)). */
export const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Scan states; the last three are terminal (spec §Scan status). */
export const SCAN_STATUSES = ["QUEUED", "PROCESSING", "COMPLETED", "FAILED", "CANCELLED"] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];
export const TERMINAL_SCAN_STATUSES: readonly ScanStatus[] = ["COMPLETED", "FAILED", "CANCELLED"];

/** True for `COMPLETED`, `FAILED` and `CANCELLED`. */
export function isTerminalScanStatus(status: string): boolean {
  return (TERMINAL_SCAN_STATUSES as readonly string[]).includes(status);
}

/**
 * Reason codes per resolution status, exactly as the spec's table lists them. `NOT_STARTED` and
 * `IN_PROGRESS` take no reason (spec §Findings, resolution rule 2: the service ignores them there).
 */
export const REASON_CATALOG = {
  RESOLVED: ["fixed_in_code", "fixed_upstream", "code_removed"],
  MITIGATED: ["compensating_control", "limited_exposure", "monitored"],
  FALSE_POSITIVE: [
    "not_reachable",
    "guarded_elsewhere",
    "intended_behavior",
    "misread_code",
    "bad_assumption",
  ],
  WONT_FIX: ["risk_accepted", "out_of_scope", "not_worth_fixing", "code_being_removed"],
  DUPLICATE: ["duplicate_of_finding", "same_root_cause"],
} as const satisfies Partial<Record<ResolutionStatus, readonly string[]>>;

export type ReasonStatus = keyof typeof REASON_CATALOG;

/** The reason codes valid for `status`; empty for `NOT_STARTED` and `IN_PROGRESS`. */
export function reasonCodesFor(status: ResolutionStatus): readonly string[] {
  return (REASON_CATALOG as Partial<Record<ResolutionStatus, readonly string[]>>)[status] ?? [];
}

export type ReasonCheck =
  | { ok: true }
  | {
      ok: false;
      validCodes: readonly string[];
      /** the status whose catalog holds the code, if any */ belongsTo?: ResolutionStatus;
    };

/**
 * Checks a reason code against the catalog of `status` (spec §Findings, resolution rule 4: a reason from
 * another status's catalog is refused with the valid list).
 */
export function checkReason(status: ResolutionStatus, reason: string): ReasonCheck {
  const valid = reasonCodesFor(status);
  if (valid.includes(reason)) return { ok: true };
  const belongsTo = (Object.keys(REASON_CATALOG) as ReasonStatus[]).find((s) =>
    (REASON_CATALOG[s] as readonly string[]).includes(reason),
  );
  return belongsTo ? { ok: false, validCodes: valid, belongsTo } : { ok: false, validCodes: valid };
}

export const ALL_REASON_CODES: readonly string[] = Object.values(REASON_CATALOG).flat();
