/**
 * Acceptance expiries after a start: each pull request's rebuilt from the service's notes when the state was
 * lost ({@link rebuildPullExpiries}, per pull request of the sweep), and every one still recorded given its job
 * ({@link resumeAllExpiries}, at the end of every reconciliation). The rules are `src/triage/expiry.ts`'s.
 */
import type { FoundCheckRun } from "../../github/check-runs.js";
import type { PullHead } from "../../github/pulls.js";
import { pullKey } from "../../runtime/names.js";
import type { Runtime } from "../../runtime/runtime.js";
import { rebuildExpiries, resumeExpiries } from "../../triage/index.js";
import type { RepoPart } from "./repository-pass.js";
import type { ReconcileSummary } from "./summary.js";

/**
 * The expiries of a pull request's acceptances, rebuilt from the service's notes on the findings of its last
 * reported scan (the newest completed `diffward` check run on its head, `external_id`; `rebuildExpiries` in
 * src/triage/expiry.ts): after a flush they are diffward's only record. A failure is counted and logged; the
 * pull request's scan is still looked at.
 */
export async function rebuildPullExpiries(
  rt: Runtime,
  summary: ReconcileSummary,
  r: RepoPart,
  pr: PullHead,
  runs: readonly FoundCheckRun[],
): Promise<void> {
  const reported = runs
    .filter((c) => c.status === "completed" && c.externalId && c.headSha === pr.headSha)
    .sort((a, b) => b.id - a.id)[0];
  const tenant = reported?.externalId ? await rt.scanner.forAccount(r.accountLogin) : undefined;
  if (!reported?.externalId || !tenant) return;
  const log = rt.log.child({ job: "reconcile", pull: pullKey(r.owner, r.repo, pr.number) });
  try {
    const pull = {
      installationId: r.installationId,
      accountLogin: r.accountLogin,
      owner: r.owner,
      repo: r.repo,
    };
    await rebuildExpiries(rt, { ...pull, pullNumber: pr.number }, tenant, reported.externalId, log);
  } catch (error) {
    summary.errors += 1;
    log.warn({ err: error as Error }, "reconcile: acceptance expiries not rebuilt");
  }
}

/**
 * Gives every acceptance expiry still recorded its job (`resumeExpiries`: one failed for good is retried). A
 * failure is counted in the summary and logged; the reconciliation still ends.
 */
export async function resumeAllExpiries(
  rt: Runtime,
  summary: ReconcileSummary,
  log: Runtime["log"],
): Promise<void> {
  await resumeExpiries(rt, log).catch((error: Error) => {
    summary.errors += 1;
    log.warn({ err: error }, "reconcile: acceptance expiries not resumed");
  });
}
