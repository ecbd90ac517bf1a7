/**
 * The check run outputs of the baseline room's own steps (`baseline:` in `.github/diffward.yml`): queued, not
 * scanned for want of a token, superseded by a newer push, and the note above a completed baseline's report.
 * Its refusals, which the launch job concludes with too, are `src/render/baseline-refusals.ts`. Each says what
 * happened, why and what to do next.
 */
import type { BaselineTrigger } from "../domain/baseline.js";
import type { CheckRunOutput } from "../github/check-runs.js";
import { inlineCode } from "../render/escape.js";
import { shortSha } from "../render/format.js";
import { sections } from "../render/markdown.js";
import type { ScanPreset } from "../scanner/schemas.js";

/** Output of a baseline waiting for its launch (the debounce window of a push, or the launch queue). */
export function renderBaselineQueued(x: {
  branch: string;
  headSha: string;
  presetRef: string;
  trigger: BaselineTrigger;
  debounceSeconds: number;
}): CheckRunOutput {
  const why =
    x.trigger === "push"
      ? `A push to ${inlineCode(x.branch)} (\`baseline.on: push\`).${x.debounceSeconds > 0 ? ` The scan launches in ${x.debounceSeconds} s unless a newer push replaces this commit.` : ""}`
      : `The scheduled baseline of ${inlineCode(x.branch)} (\`baseline.on: schedule\`).`;
  return {
    title: `Baseline of ${x.branch} queued`,
    summary: sections(
      `**Baseline scan** of ${shortSha(x.headSha)} on ${inlineCode(x.branch)}: the whole repository with the preset ${inlineCode(x.presetRef)}, so pull requests can tell findings already open on ${inlineCode(x.branch)} from new ones.`,
      why,
    ),
  };
}

/** The problem of a baseline preset the service does not list, with the refs it does. */
export function unknownPresetProblem(presetRef: string, presets: readonly Pick<ScanPreset, "ref">[]): string {
  return `baseline.preset: "${presetRef}" is not one of the service's presets (${presets.map((p) => p.ref).join(", ") || "none listed"})`;
}

/** Output of a baseline that needs a scanner token the installation does not have (neutral). */
export function renderBaselineNoToken(): CheckRunOutput {
  return {
    title: "Baseline not scanned: no scanning service token",
    summary: sections(
      "**What happened:** diffward did not scan this commit.",
      "**Why:** no scanning service token is configured for this installation.",
      "**What next:** create a token with the `read`, `scans:launch` and `findings:write` scopes in the scanning service and register it with diffward; the next push or scheduled baseline scans.",
    ),
  };
}

/** Output of a baseline whose commit a newer push to the branch replaced (concluded `cancelled`). */
export function renderBaselineSuperseded(x: { bySha: string; branch: string }): CheckRunOutput {
  return {
    title: `Superseded by ${x.bySha.slice(0, 7)}`,
    summary: sections(
      `**What happened:** a newer push to ${inlineCode(x.branch)} (${shortSha(x.bySha)}) replaced this commit's baseline before it ended; its scan, if launched, was cancelled and its unused credits released.`,
      "**What next:** nothing: the newer commit's baseline is the one that counts.",
    ),
  };
}

/** The note above a completed baseline's report (the findings section follows it). */
export function renderBaselineNote(x: { branch: string; headSha: string; presetName: string }): string {
  return `**Baseline** of ${inlineCode(x.branch)} at ${shortSha(x.headSha)}: a whole-repository scan (${inlineCode(x.presetName)}), so the findings below are every finding open at this commit. No review is posted; pull requests into ${inlineCode(x.branch)} compare their findings with these.`;
}
