/**
 * `/publish`: publishes a finding as a public artifact in the service (spec §Findings, `POST
 * …/findings/{findingId}/publish`), without a password; `/diffward publish scan` publishes the pull
 * request's last reported scan (spec §Scans, `POST …/scans/{scanId}/publish`). Irreversible and public.
 */
import { z } from "zod";
import { publishedAnswer, publishedScanAnswer } from "../../render/command-answers.js";
import { inlineCode } from "../../render/escape.js";
import type { ReportState } from "../../stores/stored-report.js";
import { ScannerApiError } from "../../scanner/errors.js";
import { findingLabel } from "../../scanner/labels.js";
import { argumentless, commandName, finding, unexpected, type VerbArgs } from "../verb-parts.js";
import type { ErrorCommand } from "../verb-parts.js";
import { answerOnly, defineVerb, targetOf, tenantOf, VERB_NEEDS } from "../verb-module.js";
import type { VerbInput } from "../verb-module.js";

/** `POST …/findings/{findingId}/publish`. */
export const PublishCommand = z.object({
  ...commandName("publish", "publish"),
  ...finding,
});
export type PublishCommand = z.infer<typeof PublishCommand>;

function parsePublish(a: VerbArgs): PublishCommand | ErrorCommand {
  if (a.args) return unexpected("publish", a.args, a.syntax);
  return { kind: "publish", verb: "publish", requiresPermission: true, ...(a.ref ? { ref: a.ref } : {}) };
}

/** What a publish command does. */
export interface PublishPlan {
  findingId: string;
  label: string;
  /** `withPassword` of the publish request: diffward publishes without one */
  withPassword: false;
}

/** Plans a publication (pure). */
export function planPublish(input: VerbInput<PublishCommand>): PublishPlan {
  const id = targetOf(input).detail.id;
  return { findingId: id, label: findingLabel(id, input.labelPrefix), withPassword: false };
}

/** `/publish`. */
export const publishVerb = defineVerb(PublishCommand, VERB_NEEDS.publishFinding, {
  parse: parsePublish,
  describe: () => "publish the finding",
  plan: planPublish,
  async apply(io, plan, input) {
    const tenant = tenantOf(input);
    // only the public id is kept for a retry: never the access password
    const art = await io.once("publish", async () => {
      const published = await tenant.client.publishFinding(tenant.projectId, plan.findingId, {
        withPassword: plan.withPassword,
      });
      return { publicId: published.publicId };
    });
    io.log.info({ finding: plan.findingId, publicId: art.publicId }, "finding published");
    await io.answer(publishedAnswer(plan.label, art.publicId, input.settings.publicUrl));
    return "changed";
  },
});

/** `/diffward publish scan`: `POST …/scans/{scanId}/publish` of the pull request's last reported scan. */
export const PublishScanCommand = z.object(commandName("publish-scan", "publish scan"));
export type PublishScanCommand = z.infer<typeof PublishScanCommand>;

/** What `/diffward publish scan` does: publish one scan (without a password), or only answer. */
export type PublishScanPlan =
  | { kind: "publish"; scanId: string; headSha: string; withPassword: false }
  | { kind: "answer"; answer: string };

/**
 * Plans a whole-scan publication (pure): the scan of the pull request's last report (a completed scan:
 * spec §Scans lets only a `COMPLETED` scan be published), never with an access password.
 */
export function planPublishScan(
  _input: VerbInput<PublishScanCommand>,
  report: Pick<ReportState, "scanId" | "headSha"> | undefined,
): PublishScanPlan {
  if (!report)
    return {
      kind: "answer",
      answer:
        "diffward has no completed scan of this pull request to publish yet; nothing was published. Try again once the `diffward` check has a report.",
    };
  return { kind: "publish", scanId: report.scanId, headSha: report.headSha, withPassword: false };
}

/**
 * `/diffward publish scan`: publishes the pull request's last reported scan as a public artifact (spec
 * §Scans, `POST …/scans/{scanId}/publish`, scope `publish`) and answers with its public
 * address. Floor: `commands.publishPermission`, as for `/publish` (off on public repositories unless set).
 * A 409 (the scan is not completed) is explained; the access password is never requested nor posted.
 */
export const publishScanVerb = defineVerb(PublishScanCommand, VERB_NEEDS.publishScan, {
  parse: argumentless("publish-scan", "publish scan"),
  describe: () => "publish the scan",
  read: async (io) => io.readReport(),
  plan: planPublishScan,
  async apply(io, plan, input) {
    if (plan.kind === "answer") return answerOnly(io, plan);
    const tenant = tenantOf(input);
    let art;
    try {
      art = await io.once("publish-scan", async () => {
        const published = await tenant.client.publishScan(tenant.projectId, plan.scanId, {
          withPassword: plan.withPassword,
        });
        return { publicId: published.publicId };
      });
    } catch (error) {
      if (error instanceof ScannerApiError && error.status === 409) {
        await io.answer(
          `The scanning service refused to publish scan ${inlineCode(plan.scanId)}: only a completed scan can be published, and this one is not (it may have been cancelled or failed). Nothing was published.`,
        );
        return "answered";
      }
      throw error;
    }
    io.log.info({ scanId: plan.scanId, publicId: art.publicId }, "scan published");
    await io.answer(publishedScanAnswer(plan.scanId, plan.headSha, art.publicId, input.settings.publicUrl));
    return "changed";
  },
});
