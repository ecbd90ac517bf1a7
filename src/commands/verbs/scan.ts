/**
 * The scan verbs of a pull request: `/diffward rescan [preset=<ref>] [budget=<credits>]` enqueues a new
 * diff scan of the head (one per command comment), `/diffward cancel` cancels the running scan (spec
 * §Scans, `POST …/scans/{scanId}/cancel`; unused credits return to the balance).
 */
import { z } from "zod";
import { who } from "../../render/command-answers.js";
import { inlineCode } from "../../render/escape.js";
import { isTerminalScanStatus } from "../../scanner/catalog.js";
import { ScannerApiError } from "../../scanner/errors.js";
import { argumentless, commandError, commandName, echo, unexpected, type VerbArgs } from "../verb-parts.js";
import type { ErrorCommand } from "../verb-parts.js";
import { answerOnly, configOf, defineVerb, readScanAndReport, tenantOf, VERB_NEEDS } from "../verb-module.js";
import type { AnswerPlan, PullNow, ScanAndReport, RescanRequest, VerbInput } from "../verb-module.js";

/** Largest `budget=` accepted by `/diffward rescan`, in credits. */
export const MAX_RESCAN_BUDGET = 1_000_000_000;
/** Longest `preset=` value accepted by `/diffward rescan`, in characters. */
export const MAX_PRESET_REF_LENGTH = 200;

/** A new diff scan of the pull request head: `preset` and `budget` (credits) when given. */
export const RescanCommand = z.object({
  ...commandName("rescan", "rescan"),
  preset: z.string().min(1).max(MAX_PRESET_REF_LENGTH).optional(),
  budget: z.int().min(1).max(MAX_RESCAN_BUDGET).optional(),
});
export type RescanCommand = z.infer<typeof RescanCommand>;

/** `POST …/scans/{scanId}/cancel` for the pull request's running scan. */
export const CancelCommand = z.object(commandName("cancel", "cancel"));
export type CancelCommand = z.infer<typeof CancelCommand>;

function parseRescan(a: VerbArgs): RescanCommand | ErrorCommand {
  const out: { preset?: string; budget?: number } = {};
  for (const token of a.args.split(/\s+/).filter(Boolean)) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(token);
    const key = m?.[1]?.toLowerCase();
    const value = m?.[2] ?? "";
    if (key === "preset" && out.preset === undefined) {
      if (!value || value.length > MAX_PRESET_REF_LENGTH) {
        return commandError("rescan", "invalid_argument", `\`preset=\` needs a preset ref: ${a.syntax}.`);
      }
      out.preset = value;
    } else if (key === "budget" && out.budget === undefined) {
      const n = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
      if (!Number.isSafeInteger(n) || n < 1 || n > MAX_RESCAN_BUDGET) {
        return commandError(
          "rescan",
          "invalid_argument",
          `\`budget=${echo(value)}\` is not a credit budget: use a whole number of credits from 1 to ${MAX_RESCAN_BUDGET}: ${a.syntax}.`,
        );
      }
      out.budget = n;
    } else {
      return unexpected("rescan", token, a.syntax);
    }
  }
  return { kind: "rescan", verb: "rescan", requiresPermission: true, ...out };
}

/** What a rescan does: answer only (closed pull request), or enqueue one rescan and answer. */
export type RescanPlan = AnswerPlan & { enqueue?: RescanRequest };

/**
 * Plans a rescan from the pull request as GitHub has it now (pure). A `budget=` above the repository's
 * `creditBudget` is refused; without `budget=` the repository's `creditBudget` is sent with the request.
 */
