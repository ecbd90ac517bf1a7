import { createRequire } from "node:module";
import type { StandInState } from "./state.js";

const require = createRequire(import.meta.url);

interface ExampleGroup {
  name: string;
  examples: Array<Record<string, unknown> & { ref?: string; installation?: unknown }>;
}

/** What {@link pushPayload} pushes. */
export interface PushInput {
  owner: string;
  repo: string;
  /** the full ref pushed; default `refs/heads/<default branch>` */
  ref?: string;
  /** the commit the ref points at after the push; omitted with `deleted` */
  after?: string;
  /** the commit before the push; all zeros for a created ref */
  before?: string;
  /** the push deleted the ref (`after` is all zeros) */
  deleted?: boolean;
  /** `repository.pushed_at`, s since epoch; default now */
  pushedAt?: number;
  /** `head_commit.message` */
  message?: string;
}

const ZERO = "0".repeat(40);

/**
 * The `push` webhook payload GitHub sends for a push (docs: "Webhook events and payloads", `push`), built on
 * the real branch-push example of `@octokit/webhooks-examples` (deep-copied; the example with an
 * `installation`): `ref`, `before`, `after`, `created`, `deleted`, `head_commit` and `commits`, the repository
 * (id, name, owner, visibility, default branch, `pushed_at`, URLs) and the installation from the stand-in's
 * state. A push to a branch also moves that branch in the state (List matching references shows it); a
 * deletion removes it.
 * @throws Error when the repository is unknown to the state.
 */
export function pushPayload(state: StandInState, input: PushInput): Record<string, unknown> {
  const repo = state.repository(input.owner, input.repo);
  if (repo === undefined) throw new Error(`unknown repository ${input.owner}/${input.repo}`);
  const examples = require("@octokit/webhooks-examples/api.github.com/index.json") as ExampleGroup[];
  const example = examples
    .find((g) => g.name === "push")
    ?.examples.find((e) => e.ref?.startsWith("refs/heads/") && e.installation);
  if (!example) throw new Error("no branch push example with an installation in @octokit/webhooks-examples");
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a raw webhook payload, edited in place
  const p: any = structuredClone(example);
  const ref = input.ref ?? `refs/heads/${repo.defaultBranch}`;
  const deleted = input.deleted ?? false;
  const after = deleted ? ZERO : (input.after ?? ZERO);
  const before = input.before ?? ZERO;
  const html = `https://github.com/${repo.owner}/${repo.name}`;
  p.ref = ref;
  p.before = before;
  p.after = after;
  p.created = before === ZERO && !deleted;
  p.deleted = deleted;
  p.forced = false;
  p.compare = `${html}/compare/${before.slice(0, 12)}...${after.slice(0, 12)}`;
  const commit = deleted
    ? null
    : {
        ...(p.head_commit ?? {}),
        id: after,
        tree_id: after,
        message: input.message ?? `Update ${ref.replace(/^refs\/(heads|tags)\//, "")}`,
        url: `${html}/commit/${after}`,
      };
  p.head_commit = commit;
  p.commits = commit ? [commit] : [];
  p.repository = {
    ...p.repository,
    id: repo.id,
    name: repo.name,
    full_name: `${repo.owner}/${repo.name}`,
    private: repo.private,
    default_branch: repo.defaultBranch,
    master_branch: repo.defaultBranch,
    html_url: html,
    url: html,
    pushed_at: input.pushedAt ?? Math.floor(Date.now() / 1000),
    owner: { ...p.repository.owner, login: repo.owner, name: repo.owner, id: state.userId(repo.owner) },
  };
  if (p.organization) p.organization = { ...p.organization, login: repo.owner };
  p.installation = { ...p.installation, id: repo.installationId };
  if (ref.startsWith("refs/heads/"))
    state.setBranchHead(repo.owner, repo.name, ref.slice("refs/heads/".length), deleted ? undefined : after);
  return p as Record<string, unknown>;
}
