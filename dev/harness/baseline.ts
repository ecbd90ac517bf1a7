import { pushPayload, type CheckRun } from "../github-standin/index.js";
import type { Harness } from "./harness.js";

/** What {@link demoBaseline} shows. */
export interface BaselineShown {
  /** the baseline's completed `diffward` check run on the pushed commit */
  run: CheckRun;
  /** the scan the service received for the commit */
  scanId: string;
  /** the SARIF uploads GitHub received for `refs/heads/<default branch>` */
  uploads: number;
  /** from sending `push` to the completed check run, in ms */
  tookMs: number;
}

/**
 * The demo's baseline step (README "Default-branch baselines"): sends the real `push` payload of a push of
 * `headSha` to the repository's default branch (whose `.github/diffward.yml` has `baseline: {on: push}`), and
 * waits for the commit's completed `diffward` check run and its scan's report.
 * @throws Error when the check run does not complete within `timeoutMs`.
 */
export async function demoBaseline(
  h: Harness,
  repo: { owner: string; repo: string; defaultBranch: string },
  headSha: string,
  timeoutMs = 60_000,
): Promise<BaselineShown> {
  const started = Date.now();
  const ack = await h.send(
    "push",
    pushPayload(h.github.state, { owner: repo.owner, repo: repo.repo, after: headSha }),
  );
  if (ack.status !== 200) throw new Error(`push delivery answered ${ack.status}`);
  const run = await h.waitFor(
    () =>
      h.github.state
        .checkRuns(repo.owner, repo.repo)
        .find((c) => c.headSha === headSha && c.status === "completed"),
    timeoutMs,
    "the baseline's check run to complete",
  );
  const scan = [...h.sandbox.state.scans.values()].find((s) => s.commitHash === headSha);
  if (!scan) throw new Error("the baseline launched no scan");
  const ref = `refs/heads/${repo.defaultBranch}`;
  return {
    run,
    scanId: scan.id,
    uploads: h.github.state.sarifUploads(repo.owner, repo.repo).filter((u) => u.ref === ref).length,
    tookMs: Date.now() - started,
  };
}
