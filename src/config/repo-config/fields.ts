/**
 * The pieces the sections of `.github/diffward.yml` share: how a section is declared, the severity levels
 * and the names and amounts the scanning service gives out.
 */
import { z } from "zod";

/** A section of `.github/diffward.yml`: unknown keys are refused, and `description` is its JSON Schema text. */
export function section<S extends z.ZodRawShape>(description: string, shape: S) {
  return z.strictObject(shape).describe(description);
}

/** A lower-case severity level (spec §Finding (list item): CRITICAL, HIGH, MEDIUM, LOW, INFO). */
export const SeverityLevel = z.enum(["critical", "high", "medium", "low", "info"]);
export type SeverityLevel = z.infer<typeof SeverityLevel>;

/**
 * A name the scanning service gives out, as the file quotes it: a repository id, a scan preset's `ref`
 * (spec §Scan preset (scan type)) or an audit area key (spec §Audit area); 1 to 200 characters.
 */
export const ServiceRef = z.string().min(1).max(200);

/** A scan's most spend, in credits (spec §Scans, launch rule 1: when omitted the service picks a budget). */
export const CreditBudget = z.int().min(1);
