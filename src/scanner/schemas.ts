/**
 * zod schemas of every resource of the scanning service (spec §Resources and their fields, and each
 * endpoint's response under spec §Endpoints).
 * - Response objects are loose (`z.looseObject`): a new field never breaks us, and the spec's "not
 *   shown" parts survive in the parsed value.
 * - Fields the spec marks "required" are required; the others optional, nullable where it says "or null".
 * - Closed sets the spec enumerates are enums. Repository `readiness` stays an open string (the spec:
 *   its values "include" `analyzing` and `ready`), and so do token scopes (spec §Authentication:
 *   "scopes in use").
 */
import { z } from "zod";
import { RESOLUTION_STATUSES, SCAN_STATUSES, SEVERITIES, TRIAGE_STATUSES } from "./catalog.js";

export { ErrorBody, ErrorCode } from "./errors.js";

const DateTime = z.iso.datetime({ offset: true });
const Int = z.number().int();
const NonNegInt = Int.min(0);

/**
 * The body of a read of one resource: the resource under its name (spec §Scans `{ scan }`, §Findings
 * `{ finding }`), other fields kept.
 */
const envelope = <K extends string, S extends z.ZodType>(name: K, resource: S) =>
  z.looseObject({ [name]: resource } as Record<K, S>);

/** spec §Scan status */
export const ScanStatus = z.enum(SCAN_STATUSES);
export type ScanStatus = z.infer<typeof ScanStatus>;
/** Effective severity (spec §Finding (list item)). */
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;
/** The service's verdict (spec §Finding `triageStatus`). */
export const TriageStatus = z.enum(TRIAGE_STATUSES);
export type TriageStatus = z.infer<typeof TriageStatus>;
/** The team's decision (spec §Finding `resolutionStatus`). */
export const ResolutionStatus = z.enum(RESOLUTION_STATUSES);
export type ResolutionStatus = z.infer<typeof ResolutionStatus>;

/** spec §Progress: `percent` is weighted by each phase's budget share, 0 to 100. */
export const Progress = z.looseObject({
  phasesCompleted: NonNegInt,
  phasesTotal: NonNegInt,
  percent: NonNegInt.max(100),
});
export type Progress = z.infer<typeof Progress>;

/** spec §Scan (list item) */
export const ScanListItem = z.looseObject({
  id: z.string(),
  status: ScanStatus,
  repositoryId: z.string(),
  commitHash: z.string().nullish(),
  /** For a diff scan, the merge-base commit; null for other scans. */
  baseCommit: z.string().nullish(),
  commitMessage: z.string().nullish(),
  presetName: z.string().nullish(),
  createdAt: DateTime,
  startedAt: DateTime.nullish(),
  completedAt: DateTime.nullish(),
  progress: Progress.optional(),
});
export type ScanListItem = z.infer<typeof ScanListItem>;

/** spec §Scan (detail) adds: `findingsSummary`, on a finished scan. */
export const FindingsSummary = z.looseObject({
  total: NonNegInt,
  /** Severity name → count. Keys are left open so an unexpected severity is counted, not refused. */
  bySeverity: z.record(z.string(), NonNegInt),
});
export type FindingsSummary = z.infer<typeof FindingsSummary>;

/** spec §Scan (detail) adds. `creditBudget` is in credits. */
export const ScanDetail = ScanListItem.extend({
  branch: z.string().nullish(),
  creditBudget: Int.nullish(),
  findingsSummary: FindingsSummary.optional(),
});
export type ScanDetail = z.infer<typeof ScanDetail>;

/** spec §Scans, `GET /projects/{projectId}/scans/{scanId}` body. */
export const ScanEnvelope = envelope("scan", ScanDetail);
export type ScanEnvelope = z.infer<typeof ScanEnvelope>;

/** spec §Scan preset (scan type). `minCredits` 0 means the default floor applies. */
export const ScanPreset = z.looseObject({
  ref: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  minCredits: NonNegInt,
  modelTier: z.string(),
});
export type ScanPreset = z.infer<typeof ScanPreset>;

