/**
 * zod schemas of everything that enters the sandbox: request bodies and query strings (spec §Endpoints),
 * scenario files (see README "Scenario files") and fault-injection settings.
 */
import { z } from "zod";
import { RESOLUTION_STATUSES, SEVERITIES, TRIAGE_STATUSES } from "../../src/scanner/catalog.js";

/** Maximum guidance length, in characters (spec §Limits). */
export const GUIDANCE_MAX_CHARS = 100_000;

/** Scopes in use (spec §Authentication rule 3). */
export const SCOPES = ["read", "scans:launch", "findings:write", "guidance:write", "publish"] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

/** Body of `POST /projects/{projectId}/scans` (spec §Scans). `baseCommit` is checked by launch rule 6. */
export const LaunchScanBody = z.object({
  repositoryId: z.string().min(1),
  creditBudget: z.number().int().min(1).optional(),
  presetRef: z.string().min(1).optional(),
  branch: z.string().min(1).nullable().optional(),
  commitHash: z
    .string()
    .regex(/^[0-9a-fA-F]{7,40}$/, "commitHash must be 7 to 40 hex characters")
    .nullable()
    .optional(),
  commitMessage: z.string().nullable().optional(),
  baseCommit: z.string().nullable().optional(),
  auditAreaKeys: z.array(z.string().min(1)).optional(),
  guidance: z
    .string()
    .max(GUIDANCE_MAX_CHARS, `guidance is limited to ${GUIDANCE_MAX_CHARS} characters`)
    .nullable()
    .optional(),
});
export type LaunchScanBody = z.infer<typeof LaunchScanBody>;

/** Body of `PUT …/guidance`; `expectedContent` present (even null) turns on compare-and-set. */
export const PutGuidanceBody = z.object({
  content: z
    .string()
    .max(GUIDANCE_MAX_CHARS, `content is limited to ${GUIDANCE_MAX_CHARS} characters`)
    .nullable(),
  expectedContent: z.string().nullable().optional(),
});
export type PutGuidanceBody = z.infer<typeof PutGuidanceBody>;

/** Body of `POST …/audit-areas`. */
export const CreateAuditAreaBody = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000),
});
export type CreateAuditAreaBody = z.infer<typeof CreateAuditAreaBody>;

/** Body of `POST …/findings/{findingId}/notes`. */
export const CreateNoteBody = z.object({ content: z.string().min(1) });
export type CreateNoteBody = z.infer<typeof CreateNoteBody>;

/** Body of `PATCH …/severity`; null clears the override. */
export const SeverityBody = z.object({ severity: Severity.nullable() });
export type SeverityBody = z.infer<typeof SeverityBody>;

/** Body of `PATCH …/resolution` (spec §Findings, resolution rules 1–4). */
export const ResolutionBody = z.object({
  resolutionStatus: z.enum(RESOLUTION_STATUSES),
  note: z
    .union([z.object({ content: z.string().min(1) }), z.object({ existingNoteId: z.string().min(1) })])
    .optional(),
  reason: z.string().min(1).optional(),
});
export type ResolutionBody = z.infer<typeof ResolutionBody>;

/** Body of `POST …/scans/{scanId}/publish`. */
export const PublishScanBody = z.object({ withPassword: z.boolean().optional() });
export type PublishScanBody = z.infer<typeof PublishScanBody>;

/** Body of `POST …/findings/{findingId}/publish`. */
export const PublishFindingBody = z.object({
  noteId: z.string().min(1).optional(),
  withPassword: z.boolean().optional(),
});
export type PublishFindingBody = z.infer<typeof PublishFindingBody>;

/** `page`/`limit` query of the scan and finding lists (spec §Limits). */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export type PageQuery = z.infer<typeof PageQuery>;

/** Query of `GET …/billing/usage`: ISO date-times and `limit` 1–1000. */
export const UsageQuery = z.object({
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
});
export type UsageQuery = z.infer<typeof UsageQuery>;

/** Query of `GET …/billing/summary`; `months` defaults to 12 (the spec does not show the default). */
export const SummaryQuery = z.object({ months: z.coerce.number().int().min(1).max(120).default(12) });
export type SummaryQuery = z.infer<typeof SummaryQuery>;

