/**
 * The requests about a project's repositories (spec §Repositories): the list, each repository's guidance
 * and its audit areas. The envelopes the spec leaves unnamed are found by shape (./envelopes.ts).
 */
import { type ScannerTransport } from "./transport.js";
import { asBody, asQuery, checked } from "./request-input.js";
import {
  normalizeAuditAreaList,
  normalizeCreatedAuditArea,
  normalizeGuidance,
  normalizeRepositories,
} from "./envelopes.js";
import { AuditAreaListOptions, CreateAuditAreaInput, PutGuidanceInput } from "./inputs.js";
import {
  DeleteAuditAreaResult,
  GuidanceWriteResult,
  type AuditAreaList,
  type CreatedAuditArea,
  type Guidance,
  type Repository,
} from "./schemas.js";

/** `GET /projects/{projectId}/repositories`. */
export function listRepositories(t: ScannerTransport, projectId: string): Promise<Repository[]> {
  return t.normalized(normalizeRepositories, {
    method: "GET",
    route: "/projects/{projectId}/repositories",
    params: { projectId },
  });
}

/** `GET /projects/{projectId}/repositories/{repositoryId}/guidance`. */
export function getGuidance(t: ScannerTransport, projectId: string, repositoryId: string): Promise<Guidance> {
  return t.normalized(normalizeGuidance, {
    method: "GET",
    route: "/projects/{projectId}/repositories/{repositoryId}/guidance",
    params: { projectId, repositoryId },
  });
}

/**
 * `PUT /projects/{projectId}/repositories/{repositoryId}/guidance`: the checked input is the body, so an
 * `expectedContent` left out is not sent (last writer wins) and a `null` one is (compare-and-set).
 */
export function putGuidance(
  t: ScannerTransport,
  projectId: string,
  repositoryId: string,
  input: PutGuidanceInput,
): Promise<GuidanceWriteResult> {
  return t.json(GuidanceWriteResult, {
    method: "PUT",
    route: "/projects/{projectId}/repositories/{repositoryId}/guidance",
    params: { projectId, repositoryId },
    input: checked(PutGuidanceInput, input, asBody),
  });
}

/** `GET /projects/{projectId}/repositories/{repositoryId}/audit-areas`. */
export function listAuditAreas(
  t: ScannerTransport,
  projectId: string,
  repositoryId: string,
  options: AuditAreaListOptions,
): Promise<AuditAreaList> {
  return t.normalized(normalizeAuditAreaList, {
    method: "GET",
    route: "/projects/{projectId}/repositories/{repositoryId}/audit-areas",
    params: { projectId, repositoryId },
    input: checked(AuditAreaListOptions, options, asQuery),
  });
}

/** `POST /projects/{projectId}/repositories/{repositoryId}/audit-areas`. */
export function createAuditArea(
  t: ScannerTransport,
  projectId: string,
  repositoryId: string,
  input: CreateAuditAreaInput,
): Promise<CreatedAuditArea> {
  return t.normalized(normalizeCreatedAuditArea, {
    method: "POST",
    route: "/projects/{projectId}/repositories/{repositoryId}/audit-areas",
    params: { projectId, repositoryId },
    input: checked(CreateAuditAreaInput, input, asBody),
  });
}

/** `DELETE /projects/{projectId}/repositories/{repositoryId}/audit-areas/{areaKey}`. */
export function deleteAuditArea(
  t: ScannerTransport,
  projectId: string,
  repositoryId: string,
  areaKey: string,
): Promise<DeleteAuditAreaResult> {
  return t.json(DeleteAuditAreaResult, {
    method: "DELETE",
    route: "/projects/{projectId}/repositories/{repositoryId}/audit-areas/{areaKey}",
    params: { projectId, repositoryId, areaKey },
  });
}