/** spec §Scan presets, `GET /projects/{projectId}/scan-presets` body. */
export const PresetList = z.looseObject({ presets: z.array(ScanPreset) });
export type PresetList = z.infer<typeof PresetList>;

/** spec §Repository: only `id` and `readiness` (an open string) are specified; other fields are kept. */
export const Repository = z.looseObject({ id: z.string(), readiness: z.string() });
export type Repository = z.infer<typeof Repository>;

/** spec §Audit area */
export const AuditAreaSource = z.enum(["discovered", "custom"]);
export type AuditAreaSource = z.infer<typeof AuditAreaSource>;

/** The only fields spec §Audit area names, which an area keeps when normalized. */
const AuditAreaNamed = { key: z.string(), source: AuditAreaSource };

/** An audit area as the service sends it. */
export const AuditAreaRaw = z.looseObject({
  ...AuditAreaNamed,
  name: z.string().nullish(),
  description: z.string().nullish(),
});
export type AuditAreaRaw = z.infer<typeof AuditAreaRaw>;

/**
 * An audit area, normalized: spec §Audit area leaves the names of the flag, files and lines fields
 * unshown, so they are found by shape (`envelopes.ts`) and given stable names here.
 */
export const AuditArea = z.object({
  ...AuditAreaNamed,
  name: z.string().optional(),
  description: z.string().optional(),
  /** whether the branch's latest map still names the area (the spec's unnamed boolean flag) */
  inCurrentMap: z.boolean().optional(),
  /** files, then lines, the area covers at that map; null when the map does not name it */
  files: NonNegInt.nullable().optional(),
  lines: NonNegInt.nullable().optional(),
  raw: AuditAreaRaw,
});
export type AuditArea = z.infer<typeof AuditArea>;

/**
 * spec §Repositories, `GET …/audit-areas`, normalized: areas in the service's order (map order first,
 * then areas the map no longer names), the branch the sizes were read from and whether it has a map.
 */
export const AuditAreaList = z.object({
  areas: z.array(AuditArea),
  branch: z.string().optional(),
  hasMap: z.boolean().optional(),
  raw: z.unknown(),
});
export type AuditAreaList = z.infer<typeof AuditAreaList>;

/** spec §Repositories, `POST …/audit-areas`, normalized: the created area's `key` and the body. */
export const CreatedAuditArea = z.object({ key: z.string(), raw: z.unknown() });
export type CreatedAuditArea = z.infer<typeof CreatedAuditArea>;

/** spec §Repositories, `DELETE …/audit-areas/{areaKey}` body. */
export const DeleteAuditAreaResult = z.looseObject({
  repositoryId: z.string(),
  key: z.string(),
  deleted: z.boolean(),
});
export type DeleteAuditAreaResult = z.infer<typeof DeleteAuditAreaResult>;

/** spec §Repositories, `GET …/guidance`, normalized: the stored guidance, null when none is stored. */
export const Guidance = z.object({ content: z.string().nullable(), raw: z.unknown() });
export type Guidance = z.infer<typeof Guidance>;

/** spec §Repositories, `PUT …/guidance` body. `revisionId` is null on a no-op (`unchanged: true`). */
export const GuidanceWriteResult = z.looseObject({
  repositoryId: z.string(),
  revisionId: z.string().nullable(),
  unchanged: z.boolean(),
});
export type GuidanceWriteResult = z.infer<typeof GuidanceWriteResult>;

/**
 * Longest finding text diffward keeps, per field, in characters (UTF-16 code units). The service's
 * answers are untrusted input and the spec sets no maximum on these strings: 1,000 findings with 180 KB
 * fields took the process to 2.7 GB. A longer value is cut when the answer is parsed and ends with
 * {@link truncationNote}, so everything downstream (identity, rendering, stored report state) sees the
 * capped text and says so. A GitHub comment body takes at most 65,536 characters, which bounds the
 * Markdown fields.
 */
