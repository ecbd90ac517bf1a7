import type { Logger } from "pino";
import { createCheck, updateCheck } from "../github/writes.js";
import type { ReportFinding } from "../domain/finding-types.js";
import type { Verdict } from "../domain/verdict.js";
import type { Disclosure } from "../domain/finding-types.js";
import type { CheckRunOutput } from "../github/check-runs.js";
import { toReportFinding } from "../report/decide/findings.js";
import { withRecomputedCheck } from "../report/decide/report-state.js";
import {
  annotationsDigest,
  renderPullVerdict,
  withCurrentFindings,
} from "../report/decide/current-verdict.js";
import { batches } from "../render/annotations.js";
import type { ScannerTenant } from "../tenants/index.js";
import { readPullDecisions, withDecisionFacts } from "./decisions.js";
import { pullKey } from "../runtime/names.js";
import type { Runtime } from "../runtime/runtime.js";
import { applyWrites, createdCheckRunId } from "../runtime/apply-writes.js";

/** The details of a recomputed check run in full disclosure when no finding is open any more. */
export const NOTHING_OPEN_TEXT = "No open finding: nothing to detail.";

/**
 * The output of an in-place recompute: `output.text` is always sent under `disclosure: full`. GitHub's
 * "Update a check run" documents `output.text` as optional and does not say that leaving it out clears
 * it; the stand-in (dev/github-standin/routes.ts) keeps the stored text when a PATCH leaves it out. So
 * every PATCH diffward sends with an `output` carries the whole output (summary and details together,
 * never one without the other), and when the details have emptied (the last open finding was ruled out)
 * a short text replaces the old findings' details instead of leaving them standing. Pure.
 */
export function inPlaceOutput(output: CheckRunOutput, disclosure: Disclosure): CheckRunOutput {
  return disclosure === "full" ? { ...output, text: output.text ?? NOTHING_OPEN_TEXT } : output;
}

/**
 * The check run follows the decisions: re-reads every finding of the pull request's last reported scan from
 * the service (`GET …/findings?scanId=…`, pages of 100) and renders the current verdict, summary and
 * annotations with `renderPullVerdict` (`src/report/decide/current-verdict.ts`, the builders the report uses). Then:
 *
 * - when the annotations are the ones the current check run already carries (same digest), the run is
 *   updated in place (GitHub REST "Update a check run");
 * - otherwise a **fresh `diffward` check run** is created on the same head with the current annotations
 *   (in batches of 50), because GitHub appends annotations on every update and never removes one ("Each
 *   time you update the check run, annotations are appended to the list of annotations that already exist
 *   for the check run", REST "Update a check run"). The PR's checks list shows the latest run of a name
 *   (REST "List check runs for a Git reference", `filter=latest`), so a finding ruled out by `/fp` no
 *   longer shows a failure annotation. The stored report then points at the new run (settlement, the merge
 *   queue's reuse rule and later recomputes follow it).
 *
 * Triaging the last blocking finding turns the check `success`; reopening one turns it `failure`. The writes
 * are planned and applied through the installation's write path (`applyWrites`), as answers to the person
 * whose decision changed the verdict.
 * @returns the new verdict, or `undefined` when the pull request has no reported scan.
 */
export async function recomputeCheck(
  rt: Runtime,
  installationId: number,
  tenant: ScannerTenant,
  pull: { owner: string; repo: string; pullNumber: number },
  log: Logger,
): Promise<Verdict | undefined> {
  const key = pullKey(pull.owner, pull.repo, pull.pullNumber);
  const report = await rt.stores.reports.get(key);
  if (!report) return undefined;
  const read: ReportFinding[] = [];
  for await (const f of tenant.client.iterateFindings(report.projectId, {
    scanId: report.scanId,
    limit: 100,
  }))
    read.push(toReportFinding(f));
  // decisions carried by fingerprint or shape keep saying so (src/domain/identity.ts), acceptances their expiry
  const findings = withDecisionFacts(await readPullDecisions(rt, key, log), read);
  const rendered = renderPullVerdict(report, findings, {
    labelPrefix: rt.settings.labelPrefix,
    ...(rt.settings.publicUrl ? { publicUrl: rt.settings.publicUrl } : {}),
  });
  const digest = annotationsDigest(rendered.annotations);
  let checkRunId = report.checkRunId;
  if (digest === report.annotationsDigest) {
    const check = {
      conclusion: rendered.conclusion,
      output: inPlaceOutput(rendered.output, report.config.disclosure ?? "full"),
    };
    await applyWrites(rt, installationId, [updateCheck(pull, checkRunId, check, "answer")]);
  } else {
    const [first = [], ...rest] = batches(rendered.annotations);
    const created = await applyWrites(rt, installationId, [
      createCheck(pull, report.headSha, {
        status: "completed",
        conclusion: rendered.conclusion,
        externalId: report.scanId,
        output: { ...rendered.output, annotations: first },
      }),
    ]);
    checkRunId = createdCheckRunId(created)!;
    // the details ride along: see `inPlaceOutput`
    const more = rest.map((batch) =>
      updateCheck(pull, checkRunId, { output: { ...rendered.output, annotations: batch } }, "answer"),
    );
    await applyWrites(rt, installationId, more);
  }

  // Keep the stored report in step, unless a newer report replaced it meanwhile.
  const latest = await rt.stores.reports.get(key);
  if (latest && latest.scanId === report.scanId) {
    await rt.stores.reports.put(
      key,
      withRecomputedCheck(withCurrentFindings(latest, findings), { checkRunId, annotationsDigest: digest }),
    );
  }
  const { verdict } = rendered;
  log.info(
    {
      conclusion: verdict.conclusion,
      blocking: verdict.blocking,
      freshCheckRun: checkRunId !== report.checkRunId,
      annotations: rendered.annotations.length,
    },
    "check run recomputed",
  );
  return verdict;
}
