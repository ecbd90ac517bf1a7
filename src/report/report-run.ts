import type { Logger } from "pino";
import type { InstallationOctokit } from "../github/octokit-types.js";
import type { PollJobData } from "../job-catalogue/index.js";
import type { Runtime } from "../runtime/runtime.js";
import type { ScanDetail } from "../scanner/schemas.js";
import type { ScannerTenant } from "../tenants/index.js";

/** One report's context: the process runtime, the installation's client, the account's tenant, the poll job's data, the terminal scan, the job's logger. */
export interface ReportRun {
  rt: Runtime;
  octokit: InstallationOctokit;
  tenant: ScannerTenant;
  d: PollJobData;
  scan: ScanDetail;
  log: Logger;
}
