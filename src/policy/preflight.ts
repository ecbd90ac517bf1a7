import { inlineCode, neutralize } from "../render/escape.js";
import { bullets, sections } from "../render/markdown.js";
import { presetsOf } from "../tenants/presets.js";
import type { ScannerTenant } from "../tenants/index.js";

/** A check-run output diffward writes itself. */
export interface Verdict {
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
  { ok: true; presetName?: string; minCredits?: number } | ({ ok: false } & Verdict);

/**
 * Checks, before any credit is reserved, what the service would refuse or what diffward must hold back
 * (issue "Guidance, audit areas, presets, spend controls"):
 * - the preset ref exists in `GET …/scan-presets`, and `creditBudget` is at least its `minCredits`
 *   when that is above 0 (spec "Limits") → else `failure` listing the valid presets;
 * - every `auditAreas` key is named by the default branch's current map (launch rule 2 refuses the
 *   others: keys are never silently dropped) → else `failure` naming the key and the current keys.
 * `creditCap.monthly` is not checked here: the launch job reserves the scan's budget atomically in the cap
 * ledger (`src/runtime/cap-ledger.ts`, refusal text from `capRefusal` in `credit-cap.ts`) right before its POST.
 * Service errors propagate (the job retries them).
 */
export async function preflight(
  tenant: ScannerTenant,
  input: PreflightInput,
): Promise<PreflightResult> {
  const presets = await presetsOf(tenant);
  const preset = presets.find((p) => p.ref === input.presetRef);
  const choices = bullets(
    presets.map(
      (p) =>
        `${inlineCode(p.ref)} — ${neutralize(p.name)}${p.minCredits > 0 ? ` (at least ${p.minCredits} credits)` : ""}`,
    ),
  );
  if (!preset) {
    return {
      ok: false,
      conclusion: "failure",
      title: `Unknown preset ${input.presetRef}`,
      summary: sections(
        `**What happened:** the preset ${inlineCode(input.presetRef)} is not one of the service's presets, so no scan was launched and no credits were reserved.`,
        "**What next:** set `preset` in `.github/diffward.yml` (or the app's `SCANNER_DIFF_PRESET`) to one of:",
        choices,
      ),
    };
  }
  if (input.creditBudget !== undefined && preset.minCredits > 0 && input.creditBudget < preset.minCredits) {
    return {
      ok: false,
      conclusion: "failure",
      title: `Credit budget below the preset's minimum (${preset.minCredits})`,
      summary: sections(
        `**What happened:** \`creditBudget: ${input.creditBudget}\` is below the ${preset.minCredits} credits the preset ${inlineCode(preset.ref)} needs, so the service would refuse the scan; nothing was reserved.`,
        `**What next:** raise \`creditBudget\` to at least ${preset.minCredits}, remove it to use the service's recommended budget, or choose another preset:`,
        choices,
      ),
    };
  }
  if (input.auditAreaKeys && input.auditAreaKeys.length > 0) {
    const list = await tenant.client.listAuditAreas(tenant.projectId, input.repositoryId, {
      branch: input.defaultBranch,
    });
    const current = list.areas.filter((a) => a.inCurrentMap !== false).map((a) => a.key);
    const unknown = input.auditAreaKeys.filter((k) => !current.includes(k));
    if (unknown.length > 0) {
      return {
        ok: false,
        conclusion: "failure",
        title: `Unknown audit area${unknown.length === 1 ? "" : "s"}: ${unknown.join(", ")}`.slice(0, 200),
        summary: sections(
          `**What happened:** \`auditAreas\` names ${unknown.map(inlineCode).join(", ")}, which the current map of ${inlineCode(list.branch ?? input.defaultBranch)} no longer names. The service refuses such a launch (keys are never silently dropped), so nothing was launched or reserved.`,
          current.length > 0
            ? `**What next:** use current keys in \`.github/diffward.yml\`:\n\n${bullets(current.map(inlineCode))}`
            : "**What next:** the repository has no current audit areas: remove `auditAreas` to scan the whole change.",
        ),
      };
    }
  }
  return { ok: true, presetName: preset.name, minCredits: preset.minCredits };
}
