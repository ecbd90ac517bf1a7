import {
  isOrganizationOwner,
  listUserInstallationRepositories,
  listUserInstallations,
  readUser,
  type UserInstallation,
  type UserOctokit,
} from "../github/user-access.js";
import type { PageAccess } from "../org-page/index.js";
import type { InstallationAccess, SessionData } from "./session.js";

export type { PageAccess } from "../org-page/index.js";

/**
 * What a user may see, as GitHub's own rules say, read with their token at sign-in: the App's installations
 * they can access (`GET /user/installations`); in each, organization-wide figures when they own the
 * organization (`GET /user/memberships/orgs/{org}`, role `admin`) or are the account of a user installation,
 * and then every repository; otherwise only the repositories GitHub lists for them
 * (`GET /user/installations/{id}/repositories`). The token is used for these reads only and not kept.
 * @throws Octokit's `RequestError` when GitHub refuses a read (the sign-in then fails)
 */
export async function resolveAccess(octokit: UserOctokit): Promise<SessionData> {
  const user = await readUser(octokit);
  const installations = await listUserInstallations(octokit);
  const access = await Promise.all(installations.map((i) => installationAccess(octokit, user.login, i)));
  return { login: user.login, userId: user.id, installations: access };
}

async function installationAccess(
  octokit: UserOctokit,
  login: string,
  i: UserInstallation,
): Promise<InstallationAccess> {
  const orgWide =
    i.kind === "User"
      ? i.account.toLowerCase() === login.toLowerCase()
      : await isOrganizationOwner(octokit, i.account);
  const repositories = orgWide ? ("all" as const) : await listUserInstallationRepositories(octokit, i.id);
  return { id: i.id, account: i.account, kind: i.kind, orgWide, repositories };
}

/** The {@link PageAccess} of one installation of a session, or `undefined` when the user may not see it. */
export function pageAccess(
  session: Pick<SessionData, "installations">,
  installationId: number,
): PageAccess | undefined {
  const i = session.installations.find((x) => x.id === installationId);
  if (!i) return undefined;
  return { orgWide: i.orgWide, repositories: i.repositories === "all" ? "all" : new Set(i.repositories) };
}
