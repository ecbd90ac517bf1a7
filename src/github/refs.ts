import { listAll } from "./octokit-types.js";

/** The prefix of GitHub's merge-queue branches, as a `matching-refs` argument (`heads/<branch prefix>`). */
export const MERGE_QUEUE_REF_PREFIX = "heads/gh-readonly-queue/";

/** A branch or tag and the object it points at. */
export interface GitRef {
  /** the full ref, e.g. `refs/heads/gh-readonly-queue/main/pr-104-<sha>` */
  ref: string;
  /** the SHA of the object the ref points at */
  sha: string;
  /** the object's type (`commit` for a branch) */
  type: string;
}

/**
 * The refs of a repository whose name starts with `refs/<prefix>`: GitHub REST "List matching references"
 * (`GET /repos/{owner}/{repo}/git/matching-refs/{ref}`; an array of `git-ref` objects, of which `ref` and
 * `object.{sha,type}` are read; `[]` when none match; paginated by `Link`). With
 * {@link MERGE_QUEUE_REF_PREFIX} these are the merge groups that exist now: GitHub's merge queue builds each
 * group on a temporary branch `gh-readonly-queue/<base>/pr-<n>-<sha>` and deletes it when the group is
 * destroyed (merged, dequeued, invalidated).
 * @param prefix `heads/<branch prefix>` or `tags/<tag prefix>` (GitHub's format for `:ref`).
 * @throws Octokit's RequestError on any non-2xx answer (409 for an empty repository included).
 */
export const listMatchingRefs = listAll(
  (octokit, repo, prefix: string) =>
    octokit.paginate(octokit.rest.git.listMatchingRefs, { ...repo, ref: prefix }),
  (r): GitRef => ({ ref: r.ref, sha: r.object.sha, type: r.object.type }),
);
