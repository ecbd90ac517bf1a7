import type { UninstallJobData } from "../jobs/lifecycle.js";
import { EVENT_JOB_OPTIONS, JOB, jobId } from "../runtime/names.js";
import type { EventHandler } from "./deps.js";

/** `installation.deleted`: cancel every scan in flight for that installation. */
export const onInstallationDeleted: EventHandler<"installation.deleted"> = async (deps, context) => {
  const { installation } = context.payload;
  const account = installation.account as { login?: string; slug?: string } | null;
  const data: UninstallJobData = {
    deliveryId: context.id,
    installationId: installation.id,
    accountLogin: account?.login ?? account?.slug ?? "",
  };
  await deps.queues.events.add(JOB.uninstall, data, {
    ...EVENT_JOB_OPTIONS,
    jobId: jobId("uninstall", context.id),
  });
};
