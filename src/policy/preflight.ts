import {
  renderBudgetBelowMinimum,
  renderUnknownAuditAreas,
  renderUnknownPreset,
} from "../render/launch-refusals.js";
import { presetsOf } from "../tenants/presets.js";
import type { ScannerTenant } from "../tenants/index.js";

/**
 * A launch diffward refuses itself before any credit is reserved: the check run's conclusion and its output
 * (title and Markdown summary, from src/render/launch-refusals.ts).
 */
export interface LaunchRefusal {
  conclusion: "failure" | "action_required";
  title: string;
  summary: string;
}

/** What the launch is about to ask for. */
export interface PreflightInput {
  repositoryId: string;
  presetRef: string;
  /** credits; omitted = the service's recommended budget */
  creditBudget?: number;
  auditAreaKeys?: readonly string[];
  /** the branch whose map names the current audit areas (the default branch) */
  defaultBranch: string;
}

/** Passed checks carry what the launch needs to know. */
export type PreflightResult =
  { ok: true; presetName?: string; minCredits?: number } | ({ ok: false } & LaunchRefusal);

/**
 * Checks, before any credit is reserved, what the service would refuse or what diffward must hold back
 * (README "Guidance, spend and approvals"):
 * - the preset ref exists in `GET …/scan-presets`, and `creditBudget` is at least its `minCredits`
 *   when that is above 0 (spec §Limits) → else `failure` listing the valid presets;
 * - every `auditAreas` key is named by the default branch's current map (spec §Scans, launch rule 2 refuses the
 *   others: keys are never silently dropped) → else `failure` naming the key and the current keys.
 * `creditCap.monthly` is not checked here: the launch job reserves the scan's budget atomically in the cap
 * ledger (`src/stores/cap-ledger.ts`, refusal text from `capRefusal` in `credit-cap.ts`) right before its POST.
 * Service errors propagate (the job retries them).
 */
export async function preflight(tenant: ScannerTenant, input: PreflightInput): Promise<PreflightResult> {
  const presets = await presetsOf(tenant);
  const preset = presets.find((p) => p.ref === input.presetRef);
  if (!preset) return refused(renderUnknownPreset(input.presetRef, presets));
  if (input.creditBudget !== undefined && preset.minCredits > 0 && input.creditBudget < preset.minCredits) {
    return refused(renderBudgetBelowMinimum(input.creditBudget, preset, presets));
  }
  if (input.auditAreaKeys && input.auditAreaKeys.length > 0) {
    const list = await tenant.client.listAuditAreas(tenant.projectId, input.repositoryId, {
      branch: input.defaultBranch,
    });
    const current = list.areas.filter((a) => a.inCurrentMap !== false).map((a) => a.key);
    const unknown = input.auditAreaKeys.filter((k) => !current.includes(k));
    if (unknown.length > 0) {
      return refused(renderUnknownAuditAreas(unknown, current, list.branch ?? input.defaultBranch));
    }
  }
  return { ok: true, presetName: preset.name, minCredits: preset.minCredits };
}

function refused(output: { title: string; summary: string }): PreflightResult {
  return { ok: false, conclusion: "failure", title: output.title, summary: output.summary };
}
