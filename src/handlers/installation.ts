import { addJob, type UninstallJobData } from "../job-catalogue/index.js";
import { jobId } from "../runtime/names.js";
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
  await addJob(deps, "uninstall", data, { jobId: jobId("uninstall", context.id) });
};
