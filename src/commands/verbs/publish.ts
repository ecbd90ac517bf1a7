/**
 * `/publish`: publishes a finding as a public artifact in the service (spec "POST
 * …/findings/{findingId}/publish"), without a password. Irreversible and public.
 */
import { z } from "zod";
import { publishedAnswer } from "../../render/command-answers.js";
import { findingLabel } from "../../scanner/labels.js";
import { finding, needsPermission, unexpected, type VerbArgs } from "../parsed.js";
import type { ErrorCommand } from "../parsed.js";
import { defineVerb, targetOf, tenantOf, type VerbInput } from "../verb.js";

/** `POST …/findings/{findingId}/publish`. */
export const PublishCommand = z.object({
  kind: z.literal("publish"),
  verb: z.literal("publish"),
  ...needsPermission,
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
export const publishVerb = defineVerb<PublishCommand, undefined, PublishPlan>({
  kind: "publish",
  schema: PublishCommand,
  needs: { permission: "publish", tenant: true, config: false, target: "finding" },
  parse: parsePublish,
  describe: () => "publish the finding",
  plan: planPublish,
  async apply(io, plan, input) {
    const tenant = tenantOf(input);
    const art = await tenant.client.publishFinding(tenant.projectId, plan.findingId, {
      withPassword: plan.withPassword,
    });
    io.log.info({ finding: plan.findingId, publicId: art.publicId }, "finding published");
    await io.answer(publishedAnswer(plan.label, art.publicId, input.settings.publicUrl));
    return "changed";
  },
});
