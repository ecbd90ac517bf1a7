import { addJob, type ReinstallJobData, type UninstallJobData } from "../job-catalogue/index.js";
import { jobId } from "../runtime/names.js";
import type { EventHandler } from "./deps.js";

/** `installation.deleted`: cancel every scan in flight for that installation. */
export const onInstallationDeleted: EventHandler<"installation.deleted"> = async (deps, context) => {
  const { installation } = context.payload;
  const data: UninstallJobData = {
    deliveryId: context.id,
    installationId: installation.id,
    accountLogin: accountLoginOf(installation),
  };
  await addJob(deps, "uninstall", data, { jobId: jobId("uninstall", context.id) });
};

/**
 * `installation.created`: the app installed, perhaps again after an uninstall (GitHub gives a new
 * installation id). One `reinstall` job per installation (job id `installed-<installationId>`, so a redelivery
 * adds none) ends the check runs an earlier uninstall left unfinished and scans their heads again
 * (`src/scan/reinstall.ts`). `installation.unsuspend` needs nothing of this: a suspension cancels no scan, and
 * deliveries missed meanwhile are recovered by the delivery recovery. `installation_repositories.added`
 * neither: a repository new to the installation has no diffward check run to end.
 */
export const onInstallationCreated: EventHandler<"installation.created"> = async (deps, context) => {
  const { installation } = context.payload;
  const data: ReinstallJobData = {
    deliveryId: context.id,
    installationId: installation.id,
    appId: installation.app_id,
    accountLogin: accountLoginOf(installation),
    installedAt: isoOf(installation.created_at as unknown),
  };
  await addJob(deps, "reinstall", data, { jobId: jobId("installed", installation.id) });
};

/** `installation.created_at`: GitHub sends Unix seconds in this payload (ISO 8601 elsewhere); now when absent. */
function isoOf(at: unknown): string {
  if (typeof at === "number") return new Date(at * 1000).toISOString();
  if (typeof at === "string" && !Number.isNaN(Date.parse(at))) return new Date(at).toISOString();
  return new Date().toISOString();
}

/** The installation's account: a user's or organization's `login`, an enterprise's `slug`; "" when none. */
function accountLoginOf(installation: { account: unknown }): string {
  const account = installation.account as { login?: string; slug?: string } | null;
  return account?.login ?? account?.slug ?? "";
}
