/**
 * The check run outputs of a launch diffward refuses itself, before any credit is reserved: what the service
 * would refuse anyway (preset, budget, audit areas: src/policy/preflight.ts) and the repository's monthly
 * credit cap (src/policy/credit-cap.ts). Each says what happened and what to do next.
 */
import type { CheckRunOutput } from "../github/check-runs.js";
import type { ScanPreset } from "../scanner/schemas.js";
import { inlineCode, neutralize } from "./escape.js";
import { bullets, sections } from "./markdown.js";

/** The service's presets as a list to choose from: ref, name and minimum budget (spec "Limits"). */
function presetChoices(presets: readonly Pick<ScanPreset, "ref" | "name" | "minCredits">[]): string {
  return bullets(
    presets.map(
      (p) =>
        `${inlineCode(p.ref)} — ${neutralize(p.name)}${p.minCredits > 0 ? ` (at least ${p.minCredits} credits)` : ""}`,
    ),
  );
}

/** Output of a launch whose `preset` is not one of the service's presets (`GET …/scan-presets`). */
export function renderUnknownPreset(
  presetRef: string,
  presets: readonly Pick<ScanPreset, "ref" | "name" | "minCredits">[],
): CheckRunOutput {
  return {
    title: `Unknown preset ${presetRef}`,
    summary: sections(
      `**What happened:** the preset ${inlineCode(presetRef)} is not one of the service's presets, so no scan was launched and no credits were reserved.`,
      "**What next:** set `preset` in `.github/diffward.yml` (or the app's `SCANNER_DIFF_PRESET`) to one of:",
      presetChoices(presets),
    ),
  };
}

/** Output of a launch whose `creditBudget` (credits) is below its preset's `minCredits` (spec "Limits"). */
export function renderBudgetBelowMinimum(
  creditBudget: number,
  preset: Pick<ScanPreset, "ref" | "minCredits">,
  presets: readonly Pick<ScanPreset, "ref" | "name" | "minCredits">[],
): CheckRunOutput {
  return {
    title: `Credit budget below the preset's minimum (${preset.minCredits})`,
    summary: sections(
      `**What happened:** \`creditBudget: ${creditBudget}\` is below the ${preset.minCredits} credits the preset ${inlineCode(preset.ref)} needs, so the service would refuse the scan; nothing was reserved.`,
      `**What next:** raise \`creditBudget\` to at least ${preset.minCredits}, remove it to use the service's recommended budget, or choose another preset:`,
      presetChoices(presets),
    ),
  };
}

/**
 * Output of a launch whose `auditAreas` names keys the current map of `branch` does not (spec "Launch rules"
 * 2: the service refuses them, keys are never silently dropped). The title is cut to 200 characters.
 */
export function renderUnknownAuditAreas(
  unknown: readonly string[],
  current: readonly string[],
  branch: string,
): CheckRunOutput {
  return {
    title: `Unknown audit area${unknown.length === 1 ? "" : "s"}: ${unknown.join(", ")}`.slice(0, 200),
    summary: sections(
      `**What happened:** \`auditAreas\` names ${unknown.map(inlineCode).join(", ")}, which the current map of ${inlineCode(branch)} no longer names. The service refuses such a launch (keys are never silently dropped), so nothing was launched or reserved.`,
      current.length > 0
        ? `**What next:** use current keys in \`.github/diffward.yml\`:\n\n${bullets(current.map(inlineCode))}`
        : "**What next:** the repository has no current audit areas: remove `auditAreas` to scan the whole change.",
    ),
  };
}

/**
 * Output of a launch the monthly cap refused: the cap, what is spent and held by scans in flight, the budget
 * this launch needed (all in credits), when the cap resets (`resetsOn`, a UTC date `YYYY-MM-DD`) and what to do.
 */
export function renderCapReached(r: {
  cap: number;
  counted: number;
  held: number;
  wanted: number;
  resetsOn: string;
}): CheckRunOutput {
  return {
    title: `Monthly credit cap reached (${r.counted} of ${r.cap} credits spent or reserved)`,
    summary: sections(
      `**What happened:** scans of this repository spent ${r.counted - r.held} credits this month (UTC)` +
        (r.held > 0 ? ` and scans in flight hold ${r.held} more` : "") +
        `, and \`creditCap.monthly\` is ${r.cap}; this scan needs a budget of ${r.wanted} credits, which would pass it. No scan was launched and no credits were reserved.`,
      `**What next:** the cap resets on ${r.resetsOn} (UTC). Scans in flight give back what they do not spend when they settle. An admin can raise \`creditCap.monthly\` (or lower \`creditBudget\`) in \`.github/diffward.yml\`, then re-run this check.`,
    ),
  };
}
