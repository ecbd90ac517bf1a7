import { z } from "zod";
import type { PullRequest, Repository, Installation, StandInState } from "./state.js";
import { PullRequestFile } from "./state.js";
import { TeamMembershipState } from "./team-memberships.js";

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
 * files per ref, collaborator roles, and team memberships (`teams`: `org/team-slug` → login → `active` or
 * `pending`).
 */
export const SeedExtra = z.object({
  installationId: z.number().int().positive().optional(),
  files: z.array(PullRequestFile).default([]),
  mergeBaseSha: z.string().optional(),
  repoFiles: z.record(z.string(), z.record(z.string(), z.string())).default({}),
  permissions: z
    .record(z.string(), z.enum(["admin", "maintain", "write", "triage", "read", "none"]))
    .default({}),
  teams: z
    .record(z.string().regex(/^[^/]+\/[^/]+$/, "org/team-slug"), z.record(z.string(), TeamMembershipState))
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
  for (const [team, members] of Object.entries(x.teams)) {
    const [org = "", slug = ""] = team.split("/");
    for (const [login, membership] of Object.entries(members))
      state.teams.setMembership(org, slug, login, membership);
  }
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

/** `seedOrganization()` input: one installation on an organization, its repositories and open pull requests. */
export const SeedOrganizationInput = z.object({
  installationId: z.number().int().positive(),
  login: z.string().min(1),
  repositories: z.number().int().nonnegative(),
  pullsPerRepository: z.number().int().nonnegative().default(0),
  /** open pull requests of the whole organization, spread evenly over its repositories (instead of per repository) */
  pulls: z.number().int().nonnegative().optional(),
  /** `.github/diffward.yml` of the default branch per repository index; `null`: none */
  config: z.custom<(index: number) => string | null>((v) => typeof v === "function").optional(),
  /** `.github/diffward.yml` of the organization's `.github` repository (inherited by repositories without one) */
  organizationConfig: z.string().optional(),
  /** repository names: `<prefix><index>` */
  repositoryPrefix: z.string().default("repo-"),
});
export type SeedOrganizationInput = z.input<typeof SeedOrganizationInput>;

/**
 * Seeds an organization the way a large installation looks: `repositories` repositories (`main` default
 * branch, each with the config `config(i)` returns), `pullsPerRepository` open pull requests in each (or `pulls` in all, spread evenly; heads
 * `<i>`-derived SHAs, no check runs), and the organization's `.github` repository when `organizationConfig` is
 * given. Used by reconciliation's tests and the bench's `--reconcile` run.
 * @returns the repositories created, in index order (without `.github`).
 * @throws ZodError for invalid input.
 */
export function seedOrganization(state: StandInState, input: SeedOrganizationInput): Repository[] {
  const o = SeedOrganizationInput.parse(input);
  const account = { login: o.login, type: "Organization" as const };
  if (!state.installation(o.installationId)) state.addInstallation({ id: o.installationId, account });
  if (o.organizationConfig !== undefined)
    state.addRepository({
      owner: o.login,
      name: ".github",
      installationId: o.installationId,
      files: { main: { ".github/diffward.yml": o.organizationConfig } },
    });
  const out: Repository[] = [];
  const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
  for (let i = 0; i < o.repositories; i++) {
    const config = o.config?.(i) ?? null;
    const repo = state.addRepository({
      owner: o.login,
      name: `${o.repositoryPrefix}${i}`,
      installationId: o.installationId,
      files: config === null ? {} : { main: { ".github/diffward.yml": config } },
    });
    out.push(repo);
    const count =
      o.pulls === undefined
        ? o.pullsPerRepository
        : Math.floor(((i + 1) * o.pulls) / o.repositories) - Math.floor((i * o.pulls) / o.repositories);
    for (let n = 1; n <= count; n++) {
      const tag = `${hex(o.installationId, 8)}${hex(i, 8)}${hex(n, 8)}`;
      state.addPullRequest({
        owner: o.login,
        repo: repo.name,
        number: n,
        head: { sha: `a${tag}`.padEnd(40, "0"), ref: `feature-${n}` },
        base: { sha: `b${tag}`.padEnd(40, "0"), ref: "main" },
        mergeBaseSha: `b${tag}`.padEnd(40, "0"),
        user: { login: "octocat", type: "User" },
      });
    }
  }
  return out;
}
