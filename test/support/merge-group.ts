/** Merge queue set-up of the scenario tests: a pull request's merge group in the GitHub stand-in. */
import type { Harness } from "../../dev/harness/harness.js";
import type { MergeGroup } from "../../dev/github-standin/state.js";
import { seedPull, type OpenOptions } from "./pr.js";

/**
 * Puts pull request `pr` into the merge queue: a merge group on `head` over `base` in the stand-in (nothing
 * sent). `ownBranch` names the group's branch after the group's head instead of the pull request's (GitHub's
 * `gh-readonly-queue/<base>/pr-<n>-<sha>` form), so two groups of one pull request have two branches.
 */
export function addGroup(
  h: Harness,
  pr: { owner: string; repo: string; number: number },
  head: string,
  base: string,
  ownBranch = false,
): MergeGroup {
  return h.github.state.addMergeGroup({
    owner: pr.owner,
    repo: pr.repo,
    pullNumber: pr.number,
    headSha: head,
    baseSha: base,
    ...(ownBranch ? { headRef: `refs/heads/gh-readonly-queue/main/pr-${pr.number}-${head}` } : {}),
  });
}

/** A pull request seeded with `o` (not sent) and its merge group on `group.head` over `group.base`. */
export function queuedPull(
  h: Harness,
  o: OpenOptions,
  group: { head: string; base: string; ownBranch?: boolean },
) {
  const pr = seedPull(h, o);
  return { pr, group: addGroup(h, pr, group.head, group.base, group.ownBranch) };
}
