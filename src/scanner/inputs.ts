/**
 * zod schemas of what callers hand to {@link ScannerClient}: checked before any request is sent, so a
 * bad value costs no request (and no credits). Objects are strict: an unknown key (a typo such as
 * `commitSha`) is refused rather than silently dropped. Limits come from spec §Limits and each endpoint's
 * body table.
 */
import { z } from "zod";
import { ResolutionStatus, Severity } from "./schemas.js";

// spec §Limits
/** `guidance` length, in characters */
export const MAX_GUIDANCE_CHARS = 100_000;
/** largest `limit` of the scans and findings lists */
export const MAX_PAGE_LIMIT = 100;
/** largest `limit` of the usage endpoint */
export const MAX_USAGE_LIMIT = 1000;

/** A commit id: 7 to 40 hex characters (spec §Limits: `commitHash`). */
export const CommitHash = z.string().regex(/^[0-9a-fA-F]{7,40}$/, "expected 7 to 40 hex characters");
export type CommitHash = z.infer<typeof CommitHash>;

export const GuidanceText = z
  .string()
  .max(MAX_GUIDANCE_CHARS, `expected at most ${MAX_GUIDANCE_CHARS.toLocaleString("en-US")} characters`);

const NonEmpty = z.string().min(1, "expected a non-empty string");

/**
 * Options of `launchScan` (spec §Scans, `POST /projects/{projectId}/scans`). `creditBudget` is in credits.
 * `guidance` has three states kept distinct in the JSON body: omitted (`undefined`) → the repository's
 * stored guidance applies; a string → replaces it for this scan; `null` (or "") → no stored layer.
 */
export const LaunchScanOptions = z.strictObject({
  repositoryId: NonEmpty,
  creditBudget: z.number().int("expected an integer").min(1, "expected at least 1 credit").optional(),
  presetRef: NonEmpty.optional(),
  branch: NonEmpty.nullable().optional(),
  commitHash: CommitHash.nullable().optional(),
  commitMessage: z.string().nullable().optional(),
  baseCommit: NonEmpty.nullable().optional(),
  auditAreaKeys: z.array(NonEmpty).optional(),
  guidance: GuidanceText.nullable().optional(),
});
export type LaunchScanOptions = z.input<typeof LaunchScanOptions>;

/** A count from 1 up: a `page`, `limit` or `months` query parameter. */
const CountFromOne = z.number().int("expected an integer").min(1, "expected at least 1");

/** A `limit` query parameter: a whole number from 1 to `max` (spec §Limits). */
function limitUpTo(max: number) {
  return CountFromOne.max(max, `expected at most ${max}`);
}

/** Paging of the scans and findings lists: `page` ≥ 1, `limit` 1 to 100 (spec §Limits). */
export const PageOptions = z.strictObject({
  page: CountFromOne.optional(),
  limit: limitUpTo(MAX_PAGE_LIMIT).optional(),
});
export type PageOptions = z.input<typeof PageOptions>;

/** `listFindings` options: paging plus `scanId` (only findings of that scan). */
export const FindingListOptions = PageOptions.extend({ scanId: NonEmpty.optional() });
export type FindingListOptions = z.input<typeof FindingListOptions>;

/** `listAuditAreas` options: `branch` whose map supplies sizes (default: the default branch). */
export const AuditAreaListOptions = z.strictObject({ branch: NonEmpty.optional() });
export type AuditAreaListOptions = z.input<typeof AuditAreaListOptions>;

/** `createAuditArea` body (spec §Repositories, `POST …/audit-areas`). */
export const CreateAuditAreaInput = z.strictObject({ name: NonEmpty, description: z.string() });
export type CreateAuditAreaInput = z.input<typeof CreateAuditAreaInput>;

/**
 * `putGuidance` body (spec §Repositories, `PUT …/guidance`). `content: null` clears the guidance.
 * `expectedContent` omitted → last writer wins; a string or `null` (meaning "currently cleared") →
 * compare-and-set, 409 `conflict` on mismatch. Omitted and `null` are sent differently.
 */
export const PutGuidanceInput = z.strictObject({
  content: GuidanceText.nullable(),
  expectedContent: GuidanceText.nullable().optional(),
});
export type PutGuidanceInput = z.input<typeof PutGuidanceInput>;

/** `publishScan` body: `withPassword` asks for a generated access password. */
export const PublishScanInput = z.strictObject({ withPassword: z.boolean() });
export type PublishScanInput = z.input<typeof PublishScanInput>;

/** `publishFinding` body: optional `noteId` to pin as the published note, and `withPassword`. */
export const PublishFindingInput = z.strictObject({ noteId: NonEmpty.optional(), withPassword: z.boolean() });
export type PublishFindingInput = z.input<typeof PublishFindingInput>;

/** Markdown, non-empty. */
export const NoteContent = NonEmpty;

/** `setSeverity` value: a severity, or `null` to clear the override. */
export const SeverityOverride = Severity.nullable();
export type SeverityOverride = z.input<typeof SeverityOverride>;

/**
 * `setResolution` body (spec §Findings, `PATCH …/resolution`): `note` is either `{content}` (new comment) or
 * `{existingNoteId}`; `reason` a catalog code. The client does not check `reason` against the catalog: the
 * service ignores it for `NOT_STARTED`/`IN_PROGRESS` (resolution rule 2) and answers 400 with the valid list
 * otherwise (rule 4); `checkReason` in `catalog.ts` is there for callers who want to check first.
 */
export const SetResolutionInput = z.strictObject({
  resolutionStatus: ResolutionStatus,
  note: z
    .union([z.strictObject({ content: NonEmpty }), z.strictObject({ existingNoteId: NonEmpty })])
    .optional(),
  reason: NonEmpty.optional(),
});
export type SetResolutionInput = z.input<typeof SetResolutionInput>;

/** A date-time given as a `Date` or an RFC 3339 string; sent as an ISO string. */
const DateTimeInput = z.union([
  z.date().refine((d) => !Number.isNaN(d.getTime()), "invalid date"),
  z.iso.datetime({ offset: true }),
]);

/** `getUsage` query (spec §Billing, `GET …/billing/usage`): window `from`/`to`, `limit` 1 to 1000. */
export const UsageOptions = z.strictObject({
  from: DateTimeInput.optional(),
  to: DateTimeInput.optional(),
  limit: limitUpTo(MAX_USAGE_LIMIT).optional(),
});
export type UsageOptions = z.input<typeof UsageOptions>;

/** `getSummary` query: `months` ≥ 1 (the service's default is not shown). */
export const SummaryOptions = z.strictObject({
  months: CountFromOne.optional(),
});
export type SummaryOptions = z.input<typeof SummaryOptions>;
