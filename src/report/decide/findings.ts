import type { ReportFinding } from "../../domain/finding-types.js";
import type { FindingListItem } from "../../scanner/schemas.js";

/** A finding list item of the service (spec "Finding (list item)") as the domain rules see it. */
export function toReportFinding(f: FindingListItem): ReportFinding {
  return {
    id: f.id,
    displayId: f.displayId,
    title: f.title,
    location: f.location,
    severity: f.severity,
    category: f.category,
    triageStatus: f.triageStatus,
    confirmationEvidence: f.confirmationEvidence ?? null,
    resolutionStatus: f.resolutionStatus,
    notesCount: f.notesCount,
  };
}
