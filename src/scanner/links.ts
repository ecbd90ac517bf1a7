/**
 * Addresses of the scanning service's web pages, built from its public base URL (`SCANNER_PUBLIC_URL`).
 *
 * The spec describes the API only and gives no web addresses; diffward assumes the web application mirrors
 * the API's resource paths (`/projects/{projectId}/scans/{scanId}`,
 * `/projects/{projectId}/findings/{findingId}`, published artifacts at `/public/findings/{publicId}` and
 * `/public/scans/{publicId}`: spec §Published artifact calls `publicId` "the slug used in the public scan and
 * finding locations"). These functions are the only place that assumption lives.
 */

function join(base: string, ...segments: string[]): string {
  return `${base.replace(/\/+$/, "")}/${segments.map((s) => encodeURIComponent(s)).join("/")}`;
}

/** The scan's page: `{publicUrl}/projects/{projectId}/scans/{scanId}`. */
export function scanPageUrl(publicUrl: string, projectId: string, scanId: string): string {
  return join(publicUrl, "projects", projectId, "scans", scanId);
}

/** The finding's page: `{publicUrl}/projects/{projectId}/findings/{findingId}`. */
export function findingPageUrl(publicUrl: string, projectId: string, findingId: string): string {
  return join(publicUrl, "projects", projectId, "findings", findingId);
}

/** A published artifact's page: `{publicUrl}/public/findings/{publicId}`. */
export function publishedFindingUrl(publicUrl: string, publicId: string): string {
  return join(publicUrl, "public", "findings", publicId);
}

/** A published scan's page: `{publicUrl}/public/scans/{publicId}`. */
export function publishedScanUrl(publicUrl: string, publicId: string): string {
  return join(publicUrl, "public", "scans", publicId);
}
