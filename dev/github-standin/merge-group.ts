import { createRequire } from "node:module";
import type { MergeGroup, StandInState } from "./state.js";

const require = createRequire(import.meta.url);

interface ExampleGroup {
  name: string;
  examples: Array<Record<string, unknown> & { action?: string }>;
}

/**
 * The `merge_group` webhook payload GitHub sends for `group` (docs: "Webhook events and payloads",
 * `merge_group`), built on the real `checks_requested` example of `@octokit/webhooks-examples` (deep-copied):
 * `merge_group` (head and base SHA and ref), the repository (id, name, owner, visibility, default branch,
 * URLs) and the installation come from the stand-in's state. `destroyed` sets `action` and `reason`
 * (`merged`, `dequeued` or `invalidated`; the examples package has no `destroyed` example, and GitHub
 * documents this payload as the same shape plus `reason`).
 * @throws Error when the repository is unknown to the state.
 */
export function mergeGroupPayload(
  state: StandInState,
  group: MergeGroup,
  action: "checks_requested" | "destroyed",
  reason: NonNullable<MergeGroup["destroyed"]> = group.destroyed ?? "dequeued",
): Record<string, unknown> {
  const repo = state.repository(group.owner, group.repo);
  if (repo === undefined) throw new Error(`unknown repository ${group.owner}/${group.repo}`);
  const examples = require("@octokit/webhooks-examples/api.github.com/index.json") as ExampleGroup[];
  const example = examples
    .find((g) => g.name === "merge_group")
    ?.examples.find((e) => e.action === "checks_requested");
  if (!example) throw new Error("no merge_group.checks_requested example in @octokit/webhooks-examples");
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a raw webhook payload, edited in place
  const p: any = structuredClone(example);
  p.action = action;
  if (action === "destroyed") p.reason = reason;
  p.merge_group.head_sha = group.headSha;
  p.merge_group.head_ref = group.headRef;
  p.merge_group.base_sha = group.baseSha;
  p.merge_group.base_ref = group.baseRef;
  p.merge_group.head_commit.id = group.headSha;
  p.merge_group.head_commit.message = `Merge pull request #${group.pullNumber}`;
  const html = `https://github.com/${repo.owner}/${repo.name}`;
  p.repository = {
    ...p.repository,
    id: repo.id,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    private: repo.private,
    default_branch: repo.defaultBranch,
    html_url: html,
    url: `https://api.github.com/repos/${repo.owner}/${repo.name}`,
    owner: { ...p.repository.owner, login: repo.owner, id: state.userId(repo.owner) },
  };
  if (p.organization) p.organization = { ...p.organization, login: repo.owner };
  p.installation = { ...p.installation, id: repo.installationId };
  return p as Record<string, unknown>;
}