export const FINDING_TEXT_MAX_CHARS = {
  title: 500,
  location: 1_000,
  category: 200,
  description: 20_000,
  pocReport: 20_000,
  recommendedFix: 20_000,
  /** each note's `body` */
  noteBody: 10_000,
} as const;

/** The words that end a cut finding field: how long the field was, and how much is kept. */
export function truncationNote(originalChars: number, keptChars: number): string {
  return ` … [truncated by diffward: ${originalChars} characters, the first ${keptChars} kept]`;
}

/**
 * Cuts `text` to at most `max` characters including {@link truncationNote}, never inside a surrogate
 * pair. Text that fits is returned unchanged. Pure.
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let keep = Math.max(0, max - truncationNote(text.length, max).length);
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep -= 1;
  return text.slice(0, keep) + truncationNote(text.length, keep);
}

const capped = (max: number) => z.string().transform((s) => capText(s, max));

/** spec §Finding (list item). Text fields are cut (see {@link FINDING_TEXT_MAX_CHARS}). */
export const FindingListItem = z.looseObject({
  id: z.string(),
  displayId: Int,
  title: capped(FINDING_TEXT_MAX_CHARS.title),
  location: capped(FINDING_TEXT_MAX_CHARS.location),
  /** the override if set, otherwise the service's own */
  severity: Severity,
  category: capped(FINDING_TEXT_MAX_CHARS.category),
  triageStatus: TriageStatus,
  /** for a `CONFIRMED` finding; null otherwise or when not recorded */
  confirmationEvidence: z.enum(["POC", "ANALYSIS"]).nullish(),
  resolutionStatus: ResolutionStatus,
  notesCount: NonNegInt,
});
export type FindingListItem = z.infer<typeof FindingListItem>;

/** A comment on a finding (spec §Finding (detail) adds: `notes`). */
export const Note = z.looseObject({
  id: z.string(),
  body: capped(FINDING_TEXT_MAX_CHARS.noteBody),
  createdAt: DateTime,
  author: z.looseObject({ id: z.string(), name: z.string().nullable(), email: z.string() }),
});
export type Note = z.infer<typeof Note>;

/** spec §Finding (detail) adds */
export const FindingDetail = FindingListItem.extend({
  description: capped(FINDING_TEXT_MAX_CHARS.description),
  pocReport: capped(FINDING_TEXT_MAX_CHARS.pocReport).nullish(),
  recommendedFix: capped(FINDING_TEXT_MAX_CHARS.recommendedFix).nullish(),
  scanId: z.string(),
  commitHash: z.string().nullish(),
  repo: z.looseObject({ owner: z.string(), name: z.string(), url: z.string() }).optional(),
  createdAt: DateTime,
  notes: z.array(Note),
});
export type FindingDetail = z.infer<typeof FindingDetail>;

/** spec §Findings, `GET …/findings/{findingId}` body. */
export const FindingEnvelope = envelope("finding", FindingDetail);
export type FindingEnvelope = z.infer<typeof FindingEnvelope>;

/** spec §Findings, `POST …/findings/{findingId}/notes` body. */
export const AddNoteResult = z.looseObject({ noteId: z.string(), findingId: z.string() });
export type AddNoteResult = z.infer<typeof AddNoteResult>;

/** spec §Findings, `PATCH …/severity` body: "not shown", so any JSON object is accepted and kept. */
export const SeverityResult = z.looseObject({});
export type SeverityResult = z.infer<typeof SeverityResult>;

/** spec §Findings, `PATCH …/resolution` body: "includes `resolutionStatus`". */
export const ResolutionResult = z.looseObject({ resolutionStatus: ResolutionStatus });
export type ResolutionResult = z.infer<typeof ResolutionResult>;