export function planRescan(input: VerbInput<RescanCommand>, pr: PullNow): RescanPlan {
  const { cmd } = input;
  const config = configOf(input);
  if (pr.state !== "open")
    return { answer: "This pull request is closed, so diffward does not scan it again." };
  // `creditBudget` is the most one scan of the repository may spend: an override never goes above it,
  // and a `preset=` override still runs with it.
  const cap = config.creditBudget;
  if (cap !== undefined && cmd.budget !== undefined && cmd.budget > cap) {
    return {
      answer:
        `\`budget=${cmd.budget}\` is above this repository's \`creditBudget\` of ${cap} credits, the most one ` +
        `scan may spend, so nothing was launched. Ask for ${cap} credits or fewer, or raise \`creditBudget\` in ` +
        "`.github/diffward.yml`.",
    };
  }
  const budget = cmd.budget ?? cap;
  const credits =
    budget !== undefined
      ? `up to **${budget} credits** will be reserved at launch`
      : "the service picks the recommended budget; the check run shows the credits reserved";
  return {
    enqueue: {
      pull: pr,
      nonce: `cmd-${input.commentId}`,
      requestedBy: input.sender,
      ...(cmd.preset ? { presetRef: cmd.preset } : {}),
      ...(budget !== undefined ? { creditBudget: budget } : {}),
    },
    answer:
      `Rescan of ${inlineCode(pr.headSha.slice(0, 7))} requested for ${who(input.sender)}` +
      `${cmd.preset ? ` with preset ${inlineCode(cmd.preset)}` : ""}: ${credits}.`,
  };
}

/** `/diffward rescan`. */
export const rescanVerb = defineVerb(RescanCommand, VERB_NEEDS.repository, {
  parse: parseRescan,
  read: (io) => io.readPull(),
  plan: planRescan,
  async apply(io, plan) {
    if (!plan.enqueue) return answerOnly(io, plan);
    await io.enqueueRescan(plan.enqueue);
    await io.answer(plan.answer);
    return "rescan-enqueued";
  },
});

/** What `/diffward cancel` does: answer only (nothing running), or cancel one scan. */
export type CancelPlan =
  (AnswerPlan & { cancel?: undefined }) | { cancel: { projectId: string; scanId: string }; by: string };

/**
 * Plans a cancel from diffward's state (pure): only a scan that is running, not yet reported and not known to
 * have ended (spec §Scan status: only `QUEUED` and `PROCESSING` scans can be cancelled).
 */
export function planCancel(input: VerbInput<CancelCommand>, facts: ScanAndReport): CancelPlan {
  const { scan, report } = facts;
  if (!scan?.scanId || !scan.projectId || report?.scanId === scan.scanId)
    return { answer: "No scan of this pull request is running, so there is nothing to cancel." };
  if (scan.endedStatus) return { answer: finishedAnswer(scan.scanId) };
  return { cancel: { projectId: scan.projectId, scanId: scan.scanId }, by: input.sender };
}

const finishedAnswer = (scanId: string) =>
  `Scan ${inlineCode(scanId)} has already finished, so there is nothing to cancel.`;

/** `/diffward cancel`. */
export const cancelVerb = defineVerb(CancelCommand, VERB_NEEDS.account, {
  parse: argumentless("cancel", "cancel"),
  describe: () => "cancel the scan",
  read: readScanAndReport,
  plan: planCancel,
  async apply(io, plan, input) {
    if (!plan.cancel) return answerOnly(io, plan);
    const tenant = tenantOf(input);
    try {
      const { projectId, scanId } = plan.cancel;
      const res = await io.once("cancel", async () => {
        // The service's word on the status first: a scan that ended meanwhile is never cancelled (spec
        // `GET /projects/{projectId}/scans/{scanId}`; a refused read leaves it to the cancel's own answer).
        const status = await tenant.client
          .getScan(projectId, scanId)
          .then(({ scan }) => scan.status)
          .catch(() => undefined);
        if (status !== undefined && isTerminalScanStatus(status)) return { ended: true as const };
        await io.recordCancel(scanId, plan.by);
        const r = await tenant.client.cancelScan(projectId, scanId);
        return { scanId: r.scanId, cancelledJobs: r.cancelledJobs };
      });
      if ("ended" in res) {
        await io.answer(finishedAnswer(scanId));
        return "answered";
      }
      await io.answer(
        `Cancelled scan ${inlineCode(res.scanId)} for ${who(plan.by)} (${res.cancelledJobs} running job(s) stopped); unused credits return to the balance.`,
      );
      return "changed";
    } catch (error) {
      if (error instanceof ScannerApiError && error.status === 400) {
        await io.answer(finishedAnswer(plan.cancel.scanId));
        return "answered";
      }
      throw error;
    }
  },
});
