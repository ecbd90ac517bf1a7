/**
 * A resolution of a finding as diffward keeps it: a team decision remembered for later scans of the pull
 * request (./decision.ts) and a dismissal waiting for a second person (./approval.ts) carry the same
 * core, what `PATCH …/findings/{findingId}/resolution` sends (spec §Findings) and what it was asked for.
 */
import { z } from "zod";
import { RESOLUTION_STATUSES, SEVERITIES } from "../scanner/catalog.js";
import { STORED_IDENTITY_FIELDS } from "./identity.js";

/** The fields every stored resolution carries, as zod fields to spread into its schema. */
export const STORED_RESOLUTION_FIELDS = {
  /** `findingId`, `fingerprint`, `shape` (./identity.ts) */
  ...STORED_IDENTITY_FIELDS,
  /** the finding's effective severity when the resolution was asked for */
  severity: z.enum(SEVERITIES),
  resolutionStatus: z.enum(RESOLUTION_STATUSES),
  /** a catalog reason code (sent as `reason`), when one was given alone */
  reason: z.string().optional(),
  /** the text sent as the resolution's note */
  note: z.string().optional(),
};