/** spec §Published artifact. `accessPassword` is a secret: never log it. */
export const PublishedArtifact = z.looseObject({
  artifactId: z.string(),
  publicId: z.string(),
  accessPassword: z.string().nullable(),
});
export type PublishedArtifact = z.infer<typeof PublishedArtifact>;

export const OrganizationRef = z.looseObject({ id: z.string(), slug: z.string(), name: z.string() });
export type OrganizationRef = z.infer<typeof OrganizationRef>;

/** The calling token (spec §Token). `spendLimitCredits` in credits, null for no limit. */
export const Token = z.looseObject({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  /** empty means every repository of the project */
  repositoryIds: z.array(z.string()),
  expiresAt: DateTime.nullable(),
  spendLimitCredits: Int.nullable(),
  project: z.looseObject({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    organization: OrganizationRef,
  }),
});
export type Token = z.infer<typeof Token>;

/** spec §Credit ledger event */
export const LedgerEventType = z.enum([
  "SCAN_DEDUCTION",
  "SCAN_REFUND",
  "PURCHASE",
  "PAYMENT_REFUND",
  "ADMIN_ADJUSTMENT",
]);
export type LedgerEventType = z.infer<typeof LedgerEventType>;

/** `credits` is a signed delta (negative spent, positive added). */
export const LedgerEvent = z.looseObject({
  id: z.string(),
  at: DateTime,
  type: LedgerEventType,
  credits: Int,
  scanId: z.string().nullable(),
  description: z.string(),
});
export type LedgerEvent = z.infer<typeof LedgerEvent>;

/** spec §Billing, `GET …/billing/balance` body; amounts in credits. */
export const Balance = z.looseObject({
  organization: OrganizationRef,
  balanceCredits: Int,
  availableCredits: Int,
  reservedCredits: Int,
});
export type Balance = z.infer<typeof Balance>;

/** spec §Billing, `GET …/billing/usage` body: the window and its events, newest first. */
export const Usage = z.looseObject({
  from: DateTime,
  to: DateTime,
  events: z.array(LedgerEvent),
});
export type Usage = z.infer<typeof Usage>;

/** One month of spec §Billing, `GET …/billing/summary`: `month` is `YYYY-MM` in UTC, amounts in credits. */
export const SummaryMonth = z.looseObject({
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, "expected YYYY-MM"),
  spentCredits: Int,
  purchasedCredits: Int,
});
export type SummaryMonth = z.infer<typeof SummaryMonth>;

/** spec §Billing, `GET …/billing/summary` body, newest month first. */
export const Summary = z.looseObject({
  organization: OrganizationRef,
  months: z.array(SummaryMonth),
});
export type Summary = z.infer<typeof Summary>;

/**
 * spec §Scans, `POST /projects/{projectId}/scans` 202 body; `creditBudget` is the budget used, in credits.
 */
export const LaunchResult = z.looseObject({
  scanId: z.string(),
  queued: z.boolean(),
  creditBudget: Int,
});
export type LaunchResult = z.infer<typeof LaunchResult>;

/** spec §Scans, `POST …/scans/{scanId}/cancel` body. */
export const CancelResult = z.looseObject({
  scanId: z.string(),
  status: z.literal("CANCELLED"),
  cancelledJobs: NonNegInt,
});
export type CancelResult = z.infer<typeof CancelResult>;

/** A page of spec §Scans `GET …/scans` or spec §Findings `GET …/findings`. */
export function Page<T extends z.ZodType>(item: T) {
  return z.looseObject({
    items: z.array(item),
    page: Int.min(1),
    limit: Int.min(1),
    total: NonNegInt,
  });
}
export type Page<T> = { items: T[]; page: number; limit: number; total: number; [k: string]: unknown };

export const ScanPage = Page(ScanListItem);
export type ScanPage = z.infer<typeof ScanPage>;
export const FindingPage = Page(FindingListItem);
export type FindingPage = z.infer<typeof FindingPage>;
