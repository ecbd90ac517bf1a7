/**
 * The requests about a project's findings (spec §Findings): list and read findings, and the writes to one
 * finding (note, severity, resolution, publish). Finding ids may be full ids or labels (spec §Finding label).
 */
import type { z } from "zod";
import {
  FindingListOptions,
  NoteContent,
  PublishFindingInput,
  SetResolutionInput,
  SeverityOverride,
} from "./inputs.js";
import { paginate } from "./paginate.js";
import { asQuery, checkInput, checked } from "./request-input.js";
import {
  AddNoteResult,
  FindingEnvelope,
  FindingPage,
  PublishedArtifact,
  ResolutionResult,
  SeverityResult,
  type FindingDetail,
  type FindingListItem,
} from "./schemas.js";
import type { ScannerTransport } from "./transport.js";

const LIST_FINDINGS = "GET /projects/{projectId}/findings";

/** `GET /projects/{projectId}/findings`: one page, optionally of one scan. */
export function listFindings(
  t: ScannerTransport,
  projectId: string,
  options: FindingListOptions,
): Promise<FindingPage> {
  return t.json(FindingPage, {
    method: "GET",
    route: "/projects/{projectId}/findings",
    params: { projectId },
    input: checked(FindingListOptions, options, asQuery),
  });
}

/** Every finding (optionally of `scanId`), page by page with `limit` (default 100), under the transport's caps. */
export async function* iterateFindings(
  t: ScannerTransport,
  projectId: string,
  options: { scanId?: string; limit?: number },
): AsyncGenerator<FindingListItem> {
  const limit = options.limit ?? 100;
  const scanId = options.scanId;
  checkInput(FindingListOptions, { limit, scanId }, LIST_FINDINGS);
  yield* paginate((page) => listFindings(t, projectId, { page, limit, scanId }), t.limits, LIST_FINDINGS);
}

/** `GET /projects/{projectId}/findings/{findingId}`: the finding out of its envelope. */
export async function getFinding(
  t: ScannerTransport,
  projectId: string,
  findingId: string,
): Promise<FindingDetail> {
  const { finding } = await t.json(FindingEnvelope, {
    method: "GET",
    route: "/projects/{projectId}/findings/{findingId}",
    params: { projectId, findingId },
  });
  return finding;
}

/**
 * A write to one finding (spec §Findings): its method, the schemas of the caller's input and of the answer,
 * and, for an input that is one value, the body field it is sent in (else the checked input is the body; a
 * field left `undefined` is not sent).
 */
interface FindingWrite {
  method: "POST" | "PATCH";
  input: z.ZodType;
  answer: z.ZodType;
  field?: string;
}

/** The writes to one finding, by the route's last segment. */
const FINDING_WRITES = {
  notes: { method: "POST", input: NoteContent, answer: AddNoteResult, field: "content" },
  severity: { method: "PATCH", input: SeverityOverride, answer: SeverityResult, field: "severity" },
  resolution: { method: "PATCH", input: SetResolutionInput, answer: ResolutionResult },
  publish: { method: "POST", input: PublishFindingInput, answer: PublishedArtifact },
} as const satisfies Record<string, FindingWrite>;

/** The action of a write to one finding: the last segment of its route. */
export type FindingAction = keyof typeof FINDING_WRITES;

/** The method a client offers for one finding write: `(projectId, findingId, input) → answer`. */
export type FindingWriteMethod<A extends FindingAction> = (
  projectId: string,
  findingId: string,
  input: z.input<(typeof FINDING_WRITES)[A]["input"]>,
) => Promise<z.output<(typeof FINDING_WRITES)[A]["answer"]>>;

/**
 * The method of a write to one finding, `<method> /projects/{projectId}/findings/{findingId}/<action>`
 * ({@link FINDING_WRITES}), sent through the transport `transport()` returns when it is called: the input
 * is checked before any request ({@link checked}; a one-value input is named by its body field in the
 * error), then sent as the body.
 * @throws ScannerRequestError for an input the spec refuses; the request's errors as the transport throws them.
 */
export function findingWrite<A extends FindingAction>(
  transport: () => ScannerTransport,
  action: A,
): FindingWriteMethod<A> {
  const { method, input: schema, answer, field } = FINDING_WRITES[action] as FindingWrite;
  const route = `/projects/{projectId}/findings/{findingId}/${action}` as const;
  return async (projectId, findingId, input) => {
    const answered = await transport().json(answer, {
      method,
      route,
      params: { projectId, findingId },
      input: checked(schema, input, (v) => ({ body: field === undefined ? v : { [field]: v } }), field),
    });
    return answered as Awaited<ReturnType<FindingWriteMethod<A>>>;
  };
}
