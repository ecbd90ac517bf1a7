import type { Logger } from "pino";
import { getFileText } from "../../github/pulls.js";
import type { InstallationOctokit } from "../../github/octokit-types.js";
import type { CreditInfo, GuidanceInfo } from "../../render/check-run.js";
import type { ReportExtras } from "../decide/report-state.js";
import type { RepoConfig } from "../../config/repo-config.js";
import type { GuidanceChange } from "../../domain/gate.js";
import type { ScannerTenant } from "../../tenants/index.js";
import { readScanSpend } from "../../policy/credits.js";
import { guidanceChangeWarning } from "../../render/gate-refusals.js";
import { tokenProblems } from "../../policy/token-health.js";

/** The service's limit on guidance text, in characters (spec "Guidance", "Limits"). */
export const GUIDANCE_MAX_CHARS = 100_000;

/** The app settings and clock the extras read (a part of the queue's `Runtime`). */
export interface ExtrasRuntime {
  settings: { guidanceFile: string };
  /** ms since epoch */
  now(): number;
}

/** The reported scan, as far as the extras are concerned (a part of the poll job's data). */
export interface ExtrasScan {
  owner: string;
  repo: string;
  headSha: string;
  scanId: string;
  /** ms since epoch */
  launchedAt: number;
  presetRef: string;
  repoHtmlUrl?: string;
  config: RepoConfig;
  guidanceChange?: GuidanceChange;
  wholeRepository?: boolean;
}

const loggedTokenProblems = new Set<string>();

/**
 * The committed guidance file at the scanned commit: whether it exists, its size and a link to it; a
 * warning when it is over the service's 100,000 characters. Fails soft (a log line, no guidance).
 */
async function readGuidance(
  octokit: InstallationOctokit,
  d: ExtrasScan,
  path: string,
  log: Logger,
): Promise<{ guidance: GuidanceInfo | undefined; warnings: string[] }> {
  const warnings: string[] = [];
  try {
    const text = await getFileText(octokit, d, path, d.headSha);
    const url = d.repoHtmlUrl ? `${d.repoHtmlUrl}/blob/${d.headSha}/${path}` : undefined;
    const guidance: GuidanceInfo = {
      path,
      present: text !== undefined,
      ...(url && text !== undefined ? { url } : {}),
      ...(text !== undefined ? { sizeChars: text.length } : {}),
      // the change itself is flagged once, at the top of the summary (warnings), not again here
    };
    if (text !== undefined && text.length > GUIDANCE_MAX_CHARS) {
      warnings.push(
        `The guidance file \`${path}\` has ${text.length.toLocaleString("en-US")} characters, over the service's limit of 100,000: shorten it.`,
      );
    }
    return { guidance, warnings };
  } catch (error) {
    log.warn({ err: error }, "guidance file not read");
    return { guidance: undefined, warnings };
  }
}

/**
 * The scan's credits: the budget reserved and, from the usage ledger, what it spent (deductions less
 * refunds), whether settlement is in and whether it ran short (spent ≥ budget). Fails soft: the budget
 * alone, not settled.
 */
async function readCredits(
  tenant: ScannerTenant,
  d: ExtrasScan,
  creditBudget: number | undefined,
  now: number,
  log: Logger,
): Promise<CreditInfo | undefined> {
  try {
    const spend = await readScanSpend(tenant, d.scanId, d.launchedAt, now);
    return {
      ...(creditBudget !== undefined ? { reserved: creditBudget } : {}),
      ...(spend.settled ? { spent: spend.spent } : {}),
      settled: spend.settled,
      ...(spend.settled && creditBudget !== undefined ? { ranShort: spend.spent >= creditBudget } : {}),
    };
  } catch (error) {
    log.warn({ err: error }, "credits not read");
    return creditBudget !== undefined ? { reserved: creditBudget, settled: false } : undefined;
  }
}

/** The warning when the organization's available credits are under `lowBalanceThreshold`. Fails soft. */
async function lowBalanceWarning(
  tenant: ScannerTenant,
  threshold: number | undefined,
  log: Logger,
): Promise<string | undefined> {
  if (threshold === undefined) return undefined;
  try {
    const balance = await tenant.client.getBalance(tenant.projectId);
    if (balance.availableCredits < threshold)
      return `The organization has ${balance.availableCredits} credits available, below the \`lowBalanceThreshold\` of ${threshold}: ask an admin to top up before scans are refused.`;
  } catch (error) {
    log.warn({ err: error }, "balance not read");
  }
  return undefined;
}

/**
 * Collects the report's extras; every part fails soft (a log line, the part left out), so a ledger or
 * contents hiccup never costs the report:
 * - whether the committed guidance file exists at the scanned commit, its size (flagged over 100,000
 *   characters) and a link to it there; the pull request's change of it, prominently;
 * - credits: the budget reserved and, from the usage ledger, the credits the scan spent (deductions less
 *   refunds), whether settlement is in, and whether the scan ran short of budget (spend = budget);
 * - the token's problems (missing scopes, expiry within 14 days, allowlist), logged once per process;
 * - a low-balance warning under `lowBalanceThreshold`; a whole-repository note.
 */
export async function collectReportExtras(
  rt: ExtrasRuntime,
  octokit: InstallationOctokit,
  tenant: ScannerTenant,
  d: ExtrasScan,
  creditBudget: number | undefined,
  log: Logger,
): Promise<ReportExtras> {
  const path = rt.settings.guidanceFile;
  const { guidance, warnings } = await readGuidance(octokit, d, path, log);
  if (d.guidanceChange) warnings.unshift(guidanceChangeWarning(path, d.guidanceChange));
  const credits = await readCredits(tenant, d, creditBudget, rt.now(), log);

  for (const p of tokenProblems(tenant.token, { repositoryId: d.config.repositoryId, now: rt.now() })) {
    warnings.push(p);
    if (!loggedTokenProblems.has(p)) {
      loggedTokenProblems.add(p);
      log.warn({ problem: p }, "scanner token problem");
    }
  }
  const low = await lowBalanceWarning(tenant, d.config.lowBalanceThreshold, log);
  if (low) warnings.push(low);
  if (d.wholeRepository) {
    warnings.push(
      `The preset \`${d.presetRef}\` scans the whole repository (it refused a base commit), so findings outside this pull request's diff are listed here, not commented inline.`,
    );
  }
  return {
    ...(guidance ? { guidance } : {}),
    ...(credits ? { credits } : {}),
    warnings,
    ...(d.guidanceChange && d.guidanceChange.status !== "removed"
      ? {
          guidanceAnnotation: {
            path,
            start_line: 1,
            end_line: 1,
            annotation_level: "warning" as const,
            title: "Guidance file changed in this pull request",
            message: `This pull request changes ${path} (+${d.guidanceChange.additions} −${d.guidanceChange.deletions} lines); its scan ran with this version, which steers what the scanner reports.`,
          },
        }
      : {}),
  };
}
