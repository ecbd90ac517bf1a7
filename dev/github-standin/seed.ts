import { z } from "zod";
import type { PullRequest, Repository, Installation, StandInState } from "./state.js";
import { PullRequestFile } from "./state.js";

const Owner = z.looseObject({
  login: z.string(),
  type: z.enum(["User", "Organization", "Bot"]).catch("User"),
});

/** The parts of a `pull_request` webhook payload the seed reads (docs: webhook events, "pull_request"). */
export const PullRequestEventPayload = z.looseObject({
  number: z.number().int().positive(),
  installation: z.looseObject({ id: z.number().int().positive() }).optional(),
  repository: z.looseObject({
    id: z.number().int().positive(),
    name: z.string(),
    private: z.boolean(),
    default_branch: z.string(),
    owner: Owner,
  }),
  pull_request: z.looseObject({
    title: z.string(),
    body: z.string().nullable().optional(),
    state: z.enum(["open", "closed"]),
    draft: z.boolean().optional(),
    user: Owner,
    head: z.looseObject({ sha: z.string(), ref: z.string() }),
    base: z.looseObject({ sha: z.string(), ref: z.string() }),
  }),
});
export type PullRequestEventPayload = z.infer<typeof PullRequestEventPayload>;

/**
 * What a webhook payload does not carry: the PR's files (with `patch`; omit it for a "too large" file),
 * the merge-base sha (default: `base.sha`), the installation id when the payload has none, repository
 * files per ref, and collaborator roles.
 */
export const SeedExtra = z.object({
  installationId: z.number().int().positive().optional(),
  files: z.array(PullRequestFile).default([]),
  mergeBaseSha: z.string().optional(),
  repoFiles: z.record(z.string(), z.record(z.string(), z.string())).default({}),
  permissions: z
    .record(z.string(), z.enum(["admin", "maintain", "write", "triage", "read", "none"]))
    .default({}),
});
export type SeedExtra = z.input<typeof SeedExtra>;

/** What {@link seedFromPullRequestEvent} created. */
export interface SeededPullRequest {
  installation: Installation;
  repository: Repository;
  pullRequest: PullRequest;
}

/**
 * Creates (or re-uses) the installation, repository and pull request of a real `pull_request` webhook
 * payload, e.g. one from `@octokit/webhooks-examples`.
 * @throws ZodError when the payload is not a `pull_request` event or lacks an installation id (give
 *   `extra.installationId`), or when `extra` is invalid.
 */
export function seedFromPullRequestEvent(
  state: StandInState,
  payload: unknown,
  extra: SeedExtra = {},
): SeededPullRequest {
  const p = PullRequestEventPayload.parse(payload);
  const x = SeedExtra.parse(extra);
  const installationId = z
    .number({ error: "the payload has no installation: pass extra.installationId" })
    .parse(x.installationId ?? p.installation?.id);
  const owner = p.repository.owner;
  const installation =
    state.installation(installationId) ?? state.addInstallation({ id: installationId, account: owner });
  const repository =
    state.repository(owner.login, p.repository.name) ??
    state.addRepository({
      owner: owner.login,
      name: p.repository.name,
      id: p.repository.id,
      installationId,
      private: p.repository.private,
      defaultBranch: p.repository.default_branch,
      files: x.repoFiles,
    });
  for (const [login, role] of Object.entries(x.permissions))
    state.setPermission(owner.login, p.repository.name, login, role);
  const pr = p.pull_request;
  const pullRequest = state.addPullRequest({
    owner: owner.login,
    repo: p.repository.name,
    number: p.number,
    title: pr.title,
    body: pr.body ?? null,
    head: { sha: pr.head.sha, ref: pr.head.ref },
    base: { sha: pr.base.sha, ref: pr.base.ref },
    mergeBaseSha: x.mergeBaseSha ?? pr.base.sha,
    user: pr.user,
    files: x.files,
    draft: pr.draft ?? false,
    state: pr.state,
  });
  return { installation, repository, pullRequest };
}
