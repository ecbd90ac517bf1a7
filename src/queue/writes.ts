import { sendWrite, type GitHubWrite, type WriteResult } from "../github/writes.js";
import type { Runtime } from "./runtime.js";

/**
 * The one apply step of the pull-request, launch, poll and report jobs: sends their planned GitHub writes
 * for one installation, in the order given, each after the previous one answered. A `bestEffort` write
 * that fails is logged and yields `{ kind: "failed" }`; the next writes still go out.
 * @returns one result per write, in order (the ids of created check runs and reviews).
 * @throws Octokit's `RequestError` of the first other write that failed; later writes are not sent.
 */
export async function applyWrites(
  rt: Runtime,
  installationId: number,
  writes: readonly GitHubWrite[],
): Promise<WriteResult[]> {
  if (writes.length === 0) return [];
  const octokit = await rt.octokit(installationId);
  const results: WriteResult[] = [];
  for (const w of writes) {
    try {
      results.push(await sendWrite(octokit, w));
    } catch (error) {
      if (!w.bestEffort) throw error;
      const message = (error as Error).message;
      rt.log.warn({ err: message, write: w.kind, installation: installationId }, "GitHub write failed");
      results.push({ kind: "failed", message });
    }
  }
  return results;
}

/** The id of the check run a list of results created, if any. */
export function createdCheckRunId(results: readonly WriteResult[]): number | undefined {
  for (const r of results) if (r.kind === "create-check-run") return r.checkRunId;
  return undefined;
}
