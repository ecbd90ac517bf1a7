import { z } from "zod";
import { STORED_IDENTITY_FIELDS } from "./identity.js";
import { STORED_RESOLUTION_FIELDS } from "./resolution.js";
import { SEVERITIES } from "../scanner/catalog.js";

/** A team decision on a finding of a pull request, remembered for later scans of the same pull request. */
export const Decision = z.object({
  /** the finding's identity, its severity when the decision was taken, the status, `reason` and `note` */
  ...STORED_RESOLUTION_FIELDS,
  /** GitHub login of the person who decided (the requester, for an approved dismissal) */
  by: z.string(),
  /** GitHub login of the second person, for a dismissal that needed approval (`triage.approval`) */
  approvedBy: z.string().optional(),
  /** ISO 8601 date-time */
  at: z.string(),
  /**
   * an acceptance's expiry (`/wontfix … until …`, `/mitigate … for <N>d`), ISO 8601 UTC: at that moment the
   * finding is set back to `NOT_STARTED` (src/triage/expiry.ts)
   */
  expiresAt: z.string().optional(),
  /** the id of the expiry's delayed job (and its entry in the installation's expiries), set when scheduled */
  expiryId: z.string().optional(),
  /**
   * on the `NOT_STARTED` decision an applied expiry records: that expiry's `expiryId`, so a retry of the
   * expiry follows it on the pull request only while this decision stands (src/triage/job/acceptance-expiry.ts)
   */
  endedExpiryId: z.string().optional(),
  /** set when the decision was carried over from an earlier finding of the same identity */
  carriedFrom: z.string().optional(),
  /** how the carried decision's finding matched the earlier one (src/domain/identity.ts `MatchedBy`) */
  carriedBy: z.enum(["id", "fingerprint", "recurring"]).optional(),
});
export type Decision = z.infer<typeof Decision>;

/**
 * A severity override set from the pull request (spec §Findings, `PATCH …/findings/{findingId}/severity`),
 * remembered so later scans of the same pull request get it too.
 */
export const SeverityDecision = z.object({
  /** `findingId`, `fingerprint`, `shape` (src/domain/identity.ts) */
  ...STORED_IDENTITY_FIELDS,
  /**
   * the severity the team looked at: the finding's effective severity before its first override from
   * this pull request (a later override keeps the first `from`)
   */
  from: z.enum(SEVERITIES),
  /** the override */
  severity: z.enum(SEVERITIES),
  /** GitHub login of the person who set it */
  by: z.string(),
  /** ISO 8601 date-time */
  at: z.string(),
  /** set when the override was carried over from an earlier finding of the same identity */
  carriedFrom: z.string().optional(),
  /** how the carried override's finding matched the earlier one (src/domain/identity.ts `MatchedBy`) */
  carriedBy: z.enum(["id", "fingerprint", "recurring"]).optional(),
});
export type SeverityDecision = z.infer<typeof SeverityDecision>;

/**
 * Every decision of one pull request (Redis `decisions:<owner/repo#n>`), newest last, one per identity:
 * resolutions in `decisions`, severity overrides in `severities` (absent in documents written before
 * overrides were kept).
 */
export const PullDecisions = z.object({
  decisions: z.array(Decision),
  severities: z.array(SeverityDecision).default([]),
});
export type PullDecisions = z.infer<typeof PullDecisions>;
