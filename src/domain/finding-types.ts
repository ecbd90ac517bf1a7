/**
 * Input shapes of the pure rules in `src/domain/` and the builders in `src/render/`.
 *
 * They are structurally compatible with the scanner's schemas (spec §Finding (list item) and
 * §Finding (detail) adds) but defined here on purpose: domain and render know nothing of the HTTP
 * client. Each schema and its type share one name; callers holding data of unknown shape parse it
 * with `ReportFinding.parse(value)` (or {@link parseInput}) and get a {@link DomainInputError}.
 */
import { z } from "zod";
import { SEVERITIES } from "../scanner/catalog.js";

/** Most severe first (spec §Finding (list item)). */
export const SeverityLevel = z.enum(SEVERITIES);
export type SeverityLevel = z.infer<typeof SeverityLevel>;

/**
 * One finding of a scan report, as the report job hands it to domain and render.
 *
 * - `severity` is the effective severity (the override if set, otherwise the service's own).
 * - `triageStatus` and `resolutionStatus` are kept as strings so that a state the spec does not list
 *   yet still renders; the rules compare against the known values only.
 * - `description`, `recommendedFix`, `pocReport` come from the finding detail and are untrusted Markdown.
 */
export const ReportFinding = z.object({
  id: z.string().min(1),
  displayId: z.number().int().optional(),
  title: z.string(),
  location: z.string(),
  severity: SeverityLevel,
  category: z.string(),
  triageStatus: z.string(),
  confirmationEvidence: z.string().nullable().optional(),
  resolutionStatus: z.string(),
  notesCount: z.number().int().nonnegative().optional(),
  description: z.string().optional(),
  recommendedFix: z.string().nullable().optional(),
  pocReport: z.string().nullable().optional(),
  /**
   * Set by diffward when the team's decision on this finding was carried from an earlier finding matched
   * by fingerprint or by shape rather than by id (src/domain/identity.ts); the report says so.
   */
  matchedTo: z.object({ findingId: z.string().min(1), by: z.enum(["fingerprint", "recurring"]) }).optional(),
  /**
   * Set by diffward when the team's decision on this finding is an acceptance that expires
   * (`/wontfix … until …`, src/domain/acceptance.ts): the moment (ISO 8601) and who accepted it.
   */
  acceptedUntil: z.object({ expiresAt: z.string(), by: z.string() }).optional(),
  /**
   * Set by diffward when a `diffward-ignore` marker at the pull request's head commit is on the finding's
   * line or the line above it (src/domain/suppression.ts): `applied` (set to won't fix), `held` (waiting for
   * an approver), `denied` (`suppressions: deny`), `invalid` (no valid reason: `why`).
   */
  suppression: z
    .object({
      outcome: z.enum(["applied", "held", "denied", "invalid"]),
      path: z.string(),
      line: z.number().int().positive(),
      why: z.string().optional(),
    })
    .optional(),
});
export type ReportFinding = z.infer<typeof ReportFinding>;

/** The threshold of `failOn`: findings at or above it block the pull request; `none` never blocks. */
export const FailOn = z.enum(["critical", "high", "medium", "low", "info", "none"]);
export type FailOn = z.infer<typeof FailOn>;

/** How much of a finding diffward shows on GitHub: everything, or counts, severities and labels only. */
export const Disclosure = z.enum(["full", "summary"]);
export type Disclosure = z.infer<typeof Disclosure>;

/** A parsed finding location: a repository-relative path and, when known, a 1-based inclusive line range. */
export const Location = z.object({
  path: z.string().min(1),
  startLine: z.number().int().positive().optional(),
  endLine: z.number().int().positive().optional(),
});
export type Location = z.infer<typeof Location>;

/** Thrown when a pure function receives data it cannot work with; `issues` says exactly what. */
export class DomainInputError extends Error {
  override readonly name = "DomainInputError";
  constructor(
    message: string,
    /** one line per problem, e.g. `findings.0.severity: Invalid option` */
    readonly issues: readonly string[] = [],
  ) {
    super(issues.length ? `${message}: ${issues.join("; ")}` : message);
  }
}

/**
 * Parses `value` with `schema`, turning a zod failure into a {@link DomainInputError} that names
 * every bad field (`what` prefixes the message, e.g. "check run model").
 *
 * @throws DomainInputError when `value` does not match `schema`.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map(
    (i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`,
  );
  throw new DomainInputError(`invalid ${what}`, issues);
}
