/**
 * The check run's output while a scan is on its way: being prepared or queued, running (with its
 * progress), and a Re-run pressed again while the earlier Re-run's scan still runs.
 *
 * GitHub doc: "Update a check run" (`output.title`, `output.summary`, `output.text`, each summary
 * and text at most 65,535 bytes): https://docs.github.com/en/rest/checks/runs#update-a-check-run
 */

import type { CheckRunOutput } from "../github/check-runs.js";
import { DomainInputError } from "../domain/finding-types.js";
import { inlineCode } from "./escape.js";
import { sections } from "./markdown.js";
import { whatWhyNext } from "./what-why-next.js";

/**
 * Output while the scan waits to start (spec §Scan status: `QUEUED`, budget reserved at launch).
 * Without a scan id (the check run is created before the launch request is sent) it says diffward is
 * preparing the scan, never that the service accepted it.
 *
 * @param info scan id, preset and the budget the service reserved (credits), when known.
 */
export function renderQueued(
  info: { scanId?: string; presetName?: string; creditBudget?: number } = {},
): CheckRunOutput {
  const facts = [
    info.scanId && `Scan ${inlineCode(info.scanId)}`,
    info.presetName && `preset ${inlineCode(info.presetName)}`,
    info.creditBudget !== undefined && `${info.creditBudget} credits reserved`,
  ].filter((x): x is string => typeof x === "string");
  return {
    title: info.scanId ? "Scan queued" : "Preparing the scan",
    summary: sections(
      info.scanId ? "## ⏳ Scan queued" : "## ⏳ Preparing the scan",
      info.scanId
        ? "The scanning service accepted the scan and will start it shortly. This check updates as it runs."
        : "diffward is checking this pull request and will launch the scan shortly. This check updates as it runs.",
      facts.length > 0 && facts.join(" · "),
    ),
  };
}

/**
 * Output of a Re-run's check run while its scan is queued or running, when **Re-run** is pressed again for
 * the same commit: the press launches nothing (each launch is paid for), and the check run says so until
 * the scan's next progress or its report replaces it.
 *
 * @param info who pressed Re-run again (a GitHub login) and the running scan's id, when known.
 */
export function renderRerunInProgress(info: { requestedBy?: string; scanId?: string }): CheckRunOutput {
  const who = info.requestedBy ? inlineCode(`@${info.requestedBy}`) : "Someone";
  const scan = info.scanId ? ` (scan ${inlineCode(info.scanId)})` : "";
  return {
    title: "Re-run already in progress",
    summary: sections(
      "## ⏳ Re-run already in progress",
      whatWhyNext(
        `${who} pressed **Re-run** for this commit again; no second scan was launched.`,
        `The scan of an earlier Re-run of this commit is still queued or running${scan}, and every launch is paid for.`,
        "Nothing to do: this check updates as that scan runs. Press **Re-run** again once it has ended to scan this commit anew.",
      ),
    ),
  };
}

/**
 * Output while the scan runs (spec §Progress). `percent` is the service's weighted completion (each
 * phase counts by its share of the budget), so it is not `phasesCompleted / phasesTotal`; the spec
 * gives no time estimate, so none is shown.
 *
 * @param percent 0 to 100 (values above 100 are shown as 100)
 * @param phasesCompleted phases in a terminal state
 * @param phasesTotal phases the scan will run
 * @param status the scan status, `QUEUED` or `PROCESSING`
 * @throws DomainInputError when a number is negative, not an integer, or not finite.
 */
export function renderProgress(
  percent: number,
  phasesCompleted: number,
  phasesTotal: number,
  status: string,
): CheckRunOutput {
  const bad = Object.entries({ percent, phasesCompleted, phasesTotal })
    .filter(([, v]) => !Number.isSafeInteger(v) || v < 0)
    .map(([k, v]) => `${k}: expected a non-negative integer, got ${String(v)}`);
  if (bad.length > 0) throw new DomainInputError("invalid scan progress", bad);
  const pct = Math.min(100, percent);
  const filled = Math.round(pct / 10);
  const bar = `${"▰".repeat(filled)}${"▱".repeat(10 - filled)}`;
  const queued = status === "QUEUED";
  return {
    title: queued ? "Scan queued" : `Scanning: ${pct}%`,
    summary: sections(
      `## ${queued ? "⏳ Scan queued" : "🔎 Scanning"}`,
      `${bar} **${pct}%** · ${phasesCompleted} of ${phasesTotal} phases done · status ${inlineCode(status)}`,
      "The percentage weighs each phase by its share of the budget, so it can move unevenly. " +
        "The service gives no time estimate; this check updates as the scan runs.",
    ),
  };
}