/** One finding of a scenario file (see README "Scenario files"). */
export const ScenarioFinding = z.object({
  title: z.string().min(1),
  location: z.string().min(1),
  severity: Severity,
  category: z.string().min(1),
  triageStatus: z.enum(TRIAGE_STATUSES).default("NEW"),
  confirmationEvidence: z.enum(["POC", "ANALYSIS"]).nullable().default(null),
  description: z.string().min(1),
  pocReport: z.string().nullable().default(null),
  recommendedFix: z.string().nullable().default(null),
});
export type ScenarioFinding = z.infer<typeof ScenarioFinding>;

/** A scenario: the findings every completed scan produces, plus optional forced outcome and spend. */
export const Scenario = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  /** Force every scan to end `FAILED` (default: `COMPLETED`). */
  outcome: z.enum(["COMPLETED", "FAILED"]).default("COMPLETED"),
  /** Credits each scan would use with an unlimited budget; default: the seeded generator's figure. */
  spendCredits: z.number().int().min(0).optional(),
  findings: z.array(ScenarioFinding).max(1000),
});
export type Scenario = z.infer<typeof Scenario>;
export type ScenarioInput = z.input<typeof Scenario>;

const RouteFilter = z
  .string()
  .min(1)
  .refine((s) => {
    try {
      new RegExp(s);
      return true;
    } catch {
      return false;
    }
  }, "route must be a valid regular expression");

/** A fault on the next `count` requests matching `route` (all when unset), with its own `fields`; `null` clears it. */
function countedFault<T extends z.ZodRawShape>(fields: T) {
  return z
    .object({ count: z.number().int().min(0), ...fields, route: RouteFilter.optional() })
    .nullable()
    .optional();
}

/**
 * Fault-injection settings, the body of `POST /_sandbox/faults`. `route` is a regular expression matched
 * against `METHOD /path` (the path after `/api/v1`, e.g. `GET /projects/prj_demo/scans/scn_1`).
 */
export const FaultsInput = z.object({
  /** Next `count` matching requests answer a 5xx with code `internal`. */
  errors: countedFault({
    status: z.union([z.literal(500), z.literal(502), z.literal(503)]).optional(),
    /** Cycle through these statuses; wins over `status`. */
    statuses: z
      .array(z.union([z.literal(500), z.literal(502), z.literal(503)]))
      .min(1)
      .optional(),
  }),
  /** Milliseconds added to every API response. */
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  /**
   * The next `count` matching requests wait `ms` before they are handled (after `latencyMs`): the request
   * is counted when it arrives, so one write can be held while later ones go through.
   */
  delays: countedFault({ ms: z.number().int().min(0).max(60_000) }),
  /** Next `count` matching requests answer 429 `rate_limited` with `Retry-After` (seconds, default 1). */
  rateLimits: countedFault({ retryAfterSeconds: z.number().int().min(0).default(1) }),
  /**
   * Lost answers: the next `count` matching API requests are carried out as usual (a launch creates its scan
   * and reserves its budget), then answered `status` (default 504, code `internal`) instead of their result,
   * as a gateway does when the service's answer does not reach it in time: the caller cannot know the outcome.
   */
  lostAnswers: countedFault({
    status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
  }),
  /**
   * An outage: every API request answers `status` (default 503, code `internal`) for `durationMs` from now,
   * with `Retry-After` when `retryAfterSeconds` is set; `requests` counts what was answered so.
   */
  outage: z
    .object({
      durationMs: z
        .number()
        .int()
        .min(0)
        .max(24 * 3_600_000),
      status: z.union([z.literal(500), z.literal(502), z.literal(503)]).optional(),
      retryAfterSeconds: z.number().int().min(0).optional(),
    })
    .nullable()
    .optional(),
});
export type FaultsInput = z.infer<typeof FaultsInput>;

/** Body of `POST /_sandbox/scans/{scanId}/complete`. */
export const CompleteScanInput = z.object({ outcome: z.enum(["COMPLETED", "FAILED"]).default("COMPLETED") });
export type CompleteScanInput = z.infer<typeof CompleteScanInput>;

export { SEVERITIES };
