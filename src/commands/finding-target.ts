/**
 * The "target" step of a finding command: which finding of this pull request the command acts on.
 * A reply inside diffward's finding thread names the thread's finding; a conversation command names one
 * by label or id. Only findings diffward reported (or decided) on this pull request can be acted on: a
 * label must never reach another repository's finding.
 */
import { conflictAnswer } from "../render/command-answers.js";
import { inlineCode } from "../render/escape.js";
import { ScannerApiError } from "../scanner/errors.js";
import { findingLabel, findingRefParam, refMatchesId, type FindingRef } from "../scanner/labels.js";
import type { ScannerTenant } from "../tenants/index.js";
import type { CommandIO, FindingTarget } from "./verb-module.js";

/**
 * The first line of the answer to a command that named another finding than the thread's: says which
 * finding was acted on and that the thread's finding was left alone.
 */
export function namedElsewhereNotice(targetId: string, threadFindingId: string, labelPrefix: string): string {
  return (
    `This command names ${inlineCode(findingLabel(targetId, labelPrefix))}, so diffward acted on that finding, ` +
    `not on this thread's finding ${inlineCode(findingLabel(threadFindingId, labelPrefix))}.`
  );
}

/** Where the command was written, as far as the target is concerned. */
export interface TargetInput {
  /** the finding id of the thread's marker, when the command is a reply in diffward's finding thread */
  threadFindingId?: string;
  /** the thread's first comment (diffward's finding comment), for a reply */
  threadCommentId?: number;
  /** the finding named in the command (label or id), when it names one */
  ref?: FindingRef;
}

/** Which finding to look up: the thread's, one named by reference, or none named (answer and stop). */
export type FindingChoice =
  | { kind: "thread"; findingId: string; commentId: number }
  | { kind: "ref"; ref: FindingRef }
  | { kind: "missing" };

/**
 * Chooses the finding a command acts on (pure): the one named by label or id when the command names one, even
 * inside another finding's thread (the label wins: `/diffward wontfix SC-<B>` under finding A's comment acts
 * on B, never on A); else, inside a finding thread, the thread's finding; nothing named → `missing`.
 */
export function chooseFinding(input: TargetInput): FindingChoice {
  if (input.ref) return { kind: "ref", ref: input.ref };
  if (input.threadFindingId !== undefined && input.threadCommentId !== undefined)
    return { kind: "thread", findingId: input.threadFindingId, commentId: input.threadCommentId };
  return { kind: "missing" };
}

/**
 * Resolves the target of a finding command: `GET …/findings/{findingId}` (a label is sent as typed; a
 * label matching several findings is 409 `conflict`, answered with the candidates diffward knows here),
 * then checks the finding belongs to this pull request (its last report, or a decision taken on it).
 *
 * @returns the target, or the answer to post when there is none (nothing named, ambiguous, not ours).
 * @throws the service's other errors (the command job sorts them: wait, retry, or answer).
 */
export async function resolveTarget(
  io: Pick<CommandIO, "readReport" | "readDecisions">,
  tenant: ScannerTenant,
  input: TargetInput,
  labelPrefix: string,
): Promise<{ target: FindingTarget } | { answer: string }> {
  const choice = chooseFinding(input);
  if (choice.kind === "missing") return { answer: "Name the finding: `/diffward <verb> <label or id>`." };
  if (choice.kind === "thread") {
    const detail = await tenant.client.getFinding(tenant.projectId, choice.findingId);
    return { target: { detail, commentId: choice.commentId } };
  }
  const report = await io.readReport();
  const typed = findingRefParam(choice.ref, labelPrefix);
  let detail;
  try {
    detail = await tenant.client.getFinding(tenant.projectId, typed);
  } catch (error) {
    if (error instanceof ScannerApiError && error.code === "conflict") {
      const candidates = (report?.findings ?? []).filter((f) => refMatchesId(choice.ref, f.id));
      return { answer: conflictAnswer(typed, candidates, labelPrefix) };
    }
    throw error;
  }
  const decisions = await io.readDecisions();
  const reported = report?.findings.find((f) => f.id === detail.id);
  const known = reported ?? decisions.find((x) => x.findingId === detail.id);
  if (!known) {
    return {
      answer: `${inlineCode(typed)} is not a finding diffward reported on this pull request, so nothing was changed.`,
    };
  }
  const commentId = reported?.commentId;
  const elsewhere = input.threadFindingId !== undefined && input.threadFindingId !== detail.id;
  return {
    target: {
      detail,
      ...(commentId !== undefined ? { commentId } : {}),
      ...(elsewhere ? { threadFindingId: input.threadFindingId } : {}),
    },
  };
}
