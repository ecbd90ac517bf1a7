import type { Octokit } from "@octokit/rest";

/** An Octokit authenticated as a signed-in user (a GitHub App user access token, `ghu_…`). */
export type UserOctokit = Pick<Octokit, "rest" | "paginate">;

/** The signed-in user (`GET /user`, GitHub REST "Get the authenticated user"). */
export interface GitHubUser {
  login: string;
  id: number;
}

/** An installation of this App the user can access (`GET /user/installations`). */
export interface UserInstallation {
  id: number;
  account: string;
  kind: "Organization" | "User";
  /** `all` or `selected` repositories */
  repositorySelection: string;
}

/**
 * Who the token belongs to (GitHub REST "Get the authenticated user", `GET /user`).
 * @throws Octokit's `RequestError` (401 for a bad token)
 */
export async function readUser(octokit: UserOctokit): Promise<GitHubUser> {
  const { data } = await octokit.rest.users.getAuthenticated();
  return { login: data.login, id: data.id };
}

/**
 * The App's installations the user can access, every page (GitHub REST "List app installations accessible to
 * the user access token", `GET /user/installations`: "installations the authenticated user has explicit
 * permission (`:read`, `:write`, or `:admin`) to access").
 * @throws Octokit's `RequestError`
 */
export async function listUserInstallations(octokit: UserOctokit): Promise<UserInstallation[]> {
  const installations = await octokit.paginate(octokit.rest.apps.listInstallationsForAuthenticatedUser, {
    per_page: 100,
  });
  return installations.flatMap((i) => {
    const account = i.account && "login" in i.account ? i.account : undefined;
    if (!account) return [];
    const kind = account.type === "Organization" ? "Organization" : "User";
    return [{ id: i.id, account: account.login, kind, repositorySelection: i.repository_selection }];
  });
}

/**
 * The repositories (`owner/name`) of an installation the user can access, every page (GitHub REST "List
 * repositories accessible to the user access token", `GET /user/installations/{installation_id}/repositories`).
 * @throws Octokit's `RequestError` (404 when the installation is not the user's)
 */
export async function listUserInstallationRepositories(
  octokit: UserOctokit,
  installationId: number,
): Promise<string[]> {
  const repos = await octokit.paginate(octokit.rest.apps.listInstallationReposForAuthenticatedUser, {
    installation_id: installationId,
    per_page: 100,
  });
  return repos.map((r) => r.full_name);
}

/**
 * Whether the user is an owner of `org`: an active membership with role `admin` (GitHub REST "Get an
 * organization membership for the authenticated user", `GET /user/memberships/orgs/{org}`; the App needs the
 * "Members" organization permission, read). A refusal (403: permission missing, 404: not a member) is "no".
 * @throws Octokit's `RequestError` for any other failure (5xx, network)
 */
export async function isOrganizationOwner(octokit: UserOctokit, org: string): Promise<boolean> {
  try {
    const { data } = await octokit.rest.orgs.getMembershipForAuthenticatedUser({ org });
    return data.role === "admin" && data.state === "active";
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 403 || status === 404) return false;
    throw error;
  }
}
